"""A subnet in the VPC 02.01 validated."""

from botocore.exceptions import ClientError

NAME, TYPE = "02_02_subnet", "AWS::EC2::Subnet"


def _failed(issue, vpc_entry):
    return {
        "validated": [vpc_entry, {"name": NAME, "type": TYPE, "id": None, "status": "not_found"}],
        "success": False,
        "message": issue,
        "failure_context": {"step": "02.02", "issue": issue, "hint_context": "subnet"},
    }


async def run(session, context, logger):
    ec2 = session.client("ec2")
    vpc_id = next((h["id"] for h in context["resolved"] if h["name"] == "02_01_vpc"), None)
    vpc_entry = {"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": vpc_id, "status": "not_found"}
    try:
        ec2.describe_vpcs(VpcIds=[vpc_id or "vpc-0"])
    except ClientError:
        return _failed(f"The VPC from 02.01 ({vpc_id}) does not exist.", vpc_entry)
    vpc_entry["status"] = "found"
    for event in context["events"]:
        if event["type"] != TYPE:
            continue
        try:
            subnet = ec2.describe_subnets(SubnetIds=[event["id"]])["Subnets"][0]
        except ClientError:
            continue
        if subnet["VpcId"] == vpc_id:
            found = {"name": NAME, "type": TYPE, "id": subnet["SubnetId"], "status": "found"}
            return {"validated": [vpc_entry, found], "success": True, "message": "ok"}
    return _failed(f"No subnet of this step is in the VPC {vpc_id}.", vpc_entry)
