"""Step 03.01: the load balancer's group (TCP 80 from anywhere, nothing else) and the app's (TCP 80 from it)."""

from botocore.exceptions import ClientError


def _allow_80(ec2, group_id, source):
    permission = {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, **source}
    ec2.authorize_security_group_ingress(GroupId=group_id, IpPermissions=[permission])


async def run(session, context, logger):
    vpc_id = next(h["id"] for h in context["resolved"] if h["name"] == "02_01_vpc")
    try:
        ec2 = session.client("ec2")
        alb = ec2.create_security_group(GroupName="web-tier-alb", Description="web-tier-alb", VpcId=vpc_id)["GroupId"]
        app = ec2.create_security_group(GroupName="web-tier-app", Description="web-tier-app", VpcId=vpc_id)["GroupId"]
        _allow_80(ec2, alb, {"IpRanges": [{"CidrIp": "0.0.0.0/0"}]})
        _allow_80(ec2, app, {"UserIdGroupPairs": [{"GroupId": alb}]})
        return {
            "success": True,
            "resources": [
                {"name": "03_01_alb_sg", "type": "AWS::EC2::SecurityGroup", "id": alb},
                {"name": "03_01_app_sg", "type": "AWS::EC2::SecurityGroup", "id": app},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
