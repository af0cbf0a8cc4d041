"""Record the resources a boto3 Session creates as platform-style events `{type, id}`.

The platform reports a learner's resources to a step as CloudFormation type names and physical ids; the
recorder produces the same from the calls a scenario makes, so a playthrough hands an evaluator what the
platform would. Only successful calls count, and each resource is recorded once.

Which call creates which type, and what its id is, comes from the CloudFormation schemas (harness.core.cfn_types):
`CreateQueue` makes an `AWS::SQS::Queue` whose id is its primary identifier `QueueUrl`, read from the response
or the request (several properties are joined with "|", as Cloud Control writes them). `RULES` override that
where the schemas' names and the API's differ (S3's `Bucket`, an EIP's `AllocationId`); `ALSO` names the resources
a call makes besides its own (the stage `CreateDeployment(stageName=...)` makes, the records one
`ChangeResourceRecordSets` creates, the association `AssociateRouteTable` makes). An id that carries the
emulator's address (an SQS queue URL) is written as AWS would write it, so two emulators give equal ids. A
resource created in another region than the session's carries `region`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import boto3

from harness.core import cfn_types

IdGetter = Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]
PARAMS_KEY = "stepeval_recorder_params"


def from_params(name: str) -> IdGetter:
    """The id is the request parameter `name` (e.g. a bucket name the caller chose)."""
    return lambda params, _parsed: params.get(name)


def from_response(*path: str | int) -> IdGetter:
    """The id is found in the parsed response at `path` (keys and list indices)."""

    def get(_params: Mapping[str, Any], parsed: Mapping[str, Any]) -> str | None:
        value: Any = parsed
        for part in path:
            try:
                value = value[part]
            except (KeyError, IndexError, TypeError):
                return None
        return value if isinstance(value, str) else None

    return get


@dataclass(frozen=True)
class EventRule:
    """How one creating operation becomes an event: the resource type and where its id comes from."""

    type: str
    id_of: IdGetter


ELBV2 = "AWS::ElasticLoadBalancingV2"

# (botocore service name, operation) -> rule
RULES: dict[tuple[str, str], EventRule] = {
    ("s3", "CreateBucket"): EventRule("AWS::S3::Bucket", from_params("Bucket")),
    ("s3", "PutBucketPolicy"): EventRule("AWS::S3::BucketPolicy", from_params("Bucket")),
    ("ec2", "CreateVpc"): EventRule("AWS::EC2::VPC", from_response("Vpc", "VpcId")),
    ("ec2", "CreateSubnet"): EventRule("AWS::EC2::Subnet", from_response("Subnet", "SubnetId")),
    ("ec2", "CreateInternetGateway"): EventRule(
        "AWS::EC2::InternetGateway", from_response("InternetGateway", "InternetGatewayId")
    ),
    ("ec2", "CreateRouteTable"): EventRule("AWS::EC2::RouteTable", from_response("RouteTable", "RouteTableId")),
    ("ec2", "CreateSecurityGroup"): EventRule("AWS::EC2::SecurityGroup", from_response("GroupId")),
    ("ec2", "AllocateAddress"): EventRule("AWS::EC2::EIP", from_response("AllocationId")),
    ("ec2", "CreateNatGateway"): EventRule("AWS::EC2::NatGateway", from_response("NatGateway", "NatGatewayId")),
    ("elbv2", "CreateLoadBalancer"): EventRule(
        f"{ELBV2}::LoadBalancer", from_response("LoadBalancers", 0, "LoadBalancerArn")
    ),
    ("elbv2", "CreateTargetGroup"): EventRule(
        f"{ELBV2}::TargetGroup", from_response("TargetGroups", 0, "TargetGroupArn")
    ),
    ("elbv2", "CreateListener"): EventRule(f"{ELBV2}::Listener", from_response("Listeners", 0, "ListenerArn")),
    # where the schema's identifier is not a key the API uses
    ("iam", "CreatePolicy"): EventRule("AWS::IAM::ManagedPolicy", from_response("Policy", "Arn")),
    ("sns", "Subscribe"): EventRule("AWS::SNS::Subscription", from_response("SubscriptionArn")),
    ("lambda", "CreateEventSourceMapping"): EventRule("AWS::Lambda::EventSourceMapping", from_response("UUID")),
    ("secretsmanager", "CreateSecret"): EventRule("AWS::SecretsManager::Secret", from_response("ARN")),
    ("cloudtrail", "CreateTrail"): EventRule("AWS::CloudTrail::Trail", from_response("Name")),
    ("ecs", "CreateService"): EventRule(
        "AWS::ECS::Service", from_response("service", "serviceArn")
    ),  # names its cluster
    ("route53", "CreateHostedZone"): EventRule(
        "AWS::Route53::HostedZone",
        lambda params, parsed: (from_response("HostedZone", "Id")(params, parsed) or "").removeprefix("/hostedzone/"),
    ),
}


def joined(*getters: IdGetter) -> IdGetter:
    """The id is several parts joined with "|" (as Cloud Control writes a compound primary identifier)."""

    def get(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> str | None:
        parts = [getter(params, parsed) for getter in getters]
        return "|".join(str(p) for p in parts) if all(parts) else None

    return get


def _created_records(params: Mapping[str, Any], _parsed: Mapping[str, Any]) -> list[str]:
    """`NAME|ZONE|TYPE[|SET]` of each record a change batch CREATEs or UPSERTs, the name without its final dot."""
    zone = str(params.get("HostedZoneId") or "").removeprefix("/hostedzone/")
    made = []
    for change in (params.get("ChangeBatch") or {}).get("Changes") or ():
        record = change.get("ResourceRecordSet") or {}
        if change.get("Action") in ("CREATE", "UPSERT") and record.get("Name") and record.get("Type"):
            parts = [str(record["Name"]).rstrip("."), zone, str(record["Type"])]
            made.append("|".join([*parts, record["SetIdentifier"]] if record.get("SetIdentifier") else parts))
    return made


@dataclass(frozen=True)
class ManyRule:
    """How one call makes several resources of one type: `ids_of(params, parsed)` lists their ids."""

    type: str
    ids_of: Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]


ALSO: dict[tuple[str, str], tuple[EventRule | ManyRule, ...]] = {
    ("apigateway", "CreateDeployment"): (
        EventRule("AWS::ApiGateway::Stage", joined(from_params("restApiId"), from_params("stageName"))),
    ),
    ("route53", "ChangeResourceRecordSets"): (ManyRule("AWS::Route53::RecordSet", _created_records),),
    ("ec2", "AssociateRouteTable"): (
        EventRule("AWS::EC2::SubnetRouteTableAssociation", from_response("AssociationId")),
    ),
}
"""(botocore service name, operation) -> the resources a call makes besides the one its name says (if any)."""


class EventRecorder:
    """Watches every client made from `session` after this is built; `events` lists what was created.

    Attach it before making clients: botocore copies a session's handlers into each client as it is built.
    Recording starts at once; `start()` clears and records again, `stop()` pauses.
    """

    def __init__(self, session: boto3.Session) -> None:
        self._events: list[dict[str, str]] = []
        self._seen: set[tuple[str, str]] = set()
        self._recording = True
        self._lock = threading.Lock()
        self._region = session.region_name
        session.events.register("before-parameter-build", self._remember_params)
        session.events.register("after-call", self._record)

    @property
    def events(self) -> list[dict[str, str]]:
        """The resources created since the last `start()`, in creation order, each once."""
        with self._lock:
            return [dict(event) for event in self._events]

    def start(self) -> None:
        """Forget what was recorded and record from now on."""
        with self._lock:
            self._events.clear()
            self._seen.clear()
            self._recording = True

    def stop(self) -> None:
        """Stop recording; what was recorded stays."""
        with self._lock:
            self._recording = False

    def _remember_params(self, params: Mapping[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if rule_for(model) is not None or _key(model) in ALSO:
            context[PARAMS_KEY] = dict(params)

    def _record(
        self, http_response: Any, parsed: Mapping[str, Any], model: Any, context: Mapping[str, Any], **_: Any
    ) -> None:
        if http_response.status_code >= 300:
            return
        region = context.get("client_region") or self._region
        for event in events_for(model, context.get(PARAMS_KEY, {}), parsed, region):
            if region and region != self._region:
                event["region"] = region
            with self._lock:
                if self._recording and (event["type"], event["id"]) not in self._seen:
                    self._seen.add((event["type"], event["id"]))
                    self._events.append(event)


def event_for(model: Any, params: Mapping[str, Any], parsed: Mapping[str, Any], region: str | None) -> dict | None:
    """The event `{type, id}` of the resource a successful call of `model` is named for, or None when it creates
    nothing known (`events_for` also lists what else the call makes)."""
    rule = rule_for(model)
    resource_id = rule.id_of(params, parsed) if rule is not None else None
    if rule is None or not resource_id:
        return None
    return {"type": rule.type, "id": aws_form(resource_id, model.service_model.endpoint_prefix, region)}


def events_for(model: Any, params: Mapping[str, Any], parsed: Mapping[str, Any], region: str | None) -> list[dict]:
    """Every event a successful call of `model` makes: its own resource's (`event_for`), then those in `ALSO`."""
    made = [event] if (event := event_for(model, params, parsed, region)) is not None else []
    prefix = model.service_model.endpoint_prefix
    for rule in ALSO.get(_key(model), ()):
        ids = rule.ids_of(params, parsed) if isinstance(rule, ManyRule) else [rule.id_of(params, parsed)]
        made += [{"type": rule.type, "id": aws_form(i, prefix, region)} for i in ids if i]
    return made


def _key(model: Any) -> tuple[str, str]:
    return model.service_model.service_name, model.name


def aws_form(resource_id: str, endpoint_prefix: str, region: str | None) -> str:
    """An id as AWS writes it: a URL on an emulator (`http://127.0.0.1:5000/123456789012/q`) gets the service's
    own endpoint (`https://sqs.us-east-1.amazonaws.com/123456789012/q`); any other id is left alone."""
    if not resource_id.startswith(("http://", "https://")):
        return resource_id
    parts = urlsplit(resource_id)
    if (parts.hostname or "").endswith(".amazonaws.com"):
        return resource_id
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return f"https://{endpoint_prefix}.{region or 'us-east-1'}.amazonaws.com{path}"


def rule_for(model: Any) -> EventRule | None:
    """The rule for a botocore operation model: RULES first, else what the CloudFormation schemas say (cached)."""
    key = _key(model)
    if key in RULES:
        return RULES[key]
    if key not in _SCHEMA_RULES:
        _SCHEMA_RULES[key] = _schema_rule(model.service_model, model.name)
    return _SCHEMA_RULES[key]


_SCHEMA_RULES: dict[tuple[str, str], EventRule | None] = {}
"""(service, operation) -> the rule the schemas give, asked once per operation."""


def _schema_rule(service_model: Any, operation: str) -> EventRule | None:
    """The rule the CloudFormation schemas give for an operation of a botocore service model, or None."""
    signing = service_model.metadata.get("signingName", service_model.endpoint_prefix)
    prefixes = frozenset({service_model.service_name, service_model.endpoint_prefix, signing})
    names = prefixes | {service_model.service_id.hyphenize()}
    created = cfn_types.created_by(names, prefixes, operation)
    if created is None:  # `cognito-idp` makes `AWS::Cognito::*` types: try each name's family (its first part)
        families = frozenset(name.split("-")[0] for name in names) - names
        created = cfn_types.created_by(families, prefixes, operation) if families else None
    if created is None:
        return None
    return EventRule(created.type, from_identifier(created.type.split("::")[2], created.primary_identifier))


def from_identifier(resource_name: str, properties: tuple[str, ...]) -> IdGetter:
    """The id is the primary identifier's properties, each found by name (any case) in the response, else in the
    request; several are joined with "|". A generic `Id`/`Arn` is also looked for as `<Resource>Id`/`<Resource>Arn`,
    and the resource's own `<Resource>Id` as the response's `Id`/`id` (API Gateway answers `CreateRestApi` with `id`);
    a generic one missing from both is the response's only `...Id`/`...Arn` (`PutScalingPolicy`'s `PolicyARN`).
    """

    def get(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> str | None:
        values = []
        for prop in properties:
            names = {prop.lower()} | ({f"{resource_name}{prop}".lower()} if prop in ("Id", "Arn") else set())
            own = prop.lower() == f"{resource_name}id".lower()
            value = (
                _find_key(parsed, names)
                or (_find_key(parsed, {"id"}) if own else None)
                or _find_key(params, names)
                or (_only_ending(parsed, prop.lower()) if prop in ("Id", "Arn") else None)
            )
            if value is None:
                return None
            values.append(value)
        return "|".join(values)

    return get


def _only_ending(data: Mapping[str, Any], suffix: str) -> str | None:
    """The one string at the top of a response whose key ends with `suffix` (any case: `PolicyARN` for `arn`),
    else None (none, or several to choose from)."""
    found = [v for k, v in data.items() if k.lower().endswith(suffix) and isinstance(v, str) and v]
    return found[0] if len(found) == 1 else None


def _find_key(data: Any, names: set[str]) -> str | None:
    """The string under a key in `names` (lower-cased), nearest the top first (breadth-first)."""
    level = [data]
    while level:
        deeper = []
        for node in level:
            items = node.items() if isinstance(node, Mapping) else enumerate(node) if isinstance(node, list) else ()
            for key, value in items:
                if isinstance(key, str) and key.lower() in names and isinstance(value, str) and value:
                    return value
                if isinstance(value, Mapping | list):
                    deeper.append(value)
        level = deeper
    return None
