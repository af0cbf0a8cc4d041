"""Three describe calls, as a typical network step makes: the default VPC, its subnets, its security groups."""


async def run(session, context, logger):
    ec2 = session.client("ec2")
    vpcs = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"]
    vpc = vpcs[0]["VpcId"] if vpcs else None
    subnets = ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc or "none"]}])["Subnets"]
    groups = ec2.describe_security_groups(Filters=[{"Name": "vpc-id", "Values": [vpc or "none"]}])["SecurityGroups"]
    if vpc is None:
        return {
            "validated": [{"name": "01_02_vpc", "type": "AWS::EC2::VPC", "id": None, "status": "not_found"}],
            "success": False,
            "message": "no default VPC",
            "failure_context": {"step": "01.02", "issue": "no default VPC", "hint_context": "create one"},
        }
    return {
        "validated": [{"name": "01_02_vpc", "type": "AWS::EC2::VPC", "id": vpc, "status": "found"}],
        "success": True,
        "message": f"default VPC {vpc} with {len(subnets)} subnets and {len(groups)} security groups",
    }
