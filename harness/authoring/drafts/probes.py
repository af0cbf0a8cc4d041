"""What a draft may require of a resource: for each kit Kind, the kit requirements a described resource fits.

A probe reads one described resource and proposes the kit calls that hold for it (`dynamodb.billing_mode(
"PAY_PER_REQUEST")`), references written as references (`awslambda.execution_role(role)`). Which of them the
draft keeps is decided elsewhere (drafting: what differs from a baseline); a Kind without a probe of its own
gets `require.attribute` on its plain attributes. Names and tags are never proposed: the learner chooses them.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.authoring.drafts.refs import IDENTIFYING, Code, Refs, literal
from harness.kit import net, policy
from harness.kit.require import Requirement


@dataclass(frozen=True)
class Candidate:
    """One kit call a module may write, and the requirements it builds (several when it is splatted)."""

    head: str  # `dynamodb.keys` (with a leading `*` when splatted)
    args: tuple[str, ...]
    requirements: tuple[Requirement, ...]
    modules: frozenset[str]
    refs: frozenset[str]
    values: frozenset[Any] = frozenset()  # the literal strings and numbers it is written with

    @property
    def text(self) -> str:
        """The call on one line."""
        return f"{self.head}({', '.join(self.args)})"

    def lines(self, indent: int, width: int = 116) -> list[str]:
        """The call as a list item at `indent`, one argument a line when one line would be too long."""
        pad = " " * indent
        if indent + len(self.text) < width:
            return [f"{pad}{self.text},"]
        return [f"{pad}{self.head}(", *(f"{pad}    {a}," for a in self.args), f"{pad}),"]

    def holds(self, resource: dict[str, Any]) -> bool:
        """Every requirement of the call passes on `resource` (a requirement that cannot read it does not)."""
        try:
            return all(r.evaluate(resource).ok for r in self.requirements)
        except Exception:  # a resource the requirement cannot read does not meet it
            return False


def call(
    module: str,
    function: str,
    *args: Code,
    splat: bool = False,
    keywords: Mapping[str, Code] | None = None,
    **named: Code,
) -> Candidate:
    """`module.function(args, kwargs)`: built here as the module will build it, and written as it will. `keywords`
    holds arguments whose names come from the resource (an environment's variables: one may be called `splat`)."""
    kwargs = {**(keywords or {}), **named}
    built = getattr(importlib.import_module(f"harness.kit.{module}"), function)(
        *(a.value for a in args), **{k: v.value for k, v in kwargs.items()}
    )
    shown = [a.text for a in args] + [f"{k}={v.text}" for k, v in kwargs.items()]
    helpers = {m for m in ("logs", "net") for t in shown if re.search(rf"(^|[\s(\[,*]){m}\.", t)}
    refs = frozenset().union(*(c.refs for c in [*args, *kwargs.values()]))
    requirements = tuple(built) if isinstance(built, list) else (built,)
    values = frozenset(v for c in [*args, *kwargs.values()] if not c.refs for v in _flat(c.value))
    head = f"{'*' if splat else ''}{module}.{function}"
    return Candidate(head, tuple(shown), requirements, frozenset({module, *helpers}), refs, values)


def _flat(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [v for member in value for v in _flat(member)]
    return [value] if isinstance(value, str | int) and not isinstance(value, bool) else []


def _code_list(items: list[Code]) -> Code:
    return Code(
        f"[{', '.join(i.text for i in items)}]", [i.value for i in items], frozenset().union(*(i.refs for i in items))
    )


Probe = Callable[[dict[str, Any], Refs], list[Candidate]]


# --- S3 ------------------------------------------------------------------------------------------------------


def _bucket(bucket: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [call("s3", "versioning_enabled"), call("s3", "public_policies_allowed")]
    algorithms = bucket.get("Encryption") or []
    return found + [call("s3", "encrypted", literal(a)) for a in algorithms[:1]]


def _bucket_policy(bucket_policy: dict[str, Any], refs: Refs) -> list[Candidate]:
    return [
        call("s3", "grants_public_read", refs.value(bucket_policy["Bucket"])),
        call("s3", "public_policies_allowed"),
    ]


# --- EC2 -----------------------------------------------------------------------------------------------------


def _zone_letter(resource: dict[str, Any]) -> list[Candidate]:
    zone = resource.get("AvailabilityZone")
    if not zone:
        return []
    letter = call("ec2", "zone", literal(zone[-1]))
    return [dataclasses.replace(letter, values=letter.values | {zone})]  # the solution chose the zone, not "a"


def _vpc(vpc: dict[str, Any], refs: Refs) -> list[Candidate]:
    return [
        call("ec2", "cidr", literal(vpc["CidrBlock"])),
        call("ec2", "dns_support", literal(bool(vpc.get("EnableDnsSupport")))),
        call("ec2", "dns_hostnames", literal(bool(vpc.get("EnableDnsHostnames")))),
    ]


def _subnet(subnet: dict[str, Any], refs: Refs) -> list[Candidate]:
    return [
        call("ec2", "in_vpc", refs.resource(subnet["VpcId"])),
        call("ec2", "cidr", literal(subnet["CidrBlock"])),
        *_zone_letter(subnet),
        call("ec2", "maps_public_ip", literal(bool(subnet.get("MapPublicIpOnLaunch")))),
    ]


def _internet_gateway(gateway: dict[str, Any], refs: Refs) -> list[Candidate]:
    return [call("ec2", "attached_to", refs.resource(a["VpcId"])) for a in gateway.get("Attachments", [])]


ROUTE_KEYS = ("GatewayId", "NatGatewayId", "TransitGatewayId", "VpcPeeringConnectionId", "NetworkInterfaceId")


def _route_table(table: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [call("ec2", "in_vpc", refs.resource(table["VpcId"]))]
    for route in table.get("Routes", []):
        key = next((k for k in ROUTE_KEYS if route.get(k) and route[k] != "local"), None)
        if key and route.get("DestinationCidrBlock"):
            target = refs.resource(route[key])
            held = literal(refs.key_of(target, route[key], key))
            found.append(call("ec2", "route_to", literal(route["DestinationCidrBlock"]), target, key=held))
    subnets = [refs.resource(a["SubnetId"]) for a in table.get("Associations", []) if a.get("SubnetId")]
    if subnets:
        found.append(call("ec2", "associated_with", _code_list(subnets)))
    found.append(call("ec2", "no_internet_gateway_route"))
    return found


def _rule(rule: net.Rule, refs: Refs) -> Code:
    source = literal(rule.source)
    if rule.source == net.WORLD_V4:
        source = Code("net.WORLD_V4", rule.source)
    elif rule.source.startswith("sg:"):
        group = refs.resource(rule.source.removeprefix("sg:"))
        if group.refs:
            variable = next(iter(group.refs))
            held = f"({variable} or {{}}).get('GroupId')" if variable in refs.optional else f"{variable}['GroupId']"
            source = Code(f'f"sg:{{{held}}}"', rule.source, group.refs)
    if rule.protocol == "tcp" and rule.from_port is not None and rule.from_port == rule.to_port:
        return Code(f"net.tcp({rule.from_port}, {source.text})", rule, source.refs)
    shown = f"net.Rule({literal(rule.protocol).text}, {rule.from_port!r}, {rule.to_port!r}, {source.text})"
    return Code(shown, rule, source.refs)


def _security_group(group: dict[str, Any], refs: Refs) -> list[Candidate]:
    rules = [_rule(r, refs) for r in sorted(net.rules(group.get("IpPermissions", [])))]
    return [call("ec2", "in_vpc", refs.resource(group["VpcId"])), call("ec2", "ingress_exactly", *rules)]


def _nat_gateway(nat: dict[str, Any], refs: Refs) -> list[Candidate]:
    allocations = [refs.value(a["AllocationId"]) for a in nat.get("NatGatewayAddresses", []) if a.get("AllocationId")]
    return [
        call("ec2", "nat_in_subnet", refs.resource(nat["SubnetId"])),
        call("ec2", "nat_uses_allocation", _code_list(allocations)),
        call("ec2", "nat_available"),
    ]


# --- ELBv2 ---------------------------------------------------------------------------------------------------


def _load_balancer(lb: dict[str, Any], refs: Refs) -> list[Candidate]:
    subnets = [refs.resource(z["SubnetId"]) for z in lb.get("AvailabilityZones", []) if z.get("SubnetId")]
    return [
        call("elbv2", "lb_type", literal(lb.get("Type"))),
        call("elbv2", "scheme", literal(lb.get("Scheme"))),
        call("elbv2", "in_subnets_exactly", _code_list(subnets)),
        *[call("elbv2", "with_security_group", refs.resource(g)) for g in lb.get("SecurityGroups", [])],
    ]


def _target_group(group: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [
        call("elbv2", "protocol", literal(group.get("Protocol"))),
        call("elbv2", "port", literal(group.get("Port"))),
    ]
    return found + ([call("ec2", "in_vpc", refs.value(group["VpcId"]))] if group.get("VpcId") else [])


def _listener(listener: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [
        call("elbv2", "on_load_balancer", refs.resource(listener["LoadBalancerArn"])),
        call("elbv2", "protocol", literal(listener.get("Protocol"))),
        call("elbv2", "port", literal(listener.get("Port"))),
    ]
    for action in listener.get("DefaultActions", []):
        if action.get("TargetGroupArn"):
            found.append(call("elbv2", "forwards_to", refs.resource(action["TargetGroupArn"])))
    return found


# --- DynamoDB, IAM, Lambda, Logs, API Gateway, CloudWatch, SQS -------------------------------------------------


def _table(table: dict[str, Any], refs: Refs) -> list[Candidate]:
    types = {d["AttributeName"]: d["AttributeType"] for d in table.get("AttributeDefinitions", [])}
    schema = sorted(table.get("KeySchema", []), key=lambda k: k["KeyType"] != "HASH")
    keys = [literal((k["AttributeName"], types.get(k["AttributeName"], "S"))) for k in schema]
    found = [
        call("dynamodb", "keys", *keys),
        call(
            "dynamodb",
            "billing_mode",
            literal((table.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")),
        ),
        call("dynamodb", "point_in_time_recovery", literal(table.get("PointInTimeRecovery") == "ENABLED")),
        call("dynamodb", "encrypted_with_kms"),
    ]
    ttl = table.get("TimeToLive") or {}
    if ttl.get("AttributeName"):
        found.append(call("dynamodb", "ttl", literal(ttl["AttributeName"])))
    stream = table.get("StreamSpecification") or {}
    if stream.get("StreamEnabled"):
        found.append(call("dynamodb", "stream", literal(stream.get("StreamViewType"))))
    for index in table.get("GlobalSecondaryIndexes", []):
        parts = sorted(index["KeySchema"], key=lambda k: k["KeyType"] != "HASH")
        index_keys = [literal((k["AttributeName"], types.get(k["AttributeName"], "S"))) for k in parts]
        projection = literal(index.get("Projection", {}).get("ProjectionType"))
        found.append(call("dynamodb", "global_index", literal(index["IndexName"]), *index_keys, projection=projection))
    return found


def _trusted(role: dict[str, Any]) -> list[str]:
    document = role.get("AssumeRolePolicyDocument")
    statements = (json.loads(document) if isinstance(document, str) else document or {}).get("Statement", [])
    found = []
    for statement in statements if isinstance(statements, list) else [statements]:
        principal = statement.get("Principal", {})
        for value in principal.values() if isinstance(principal, dict) else [principal]:
            found += value if isinstance(value, list) else [value]
    return found


def _grants(role: dict[str, Any], refs: Refs) -> list[Code]:
    grants = []
    for _, document in role.get("Policies", []):
        parsed = policy.parse_policy(document, kind="identity")
        for statement in parsed.statements:
            if statement.effect != "Allow" or statement.not_action or statement.not_resource:
                continue
            resources = [refs.value(r) for r in statement.resources]
            actions = literal(sorted(statement.actions, key=str.lower))
            code = _code_list(resources)
            grants.append(Code(f"iam.grant({actions.text}, {code.text})", (actions.value, code.value), code.refs))
    return grants


def _role(role: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [call("iam", "trusted_only_by", *[literal(p) for p in _trusted(role)])]
    grants = _grants(role, refs)
    if grants:
        built = [Code(g.text, importlib.import_module("harness.kit.iam").grant(*g.value), g.refs) for g in grants]
        exact = call("iam", "may_exactly", *built)
        written = _streams_variant(exact, built, refs)
        found.append(written if written.holds(role) else exact)
    for attached in role.get("AttachedPolicies", []):
        found.append(call("iam", "has_managed_policy", literal(attached["PolicyName"])))
    return found


def _streams_variant(candidate: Candidate, grants: list[Code], refs: Refs) -> Candidate:
    """The same grants with a literal log-group ARN written as the kit's `logs.streams_arn(function)`, which
    judges the same permissions (the draft keeps whichever holds)."""
    helpers = {text: held for variable in refs.described for text, held in refs.helpers(variable).items()}
    streams = {text: held for text, held in helpers.items() if text.startswith("logs.streams_arn")}
    if not streams:
        return candidate
    text, held = next(iter(streams.items()))
    iam = importlib.import_module("harness.kit.iam")
    rewritten = []
    for grant in grants:
        if ":log-group:" in grant.text and grant.text.count('"arn:') == 1:
            actions = list(grant.value.actions)
            rewritten.append(
                Code(
                    f"iam.grant({literal(actions).text}, [{text}])",
                    iam.grant(actions, [held]),
                    grant.refs | {text.split("(")[1].rstrip(")")},
                )
            )
        else:
            rewritten.append(grant)
    return call("iam", "may_exactly", *rewritten)


def _function(function: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [
        call("awslambda", "runtime", literal(function.get("Runtime"))),
        call("awslambda", "handler", literal(function.get("Handler"))),
        call("awslambda", "memory", literal(function.get("MemorySize"))),
        call("awslambda", "timeout", literal(function.get("Timeout"))),
        call("awslambda", "architecture", literal(", ".join(function.get("Architectures") or ["x86_64"]))),
        call("awslambda", "execution_role", refs.resource(function.get("Role"))),
    ]
    variables = (function.get("Environment") or {}).get("Variables") or {}
    if variables and all(k.isidentifier() for k in variables):
        found.append(call("awslambda", "environment", keywords={k: refs.value(v) for k, v in variables.items()}))
    for statement in json.loads(function.get("Policy") or "{}").get("Statement", []):
        principal = (statement.get("Principal") or {}).get("Service")
        if isinstance(principal, str):
            found.append(call("awslambda", "invokable_by", literal(principal)))
    return found


def _log_group(group: dict[str, Any], refs: Refs) -> list[Candidate]:
    name = refs.value(group.get("logGroupName"))
    found = [call("logs", "named", name)] if name.refs else []  # a name of the learner's choosing is theirs
    return [*found, call("logs", "retention", literal(group.get("retentionInDays")))]


def _http_api(api: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [call("apigateway", "protocol", literal(api.get("ProtocolType")))]
    integrations = {i.get("IntegrationId"): i for i in api.get("Integrations", [])}
    routes = sorted(r["RouteKey"] for r in api.get("Routes", []))
    for route in sorted(api.get("Routes", []), key=lambda r: r["RouteKey"]):
        integration = integrations.get((route.get("Target") or "").removeprefix("integrations/"), {})
        if integration.get("IntegrationType") == "AWS_PROXY":
            target = refs.resource(integration.get("IntegrationUri"))
            found.append(call("apigateway", "route_to_function", literal(route["RouteKey"]), target))
    if routes:
        found.append(call("apigateway", "routes_exactly", *[literal(r) for r in routes]))
    for stage in api.get("Stages", []):
        auto = literal(bool(stage.get("AutoDeploy")))
        found.append(call("apigateway", "stage", literal(stage["StageName"]), auto_deploy=auto))
    return found


def _alarm(alarm: dict[str, Any], refs: Refs) -> list[Candidate]:
    dimensions = {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])}
    function = refs.resource(dimensions.get("FunctionName"))
    if alarm.get("Namespace") == "AWS/Lambda" and function.refs and len(dimensions) == 1:
        found = [call("cloudwatch", "watches_function", function, literal(alarm.get("MetricName")), splat=True)]
    else:
        found = [call("cloudwatch", "metric", literal(alarm.get("Namespace")), literal(alarm.get("MetricName")))]
        found += [call("cloudwatch", "dimension", literal(k), refs.value(v)) for k, v in dimensions.items()]
    found += [
        call("cloudwatch", "statistic", literal(alarm.get("Statistic"))),
        call("cloudwatch", "period", literal(alarm.get("Period"))),
        call("cloudwatch", "evaluation_periods", literal(alarm.get("EvaluationPeriods"))),
        call("cloudwatch", "threshold", literal(alarm.get("Threshold")), literal(alarm.get("ComparisonOperator"))),
        call("cloudwatch", "actions_enabled", literal(bool(alarm.get("ActionsEnabled")))),
    ]
    return found + [call("cloudwatch", "notifies", refs.resource(a)) for a in alarm.get("AlarmActions", [])]


def _queue(queue: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [
        call("sqs", f, literal(int(queue[key])))
        for f, key in (
            ("visibility_timeout", "VisibilityTimeout"),
            ("retention", "MessageRetentionPeriod"),
            ("delay", "DelaySeconds"),
        )
        if key in queue
    ]
    found += [call("sqs", "fifo", literal(queue.get("FifoQueue") == "true")), call("sqs", "encrypted")]
    redrive = json.loads(queue.get("RedrivePolicy") or "{}")
    if redrive.get("deadLetterTargetArn"):
        receives = literal(int(redrive.get("maxReceiveCount", 0)) or None)
        found.append(call("sqs", "dead_letter_queue", refs.resource(redrive["deadLetterTargetArn"]), receives))
    return found


def _referred(refs: Refs, value: str, default_key: str) -> tuple[Code, Code]:
    """A resource argument and the `key=` under which the referred resource holds `value`."""
    target = refs.resource(value)
    return target, literal(refs.key_of(target, value, default_key))


def _topic(topic: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [call("sns", "encrypted")] if topic.get("KmsMasterKeyId") else []
    for subscription in topic.get("Subscriptions", []):
        target, key = _referred(refs, subscription["Endpoint"], "QueueArn")
        found.append(call("sns", "subscribed", literal(subscription["Protocol"]), target, key=key))
    return found


def _subscription(subscription: dict[str, Any], refs: Refs) -> list[Candidate]:
    target, key = _referred(refs, subscription.get("Endpoint", ""), "QueueArn")
    found = [
        call("sns", "protocol", literal(subscription.get("Protocol"))),
        call("sns", "endpoint", target, key=key),
        call("sns", "on_topic", refs.resource(subscription.get("TopicArn"))),
        call("sns", "raw_delivery", literal(subscription.get("RawMessageDelivery") == "true")),
    ]
    if subscription.get("FilterPolicy"):
        found.append(call("sns", "filter_policy", literal(json.loads(subscription["FilterPolicy"]))))
    return found


def _event_rule(rule: dict[str, Any], refs: Refs) -> list[Candidate]:
    found = [call("events", "enabled", literal(rule.get("State") == "ENABLED"))]
    if rule.get("ScheduleExpression"):
        found.append(call("events", "schedule", literal(rule["ScheduleExpression"])))
    if rule.get("EventPattern"):
        found.append(call("events", "event_pattern", literal(json.loads(rule["EventPattern"]))))
    for target in rule.get("Targets", []):
        code, key = _referred(refs, target["Arn"], "Arn")
        found.append(call("events", "targets", code, key=key))
    return found


def _event_source_mapping(mapping: dict[str, Any], refs: Refs) -> list[Candidate]:
    source, key = _referred(refs, mapping.get("EventSourceArn", ""), "Arn")
    return [
        call("awslambda", "source", source, key=key),
        call("awslambda", "for_function", refs.resource(mapping.get("FunctionArn"))),
        call("awslambda", "batch_size", literal(mapping.get("BatchSize"))),
        call("awslambda", "mapping_enabled"),
    ]


PROBES: dict[str, Probe] = {
    "AWS::S3::Bucket": _bucket,
    "AWS::S3::BucketPolicy": _bucket_policy,
    "AWS::EC2::VPC": _vpc,
    "AWS::EC2::Subnet": _subnet,
    "AWS::EC2::InternetGateway": _internet_gateway,
    "AWS::EC2::RouteTable": _route_table,
    "AWS::EC2::SecurityGroup": _security_group,
    "AWS::EC2::NatGateway": _nat_gateway,
    "AWS::ElasticLoadBalancingV2::LoadBalancer": _load_balancer,
    "AWS::ElasticLoadBalancingV2::TargetGroup": _target_group,
    "AWS::ElasticLoadBalancingV2::Listener": _listener,
    "AWS::DynamoDB::Table": _table,
    "AWS::IAM::Role": _role,
    "AWS::Lambda::Function": _function,
    "AWS::Logs::LogGroup": _log_group,
    "AWS::ApiGatewayV2::Api": _http_api,
    "AWS::CloudWatch::Alarm": _alarm,
    "AWS::SQS::Queue": _queue,
    "AWS::SNS::Topic": _topic,
    "AWS::SNS::Subscription": _subscription,
    "AWS::Events::Rule": _event_rule,
    "AWS::Lambda::EventSourceMapping": _event_source_mapping,
}


def _attributes(resource: dict[str, Any], refs: Refs) -> list[Candidate]:
    """A kind without a probe of its own: `require.attribute` on each plain top-level attribute (ids, ARNs, names
    and times aside), a reference where the value is another resource's id."""
    found = []
    for key, value in resource.items():
        if not isinstance(value, str | int | bool) or "Date" in key or "Time" in key:
            continue
        code = refs.value(value)
        if not key.endswith(IDENTIFYING) or code.refs:  # an id or ARN only as another resource's
            found.append(call("require", "attribute", literal(key), literal(key), code))
    return found


def candidates(resource_type: str, resource: dict[str, Any], refs: Refs) -> list[Candidate]:
    """The kit calls that hold for `resource` (of `resource_type`), in the probe's order."""
    probe = PROBES.get(resource_type, _attributes)
    found: list[Candidate] = []
    for candidate in probe(resource, refs):
        if candidate.holds(resource) and candidate.text not in {c.text for c in found}:
            found.append(candidate)
    return found
