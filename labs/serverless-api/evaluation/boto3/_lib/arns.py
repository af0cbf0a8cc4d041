"""ARNs the lab's steps build from a resource's own ARN (same partition, region and account)."""


def log_streams_arn(function, group_name):
    """The ARN of every log stream in `group_name`, in the function's partition, region and account."""
    _, partition, _, region, account = function["FunctionArn"].split(":")[:5]
    return f"arn:{partition}:logs:{region}:{account}:log-group:{group_name}:log-stream:*"
