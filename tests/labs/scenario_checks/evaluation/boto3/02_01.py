"""A VPC with CIDR 10.0.0.0/16, among this step's events."""

from botocore.exceptions import ClientError

NAME, TYPE = "02_01_vpc", "AWS::EC2::VPC"


async def run(session, context, logger):
    ec2 = session.client("ec2")
    seen = []
    for event in context["events"]:
        if event["type"] != TYPE:
            continue
        try:
            vpc = ec2.describe_vpcs(VpcIds=[event["id"]])["Vpcs"][0]
        except ClientError:
            continue
        seen.append(vpc["CidrBlock"])
        if vpc["CidrBlock"] == "10.0.0.0/16":
            return {
                "validated": [{"name": NAME, "type": TYPE, "id": vpc["VpcId"], "status": "found"}],
                "success": True,
                "message": "ok",
            }
    return {
        "validated": [{"name": NAME, "type": TYPE, "id": None, "status": "not_found"}],
        "success": False,
        "message": "no vpc",
        "failure_context": {
            "step": "02.01",
            "issue": f"No VPC with CIDR 10.0.0.0/16 (saw {seen}).",
            "hint_context": "cidr",
        },
    }
