"""Outsider: step 02.01 (the origin access control and the distribution on the site bucket)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of, bucket, distribution, oac, rest_endpoint

# Ambiguous to me: the step asks for "an origin access control ... reached through that origin access control",
# so a distribution reaching the bucket through a legacy origin access identity (OAI) is taken as wrong here,
# although AWS still accepts OAIs and kit.s3.readable_only_by admits them for the bucket policy.


@mistake(expect="pass")
def right_redirect_to_https(aws, handles):
    """Right: an OAC (s3, sigv4, always), the distribution on B.s3.amazonaws.com through it, index.html at the
    root, redirect-to-https."""
    control = oac(aws)
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control)


@mistake(expect="pass")
def equivalent_https_only_regional_endpoint(aws, handles):
    """Equivalent: the regional REST endpoint B.s3.REGION.amazonaws.com, https-only."""
    control = oac(aws)
    domain = f"{handles['01_01_bucket']}.s3.{aws.region_name}.amazonaws.com"
    distribution(aws, domain, control=control, viewer="https-only")


@mistake(expect="pass")
def right_beside_an_older_disabled_website_distribution(aws, handles):
    """Decoy first: a no-override OAC and a disabled distribution on the bucket's website endpoint (the first
    try); then a second OAC that always signs and the right distribution through it. Must pass."""
    bucket_name = handles["01_01_bucket"]
    oac(aws, name="site-oac-try", behavior="no-override")
    website = f"{bucket_name}.s3-website-{aws.region_name}.amazonaws.com"
    distribution(aws, website, website=True, enabled=False, root=None, viewer="allow-all", comment="first try")
    control = oac(aws, name="site-oac")
    distribution(aws, rest_endpoint(bucket_name), control=control)


@mistake(issue=all_of("(origin access control|OAC|site-oac)", "(always|sign)"))
def oac_no_override(aws, handles):
    """Cause: the origin access control site-oac signs only when the viewer sent no Authorization (no-override),
    not always."""
    control = oac(aws, behavior="no-override")
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control)


@mistake(issue=all_of("(origin access control|OAC|site-oac)", "(always|sign|never)"))
def oac_never_signs(aws, handles):
    """Cause: the origin access control site-oac never signs requests (behaviour never)."""
    control = oac(aws, behavior="never")
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control)


@mistake(issue=all_of("distribution", "(website|REST|origin)"))
def origin_is_the_website_endpoint(aws, handles):
    """Cause: the distribution's origin is the bucket's website endpoint (custom origin), not its REST endpoint."""
    oac(aws)
    website = f"{handles['01_01_bucket']}.s3-website-{aws.region_name}.amazonaws.com"
    distribution(aws, website, website=True)


@mistake(issue=all_of("distribution", "(index\\.html|root)"))
def no_default_root_object(aws, handles):
    """Cause: the distribution has no default root object (index.html left out)."""
    control = oac(aws)
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control, root=None)


@mistake(issue=all_of("distribution", "(index\\.html|root)"))
def root_object_with_a_leading_slash(aws, handles):
    """Cause: the default root object is /index.html (CloudFront would look for the key "/index.html")."""
    control = oac(aws)
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control, root="/index.html")


@mistake(issue=all_of("distribution", "(HTTPS|viewer|allow-all|HTTP\\b)"))
def viewers_allowed_plain_http(aws, handles):
    """Cause: the default behaviour's viewer protocol policy is allow-all (HTTP served)."""
    control = oac(aws)
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control, viewer="allow-all")


@mistake(issue=all_of("distribution", "(enabled|disabled)"))
def distribution_disabled(aws, handles):
    """Cause: the distribution was created disabled."""
    control = oac(aws)
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), control=control, enabled=False)


@mistake(issue=all_of("distribution", "(origin access control|OAC|origin access identity|OAI)"))
def oac_created_but_not_chosen(aws, handles):
    """Cause: the OAC exists but the distribution's origin reaches the bucket without it (the learner left the
    console's "Public" origin access)."""
    oac(aws)
    distribution(aws, rest_endpoint(handles["01_01_bucket"]))


@mistake(issue=all_of("distribution", "(origin access control|OAC|origin access identity|OAI)"))
def legacy_origin_access_identity(aws, handles):
    """Cause: the distribution reaches the bucket through a legacy origin access identity (E1OAIEXAMPLE, copied
    from an older distribution: moto has no CreateCloudFrontOriginAccessIdentity), not the origin access control
    the step asks for (which exists, unused)."""
    oac(aws)
    identity = "origin-access-identity/cloudfront/E1OAIEXAMPLE"
    distribution(aws, rest_endpoint(handles["01_01_bucket"]), identity=identity)


@mistake(issue=all_of("distribution", "(origin|bucket|01_01_bucket)"))
def origin_on_a_scratch_bucket(aws, handles):
    """Mis-wired: the distribution's origin is a scratch bucket edge-audit-scratch (picked from the console's
    list), not the site bucket."""
    control = oac(aws)
    distribution(aws, rest_endpoint(bucket(aws, "edge-audit-scratch")), control=control)


@mistake(issue=all_of("distribution", "(origin|behaviou?r|website|REST)"))
def default_behaviour_on_a_second_origin(aws, handles):
    """Mis-wired: the distribution has the bucket's REST origin through the OAC and a second origin, its website
    endpoint; the default behaviour serves from the website one."""
    control = oac(aws)
    name = handles["01_01_bucket"]
    rest = {"Id": "rest", "DomainName": rest_endpoint(name), "S3OriginConfig": {"OriginAccessIdentity": ""}}
    rest["OriginAccessControlId"] = control
    website = {
        "Id": "website",
        "DomainName": f"{name}.s3-website-{aws.region_name}.amazonaws.com",
        "CustomOriginConfig": {"HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "http-only"},
    }
    aws.client("cloudfront").create_distribution(
        DistributionConfig={
            "CallerReference": "two-origins",
            "Comment": "edge-audit site",
            "Enabled": True,
            "DefaultRootObject": "index.html",
            "Origins": {"Quantity": 2, "Items": [rest, website]},
            "DefaultCacheBehavior": {
                "TargetOriginId": "website",
                "ViewerProtocolPolicy": "redirect-to-https",
                "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6",
            },
        }
    )
