"""Step 02.03's scenarios; the solve raises on purpose."""

from harness.authoring.scenarios import mistake, solve


@solve
def attached_gateway(aws, handles):
    aws.client("ec2").create_internet_gateway()
    raise RuntimeError("this solve was never finished")


@mistake(issue=r"(?i)attached")
def gateway_not_attached(aws, handles):
    aws.client("ec2").create_internet_gateway()
