"""Step 02.03: a public zone edge-audit.example.com and an alias A record www to the distribution."""

import uuid

from botocore.exceptions import ClientError

CLOUDFRONT_ZONE = "Z2FDTNDATAQYW2"  # the hosted zone of every CloudFront distribution's name


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        route53 = session.client("route53")
        domain = session.client("cloudfront").get_distribution(Id=handles["02_01_distribution"])["Distribution"]
        zone = route53.create_hosted_zone(Name="edge-audit.example.com", CallerReference=str(uuid.uuid4()))
        zone_id = zone["HostedZone"]["Id"].removeprefix("/hostedzone/")
        alias = {"HostedZoneId": CLOUDFRONT_ZONE, "DNSName": domain["DomainName"], "EvaluateTargetHealth": False}
        record = {"Name": "www.edge-audit.example.com", "Type": "A", "AliasTarget": alias}
        route53.change_resource_record_sets(
            HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": record}]}
        )
        return {
            "success": True,
            "resources": [
                {"name": "02_03_zone", "type": "AWS::Route53::HostedZone", "id": zone_id},
                {
                    "name": "02_03_record",
                    "type": "AWS::Route53::RecordSet",
                    "id": f"www.edge-audit.example.com.|{zone_id}|A",
                },
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
