"""Seeded realistic resource policies and requests (bucket, queue, topic, key, function, secret, bus policies with
service principals, conditions, Not* elements, denies, wildcards and variables): what the policy engine is tested on,
against iam-simulate (test_access_oracle.py) and by its properties (test_access.py)."""

from __future__ import annotations

import random
from typing import Any

from harness.kit.access import ANONYMOUS

OWNER = "111111111111"
OTHER = "222222222222"
THIRD = "333333333333"
OAI = "arn:aws:iam::cloudfront:user/CloudFront Origin Access Identity E2QWRUHAPOMQZL"
CANONICAL = "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"
DISTRIBUTION = f"arn:aws:cloudfront::{OWNER}:distribution/E1A2B3C4D5"
RULE = f"arn:aws:events:us-east-1:{OWNER}:rule/every-5-minutes"
TOPIC = f"arn:aws:sns:us-east-1:{OWNER}:orders"
TRAIL = f"arn:aws:cloudtrail:us-east-1:{OWNER}:trail/audit"

# What each kind of resource is asked, on which ARNs, and the service principals that call it. No ARN asked holds a
# `*` or `?`: iam-simulate reads such a request as "any resource of that pattern" (test_access.py asks about `${*}`).
TARGETS: dict[str, dict[str, Any]] = {
    "s3": {
        "object": [
            "arn:aws:s3:::site-bucket/index.html",
            "arn:aws:s3:::site-bucket/AWSLogs/111111111111/x.gz",
            "arn:aws:s3:::site-bucket/alice/notes.txt",
            "arn:aws:s3:::site-bucket/a+b",
        ],
        "bucket": ["arn:aws:s3:::site-bucket"],
        "actions": {
            "object": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
            "bucket": ["s3:GetBucketAcl", "s3:ListBucket"],
        },
        "services": ["cloudfront.amazonaws.com", "cloudtrail.amazonaws.com", "logging.s3.amazonaws.com"],
    },
    "sqs": {
        "queue": [f"arn:aws:sqs:us-east-1:{OWNER}:orders", f"arn:aws:sqs:us-east-1:{OWNER}:orders-dlq"],
        "actions": {"queue": ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage"]},
        "services": ["sns.amazonaws.com", "events.amazonaws.com", "s3.amazonaws.com"],
    },
    "sns": {
        "topic": [TOPIC, f"arn:aws:sns:us-east-1:{OWNER}:alerts"],
        "actions": {"topic": ["sns:Publish", "sns:Subscribe"]},
        "services": ["events.amazonaws.com", "cloudwatch.amazonaws.com", "s3.amazonaws.com"],
    },
    "kms": {
        "key": [f"arn:aws:kms:us-east-1:{OWNER}:key/1234abcd-12ab-34cd-56ef-1234567890ab"],
        "actions": {"key": ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"]},
        "services": ["cloudtrail.amazonaws.com", "logs.us-east-1.amazonaws.com", "sns.amazonaws.com"],
    },
    "lambda": {
        "function": [f"arn:aws:lambda:us-east-1:{OWNER}:function:orders"],
        "actions": {"function": ["lambda:InvokeFunction"]},
        "services": ["apigateway.amazonaws.com", "events.amazonaws.com", "s3.amazonaws.com"],
    },
    "secretsmanager": {
        "secret": [f"arn:aws:secretsmanager:us-east-1:{OWNER}:secret:db-AbCdEf"],
        "actions": {"secret": ["secretsmanager:GetSecretValue"]},
        "services": ["rds.amazonaws.com"],
    },
    "events": {
        "bus": [f"arn:aws:events:us-east-1:{OWNER}:event-bus/default"],
        "actions": {"bus": ["events:PutEvents"]},
        "services": ["events.amazonaws.com"],
    },
}

SOURCES = [
    RULE,
    TOPIC,
    DISTRIBUTION,
    TRAIL,
    f"arn:aws:events:us-east-1:{OTHER}:rule/decoy",
    f"arn:aws:cloudfront::{OWNER}:distribution/EOTHER",
]
IPS = ["203.0.113.7", "198.51.100.20", "10.0.0.5", "2001:db8::1"]
NETWORKS = ["203.0.113.0/24", "198.51.100.0/25", "10.0.0.0/8", "2001:db8::/32", "192.0.2.1/32"]
TIMES = ["2026-11-28T12:00:00Z", "2020-01-01T00:00:00Z", "2030-06-01T00:00:00Z"]
TAGS = ["team", "env", "owner", "cost"]


def principals(rng: random.Random, services: list[str]) -> list[str]:
    """Request principals: roles, users, sessions in other accounts, the target's services, anyone, an OAI. Not a
    canonical user: iam-simulate cannot ask the resource policy alone about one (it reads it as an IAM principal
    with no identity policy), so test_access.py covers it."""
    return [
        f"arn:aws:iam::{OTHER}:role/app",
        f"arn:aws:iam::{OTHER}:user/alice",
        f"arn:aws:iam::{THIRD}:role/ops",
        f"arn:aws:sts::{OTHER}:assumed-role/app/session-1",
        OAI,
        ANONYMOUS,
        *services,
        rng.choice(["events.amazonaws.com", "sns.amazonaws.com", "cloudfront.amazonaws.com"]),
    ]


def principal_element(rng: random.Random, services: list[str]) -> Any:
    pick = rng.random()
    if pick < 0.1:
        return "*"
    if pick < 0.2:
        return {"AWS": "*"}
    options: list[tuple[str, str]] = [
        ("AWS", OTHER),
        ("AWS", f"arn:aws:iam::{OTHER}:root"),
        ("AWS", f"arn:aws:iam::{THIRD}:root"),
        ("AWS", f"arn:aws:iam::{OTHER}:role/app"),
        ("AWS", f"arn:aws:iam::{OTHER}:user/alice"),
        ("AWS", f"arn:aws:iam::{OTHER}:user/bob"),
        ("AWS", OAI),
        ("AWS", "*"),
        ("CanonicalUser", CANONICAL),
        *(("Service", s) for s in services),
        ("Service", "events.amazonaws.com"),
    ]
    chosen = rng.sample(options, rng.choice([1, 1, 1, 2, 3]))
    element: dict[str, Any] = {}
    for kind, value in chosen:
        element.setdefault(kind, []).append(value)
    return {k: v[0] if len(v) == 1 and rng.random() < 0.6 else v for k, v in element.items()}


def action_element(rng: random.Random, service: str, actions: list[str]) -> list[str] | str:
    chosen = rng.sample(actions, min(len(actions), rng.choice([1, 1, 2])))
    out = []
    for action in chosen:
        prefix, name = action.split(":")
        form = rng.random()
        if form < 0.1:
            out.append(f"{prefix}:*")
        elif form < 0.2:
            out.append(f"{prefix}:{name[:3]}*")
        elif form < 0.27:
            out.append(f"{prefix}:?{name[1:]}")
        elif form < 0.35:
            out.append(f"{prefix.upper()}:{name.lower()}")
        elif form < 0.38:
            out.append("*")
        else:
            out.append(action)
    return out[0] if len(out) == 1 and rng.random() < 0.5 else out


def resource_patterns(rng: random.Random, arns: list[str]) -> list[str]:
    arn = rng.choice(arns)
    forms = [
        arn,
        "*",
        arn[: rng.randrange(len(arn) // 2, len(arn))] + "*",
        arn.replace("us-east-1", "*") if "us-east-1" in arn else arn,
        arn[:-1] + "?",
        arn + "-other",
        "arn:aws:s3:::site-bucket/${aws:username}/*",
        "arn:aws:s3:::site-bucket/AWSLogs/${aws:SourceAccount}/*",
        "arn:aws:s3:::site-bucket/a${*}b",
        "arn:aws:s3:::site-bucket/*",
        f"arn:aws:*:*:{OWNER}:*",
    ]
    return rng.sample(forms, rng.choice([1, 1, 2]))


def condition_element(rng: random.Random, service: str) -> dict[str, dict[str, Any]]:
    tests: list[tuple[str, str, Any]] = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        kind = rng.random()
        ifx = "IfExists" if rng.random() < 0.15 else ""
        if kind < 0.2:
            op = rng.choice(
                ["ArnLike", "ArnEquals", "ArnNotLike", "ArnNotEquals", "StringLike", "StringEquals", "StringNotLike"]
            )
            value = rng.choice(
                [
                    *SOURCES,
                    "arn:aws:events:*:*:rule/*",
                    "arn:aws:cloudfront::*:distribution/E1*",
                    "arn:aws:sns:us-east-1:111111111111:*",
                    "arn:aws:*:*:111111111111:*",
                ]
            )
            tests.append((op + ifx, "aws:SourceArn", value))
        elif kind < 0.32:
            op = rng.choice(["StringEquals", "StringNotEquals", "StringLike"])
            tests.append(
                (
                    op + ifx,
                    rng.choice(["aws:SourceAccount", "AWS:SourceOwner"]),
                    rng.choice([OWNER, OTHER, [OWNER, OTHER], "1111*"]),
                )
            )
        elif kind < 0.42:
            tests.append(
                (rng.choice(["Bool", "BoolIfExists"]), "aws:SecureTransport", rng.choice(["false", "true", False]))
            )
        elif kind < 0.5:
            op = rng.choice(["StringEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "StringLike"])
            tests.append(
                (op + ifx, "aws:PrincipalOrgID", rng.choice(["o-abc123", "O-ABC123", ["o-abc123", "o-x"], "o-*"]))
            )
        elif kind < 0.58:
            tests.append(
                (
                    rng.choice(["IpAddress", "NotIpAddress"]) + ifx,
                    "aws:SourceIp",
                    rng.sample(NETWORKS, rng.choice([1, 2])),
                )
            )
        elif kind < 0.64:
            op = rng.choice(["DateGreaterThan", "DateLessThan", "DateEquals", "DateNotEquals", "DateLessThanEquals"])
            tests.append((op + ifx, "aws:CurrentTime", rng.choice([*TIMES, "2026-01-01T00:00:00Z"])))
        elif kind < 0.7:
            op = rng.choice(["NumericLessThan", "NumericGreaterThanEquals", "NumericEquals", "NumericNotEquals"])
            tests.append((op + ifx, "aws:MultiFactorAuthAge", rng.choice(["3600", "0", "86400"])))
        elif kind < 0.76:
            tests.append(
                (
                    "Null",
                    rng.choice(["aws:SourceArn", "aws:PrincipalOrgID", "aws:SourceIp"]),
                    rng.choice(["true", "false"]),
                )
            )
        elif kind < 0.86:
            op = rng.choice(
                [
                    "ForAllValues:StringEquals",
                    "ForAnyValue:StringEquals",
                    "ForAllValues:StringLike",
                    "ForAnyValue:StringNotEquals",
                    "ForAllValues:StringNotLike",
                    "ForAnyValue:StringLike",
                ]
            )
            tests.append((op + ifx, "aws:TagKeys", rng.sample([*TAGS, "t*"], rng.choice([1, 2, 3]))))
        elif kind < 0.92:
            op = rng.choice(["StringEquals", "StringLike", "StringNotEquals"])
            tests.append(
                (
                    op + ifx,
                    "aws:PrincipalTag/team",
                    rng.choice(["${aws:username}", "red", "r*", "${aws:SourceAccount}"]),
                )
            )
        elif kind < 0.94:
            op = rng.choice(["DateGreaterThan", "DateLessThanEquals"])
            tests.append((op + ifx, "aws:EpochTime", rng.choice(["1700000000", "1900000000"])))
        elif kind < 0.95:
            tests.append(("BinaryEquals", "aws:UserAgent", rng.choice(["QmluYXJ5", "b3RoZXI="])))
        elif service == "s3" and kind < 0.97:
            tests.append(
                (
                    rng.choice(["StringEquals", "StringNotEquals"]),
                    "s3:x-amz-acl",
                    rng.choice(["bucket-owner-full-control", "private"]),
                )
            )
        else:
            tests.append(("StringEquals" + ifx, "aws:username", rng.choice(["alice", "bob", ["alice", "bob"]])))
    condition: dict[str, dict[str, Any]] = {}
    for op, key, value in tests:
        condition.setdefault(op, {})[key] = value
    return condition


def context(rng: random.Random, service: str, action: str) -> dict[str, Any]:
    keys: dict[str, Any] = {
        "aws:SourceArn": rng.choice(SOURCES),
        "aws:SourceAccount": rng.choice([OWNER, OTHER]),
        "aws:SecureTransport": rng.choice(["true", "false"]),
        "aws:PrincipalOrgID": rng.choice(["o-abc123", "o-other"]),
        "aws:SourceIp": rng.choice(IPS),
        "aws:CurrentTime": rng.choice(TIMES),
        "aws:MultiFactorAuthAge": rng.choice(["10", "3600", "90000"]),
        "aws:TagKeys": rng.sample(TAGS, rng.choice([0, 1, 2, 3])),
        "aws:PrincipalTag/team": rng.choice(["red", "alice", OWNER]),
        "aws:username": rng.choice(["alice", "bob", "a*b"]),
        "aws:EpochTime": rng.choice(["1800000000", "1600000000"]),
    }
    if action == "s3:PutObject":
        keys["s3:x-amz-acl"] = rng.choice(["bucket-owner-full-control", "private"])
    return {k: v for k, v in keys.items() if rng.random() < 0.6}


def statement(rng: random.Random, service: str, target: dict[str, Any], number: int) -> dict[str, Any]:
    kind = rng.choice([k for k in target if k not in ("actions", "services")])
    out: dict[str, Any] = {"Effect": "Deny" if rng.random() < 0.25 else "Allow"}
    if rng.random() < 0.6:
        out["Sid"] = f"S{number}"
    if rng.random() < 0.08:
        out["NotPrincipal"] = {
            "AWS": rng.choice([f"arn:aws:iam::{OTHER}:role/app", OTHER, f"arn:aws:iam::{THIRD}:root"])
        }
    else:
        out["Principal"] = principal_element(rng, target["services"])
    if rng.random() < 0.1:
        out["NotAction"] = action_element(rng, service, target["actions"][kind])
    else:
        out["Action"] = action_element(rng, service, target["actions"][kind])
    resources = resource_patterns(rng, target[kind])
    out["NotResource" if rng.random() < 0.08 else "Resource"] = resources[0] if len(resources) == 1 else resources
    if rng.random() < 0.55:
        out["Condition"] = condition_element(rng, service)
    return out


def cases(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        service = rng.choice(list(TARGETS))
        target = TARGETS[service]
        document = {
            "Version": "2012-10-17" if rng.random() < 0.9 else "2008-10-17",
            "Statement": [statement(rng, service, target, n) for n in range(1, rng.choice([1, 2, 2, 3, 4]) + 1)],
        }
        for _ in range(10):
            kind = rng.choice([k for k in target if k not in ("actions", "services")])
            action = rng.choice(target["actions"][kind])
            out.append(
                {
                    "policy": document,
                    "principal": rng.choice(principals(rng, target["services"])),
                    "action": action,
                    "resource": rng.choice(target[kind]),
                    "account": OWNER,
                    "context": context(rng, service, action),
                }
            )
    return out[:count]
