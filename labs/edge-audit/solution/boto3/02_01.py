"""Step 02.01: an origin access control that always signs, and a distribution on the bucket's REST endpoint
through it, serving index.html, redirecting viewers to HTTPS."""

from botocore.exceptions import ClientError

CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6"  # the AWS managed cache policy


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        cloudfront = session.client("cloudfront")
        control = cloudfront.create_origin_access_control(
            OriginAccessControlConfig={
                "Name": "edge-audit-site",
                "SigningProtocol": "sigv4",
                "SigningBehavior": "always",
                "OriginAccessControlOriginType": "s3",
            }
        )["OriginAccessControl"]["Id"]
        origin = {
            "Id": "site",
            "DomainName": f"{handles['01_01_bucket']}.s3.{session.region_name}.amazonaws.com",
            "S3OriginConfig": {"OriginAccessIdentity": ""},
            "OriginAccessControlId": control,
        }
        distribution = cloudfront.create_distribution(
            DistributionConfig={
                "CallerReference": "edge-audit-site",
                "Comment": "edge-audit",
                "Enabled": True,
                "DefaultRootObject": "index.html",
                "Origins": {"Quantity": 1, "Items": [origin]},
                "DefaultCacheBehavior": {
                    "TargetOriginId": "site",
                    "ViewerProtocolPolicy": "redirect-to-https",
                    "CachePolicyId": CACHING_OPTIMIZED,
                },
            }
        )["Distribution"]["Id"]
        return {
            "success": True,
            "resources": [
                {"name": "02_01_origin_access_control", "type": "AWS::CloudFront::OriginAccessControl", "id": control},
                {"name": "02_01_distribution", "type": "AWS::CloudFront::Distribution", "id": distribution},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
