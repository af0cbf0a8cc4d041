"""Held-out mistakes of serverless-api step 01.02, with decoys (see tests/heldout/README.md)."""

import json

from harness.authoring.scenarios import mistake


def _heldout_role(aws, handles, name, actions, resource=None, service="lambda.amazonaws.com"):
    iam = aws.client("iam")
    trust = {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [trust]}))
    table = aws.client("dynamodb").describe_table(TableName=handles["01_01_table"])["Table"]["TableArn"]
    allow = {"Effect": "Allow", "Action": list(actions), "Resource": resource or table}
    iam.put_role_policy(
        RoleName=name, PolicyName="table", PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [allow]})
    )


@mistake(issue=r"(?i)heldout-items-role.*DeleteItem")
def heldout_one_action_too_many_after_an_older_wide_role(aws, handles):
    _heldout_role(aws, handles, "heldout-old-role", ["dynamodb:*"])  # an older experiment
    _heldout_role(aws, handles, "heldout-items-role", ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"])


@mistake(issue=r"(?i)heldout-items-role.*(PutItem)")
def heldout_put_missing_beside_a_scratch_role(aws, handles):
    _heldout_role(aws, handles, "heldout-scratch", ["dynamodb:Scan"], service="ec2.amazonaws.com")
    _heldout_role(aws, handles, "heldout-items-role", ["dynamodb:GetItem"])
