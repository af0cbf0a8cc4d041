"""Outsider: step 01.02 (the execution role)."""

from harness.authoring.scenarios import mistake

from ._lib import TRUST, all_of, doc, role, scratch_table, table_arn

ACTIONS = ["dynamodb:GetItem", "dynamodb:PutItem"]


@mistake(issue=all_of("items-api-role", "(trust|assume)", "ec2"))
def trust_also_ec2(aws, handles):
    """Cause: role items-api-role's trust policy lets ec2.amazonaws.com assume it too (only Lambda may)."""
    trust = {
        "Effect": "Allow",
        "Principal": {"Service": ["lambda.amazonaws.com", "ec2.amazonaws.com"]},
        "Action": "sts:AssumeRole",
    }
    role(
        aws,
        "items-api-role",
        {"Effect": "Allow", "Action": ACTIONS, "Resource": table_arn(aws, handles["01_01_table"])},
        trust=trust,
    )


@mistake(issue=all_of("items-api-role", "(\\*|resource|narrow)", "items"))
def actions_on_every_table(aws, handles):
    """Cause: role items-api-role allows GetItem/PutItem on Resource * rather than on table items."""
    role(aws, "items-api-role", {"Effect": "Allow", "Action": ACTIONS, "Resource": "*"})


@mistake(issue=all_of("items-api-role", "(Scan|Query|DeleteItem)"))
def extra_read_actions(aws, handles):
    """Cause: role items-api-role also allows dynamodb:Query and dynamodb:Scan on the table (exactly Get/Put)."""
    role(
        aws,
        "items-api-role",
        {
            "Effect": "Allow",
            "Action": [*ACTIONS, "dynamodb:Query", "dynamodb:Scan"],
            "Resource": table_arn(aws, handles["01_01_table"]),
        },
    )


@mistake(issue=all_of("items-api-role", "(GetItem|PutItem)", "table/items\\b(?!-)"))
def policy_names_the_scratch_table(aws, handles):
    """Mis-wired: the policy names the learner's scratch table items-dev, not items: nothing allows Get/Put on items."""
    scratch = scratch_table(aws)
    role(aws, "items-api-role", {"Effect": "Allow", "Action": ACTIONS, "Resource": table_arn(aws, scratch)})


@mistake(expect="pass")
def right_role_after_an_ec2_decoy(aws, handles):
    """Decoy first: items-role-old trusted by ec2 with dynamodb:*; then the right items-api-role. Must pass."""
    ec2_trust = {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
    role(aws, "items-role-old", {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}, trust=ec2_trust)
    role(
        aws,
        "items-api-role",
        {"Effect": "Allow", "Action": ACTIONS, "Resource": table_arn(aws, handles["01_01_table"])},
    )


@mistake(expect="pass")
def equivalent_customer_managed_policy_two_statements(aws, handles):
    """Equivalent: the permissions in an attached customer managed policy, one statement per action."""
    iam = aws.client("iam")
    arn = table_arn(aws, handles["01_01_table"])
    iam.create_role(RoleName="items-api-role", AssumeRolePolicyDocument=doc(TRUST))
    policy = iam.create_policy(
        PolicyName="items-table-access",
        PolicyDocument=doc(
            {"Sid": "Get", "Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": arn},
            {"Sid": "Put", "Effect": "Allow", "Action": ["dynamodb:PutItem"], "Resource": [arn]},
        ),
    )["Policy"]["Arn"]
    iam.attach_role_policy(RoleName="items-api-role", PolicyArn=policy)
