"""Step 02.01: the mistakes learners make with the origin access control and the distribution."""

from harness.authoring.scenarios import mistake

CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6"


def _control(aws, *, behavior="always", origin_type="s3", name="edge-audit-site"):
    config = {"Name": name, "SigningProtocol": "sigv4", "SigningBehavior": behavior,
              "OriginAccessControlOriginType": origin_type}  # fmt: skip
    return aws.client("cloudfront").create_origin_access_control(OriginAccessControlConfig=config)[
        "OriginAccessControl"
    ]["Id"]


def _distribution(aws, handles, control, *, domain=None, viewers="redirect-to-https", root="index.html",
                  enabled=True, reference="edge-audit-site"):  # fmt: skip
    origin = {"Id": "site", "DomainName": domain or f"{handles['01_01_bucket']}.s3.amazonaws.com"}
    if ".s3-website" in origin["DomainName"]:
        origin["CustomOriginConfig"] = {"HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "http-only"}
    else:
        origin["S3OriginConfig"] = {"OriginAccessIdentity": ""}
    if control:
        origin["OriginAccessControlId"] = control
    config = {
        "CallerReference": reference, "Comment": "edge-audit", "Enabled": enabled,
        "Origins": {"Quantity": 1, "Items": [origin]},
        "DefaultCacheBehavior": {"TargetOriginId": "site", "ViewerProtocolPolicy": viewers,
                                 "CachePolicyId": CACHING_OPTIMIZED},
        **({"DefaultRootObject": root} if root else {}),
    }  # fmt: skip
    return aws.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"]["Id"]


@mistake(expect="pass")
def https_only_on_the_global_endpoint(aws, handles):
    _distribution(aws, handles, _control(aws), viewers="https-only")


@mistake(expect="pass")
def the_legacy_regional_endpoint(aws, handles):
    _distribution(aws, handles, _control(aws), domain=f"{handles['01_01_bucket']}.s3-{aws.region_name}.amazonaws.com")


@mistake(expect="pass")
def an_older_control_that_never_signs_beside(aws, handles):
    _control(aws, behavior="never", name="edge-audit-old")
    _distribution(aws, handles, _control(aws))


@mistake(
    issue=r"CloudFront distribution \w+: viewer protocol policy should be https-only or redirect-to-https, "
    r"but is allow-all"
)
def plain_http_allowed(aws, handles):
    _distribution(aws, handles, _control(aws), viewers="allow-all")


@mistake(issue=r"CloudFront distribution \w+: origin access control should be .* through \w+")
def no_origin_access_control_on_the_origin(aws, handles):
    _control(aws)
    _distribution(aws, handles, None)


@mistake(
    issue=r"Origin access control \w+: signing should be always with sigv4 for s3, but is no-override with sigv4 for s3"
)
def a_control_that_does_not_always_sign(aws, handles):
    _distribution(aws, handles, _control(aws, behavior="no-override"))


@mistake(
    issue=r"CloudFront distribution \w+: origin of the default behaviour should be edge-audit-site, but is .*s3-website"
)
def the_website_endpoint(aws, handles):
    control = _control(aws)
    _distribution(aws, handles, control, domain=f"{handles['01_01_bucket']}.s3-website-{aws.region_name}.amazonaws.com")


@mistake(
    issue=r"CloudFront distribution \w+: origin of the default behaviour should be edge-audit-site, "
    r"but is .*another-bucket"
)
def another_bucket(aws, handles):
    _distribution(aws, handles, _control(aws), domain="another-bucket.s3.amazonaws.com")


@mistake(issue=r"CloudFront distribution \w+: default root object should be index\.html, but is none")
def no_default_root_object(aws, handles):
    _distribution(aws, handles, _control(aws), root=None)


@mistake(issue=r"CloudFront distribution \w+: enabled should be enabled, but is disabled")
def a_disabled_distribution(aws, handles):
    _distribution(aws, handles, _control(aws), enabled=False)
