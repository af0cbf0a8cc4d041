from harness.authoring.scenarios import solve


@solve
def service_in_the_app_group(aws, handles):
    ec2 = aws.client("ec2")
    vpc = ec2.describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
    subnets = [s["SubnetId"] for s in ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Subnets"]]
    ecs = aws.client("ecs")
    ecs.create_cluster(clusterName="orders")
    network = {"subnets": sorted(subnets)[:1], "securityGroups": [handles["03_01_app_group"]]}
    ecs.create_service(
        cluster="orders",
        serviceName="api",
        taskDefinition=handles["03_01_task_definition"],
        desiredCount=1,
        launchType="FARGATE",
        networkConfiguration={"awsvpcConfiguration": network},
    )
