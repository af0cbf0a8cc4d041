from harness.authoring.scenarios import solve


def _task(log_group):
    container = {
        "name": "api",
        "image": "public.ecr.aws/nginx/nginx:latest",
        "essential": True,
        "logConfiguration": {
            "logDriver": "awslogs",
            "options": {"awslogs-group": log_group, "awslogs-region": "us-east-1", "awslogs-stream-prefix": "api"},
        },
    }
    return {
        "family": "api",
        "requiresCompatibilities": ["FARGATE"],
        "networkMode": "awsvpc",
        "cpu": "256",
        "memory": "512",
        "containerDefinitions": [container],
    }


@solve
def groups_logs_and_two_revisions(aws, handles):
    ec2 = aws.client("ec2")
    vpc = ec2.describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
    ec2.create_security_group(GroupName="app", Description="app", VpcId=vpc)
    ec2.create_security_group(GroupName="db", Description="db", VpcId=vpc)
    logs = aws.client("logs")
    logs.create_log_group(logGroupName="/ecs/other")
    logs.create_log_group(logGroupName="/ecs/app")
    aws.client("ecs").register_task_definition(**_task("/ecs/other"))  # a first draft: revision 1
    aws.client("ecs").register_task_definition(**_task("/ecs/app"))
