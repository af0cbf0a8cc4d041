"""An internet gateway attached to 02.01's VPC."""

NAME, TYPE = "02_03_igw", "AWS::EC2::InternetGateway"


async def run(session, context, logger):
    ec2 = session.client("ec2")
    vpc_id = next((h["id"] for h in context["resolved"] if h["name"] == "02_01_vpc"), None)
    ids = [e["id"] for e in context["events"] if e["type"] == TYPE]
    gateways = ec2.describe_internet_gateways(InternetGatewayIds=ids)["InternetGateways"] if ids else []
    for gateway in gateways:
        if any(a["VpcId"] == vpc_id for a in gateway.get("Attachments", [])):
            found = {"name": NAME, "type": TYPE, "id": gateway["InternetGatewayId"], "status": "found"}
            return {"validated": [found], "success": True, "message": "ok"}
    return {
        "validated": [{"name": NAME, "type": TYPE, "id": None, "status": "not_found"}],
        "success": False,
        "message": "no igw",
        "failure_context": {
            "step": "02.03",
            "issue": f"No internet gateway is attached to {vpc_id}.",
            "hint_context": "igw",
        },
    }
