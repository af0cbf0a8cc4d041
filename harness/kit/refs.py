"""References judged by what they name, not by how they are spelled.

A KMS key may be named by its id, its ARN, an alias or an alias ARN; a role by its name or ARN; a queue by its
URL or ARN; a task definition by `family`, `family:revision` or ARN. Every kit requirement that compares a
reference with a resource reads both sides as an `Identity` first (`Resolver.same`), in the `Space` of that
type of reference. Spelling alone settles most of it (an ARN names its type, region and account): the spaces
here read spellings only. What spelling cannot tell (an alias's key, a family's latest ACTIVE revision, a tag's
digest, a launch template's id) the service module asks its own service, in a space of its own
(`kms.KEY_REFERENCE`, `ecs.TASK_DEFINITION_REFERENCE`, `ecs.IMAGE_REFERENCE`, `compute.LAUNCH_TEMPLATE_REFERENCE`),
once per evaluation: `Step` opens a `Resolver` on the learner's session (`resolving`).

Outside a step (a requirement evaluated by hand) the resolver has no session: it reads spellings only.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from botocore.exceptions import ClientError

from harness.kit.aws import error_code, is_not_found
from harness.kit.kinds import in_region
from harness.kit.require import Requirement, require

GLOBAL_SERVICES = frozenset({"iam", "s3", "cloudfront", "route53"})
"""Services whose resources have no region (their ARNs leave it empty)."""


@dataclass(frozen=True)
class Identity:
    """What a reference names: a type (`service:resource-type`, as in ARNs), the name or id that is unique in an
    account and region, and where. `version` is a task definition's revision, a function's qualifier, an
    image's digest (or `tag:T` when the digest cannot be known), a target group's or load balancer's ARN suffix.
    """

    type: str
    name: str
    region: str | None = None
    account: str | None = None
    version: str | None = None

    def same(self, other: Identity) -> bool:
        """Whether both name one resource: the same type and name, and the same region, account and version
        wherever both say which. A bare name of unknown type (`ANY`) is compared by name alone."""
        return (
            (self.type == other.type or "?" in (self.type, other.type))
            and self.name == other.name
            and _agree(self.region, other.region)
            and _agree(self.account, other.account)
            and _agree(self.version, other.version)
        )


def _agree(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


# --- spellings --------------------------------------------------------------------------------------------------

_ARN = re.compile(r"arn:(?P<partition>[^:]+):(?P<service>[^:]+):(?P<region>[^:]*):(?P<account>[^:]*):(?P<resource>.+)")
_QUEUE_URL = re.compile(
    r"https?://(?:sqs\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(?:\.cn)?|(?P<legacy>[a-z0-9-]+\.)?queue\.amazonaws\.com"
    r"|[^/]+)/(?P<account>\d{12})/(?P<name>[^/?#]+)/?"
)
_ECR_HOST = re.compile(r"(?P<account>\d{12})\.dkr\.ecr(?:-fips)?\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(?:\.cn)?")
_EC2_PREFIXES = {
    "subnet": "subnet",
    "sg": "security-group",
    "vpc": "vpc",
    "igw": "internet-gateway",
    "nat": "natgateway",
    "rtb": "route-table",
    "eipalloc": "elastic-ip",
    "i": "instance",
    "vol": "volume",
    "lt": "launch-template",
    "ami": "image",
}
ArnPart = tuple[str, str, str | None]
"""(resource type, name, version) of an ARN's resource part."""

ArnReader = Callable[[str], ArnPart | None]
"""Reads the resource part of one service's ARNs (`function:NAME:QUALIFIER`); None leaves it to the common reading
(`TYPE/NAME` or `TYPE:NAME`)."""

ARN_READERS: dict[str, ArnReader] = {}
"""An ARN's service name -> how that service writes its ARNs' resource part, filled by each kit service module
(`reads_arns`), so a service's ARN knowledge lives beside its Kinds; a module is imported when an ARN of its service
is first read (`catalog.module_of_service`)."""

CASELESS: set[str] = set()
"""Services whose names are case-insensitive (IAM names; RDS identifiers, which it stores in lower case)."""


def reads_arns(service: str, reader: ArnReader | None = None, *, caseless: bool = False) -> None:
    """Declare how `service` (as its ARNs name it: `lambda`, `elasticloadbalancing`) writes its ARNs' resource part,
    and whether its names ignore case. A kit service module calls it once, at import."""
    if reader is not None:
        held = ARN_READERS.setdefault(service, reader)
        if held is not reader:
            raise ValueError(f"{service} ARNs already have a reader ({held.__qualname__})")
    if caseless:
        CASELESS.add(service)


def arn_identity(arn: str) -> Identity | None:
    """The identity an ARN spells, for the kit's services (any other service: its first resource segment is the
    type); None when `arn` is not an ARN."""
    match = _ARN.fullmatch(arn)
    if match is None:
        return None
    service, resource = match["service"], match["resource"]
    _reader_loaded(service)
    kind, name, version = _resource_part(service, resource)
    if service in CASELESS:
        name = name.lower()
    return Identity(f"{service}:{kind}", name, match["region"] or None, match["account"] or None, version)


@cache
def _reader_loaded(service: str) -> None:
    """Import the kit module of the service an ARN names, once, so it has declared its ARNs (`reads_arns`); the
    other modules stay unimported."""
    from harness.kit import catalog

    module = catalog.module_of_service(service)
    if module is not None:
        importlib.import_module(f"harness.kit.{module}")


def _resource_part(service: str, resource: str) -> ArnPart:
    """(resource type, name, version) of an ARN's resource part: as the service's reader says, else `TYPE/NAME`."""
    reader = ARN_READERS.get(service)
    read = reader(resource) if reader is not None else None
    if read is not None:
        return read
    kind, _, rest = split_resource(resource)
    return kind, rest, None


def split_resource(resource: str) -> tuple[str, str, str]:
    """An ARN's resource part `type/rest` or `type:rest` (whichever separator comes first) as (type, separator,
    rest); (resource, "", "") when it has neither."""
    match = re.match(r"([^:/]+)([:/])(.*)", resource, re.DOTALL)
    return (match[1], match[2], match[3]) if match else (resource, "", "")


def queue_identity(url: str) -> Identity | None:
    """The queue a queue URL names (`https://sqs.REGION.amazonaws.com/ACCOUNT/NAME`, the legacy
    `https://queue.amazonaws.com/...` of us-east-1, or an emulator's `http://HOST:PORT/ACCOUNT/NAME`)."""
    match = _QUEUE_URL.fullmatch(url)
    if match is None:
        return None
    region = match["region"] or (match["legacy"].rstrip(".") if match["legacy"] else None)
    if region is None and "queue.amazonaws.com" in url:
        region = "us-east-1"
    return Identity("sqs:queue", match["name"], region, match["account"])


# --- spaces -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Space:
    """One type of reference: its ARN type, the keys under which a described resource holds its reference (best
    first), how a bare name or id reads, and what AWS must complete (`resolve`, at most once per evaluation)."""

    type: str
    noun: str
    keys: tuple[str, ...]
    bare: Callable[[str], Identity | None]
    resolve: Callable[[Any, Identity, str], Identity] | None = None
    """(session in the identity's region, identity, the reference as spelled) -> the identity completed (NotFound
    leaves it as it was)."""
    described: Callable[[Mapping[str, Any]], Identity | None] | None = None
    """What a described resource names, where that is more than its reference's text (a repository: any image)."""
    also: tuple[str, ...] = ()
    """Keys under which a described resource lists other spellings of its reference (a key's `Aliases`): a miss
    shows the expected reference the way the learner spelt theirs."""

    @property
    def regional(self) -> bool:
        return self.type.split(":")[0] not in GLOBAL_SERVICES

    def spelled(self, reference: Any) -> str | None:
        """The reference as text: a string as given, a described resource's reference under `keys`."""
        if reference is None or isinstance(reference, str):
            return reference
        if isinstance(reference, Identity):
            return reference.name
        if isinstance(reference, Mapping):
            return next((str(reference[k]) for k in self.keys if reference.get(k)), None)
        return str(reference)

    def forms(self, reference: Any) -> list[str]:
        """Every spelling of `reference` known without asking AWS: a string itself, a described resource's
        reference under each of `keys` and `also`."""
        if not isinstance(reference, Mapping):
            text = self.spelled(reference)
            return [text] if text else []
        found = [str(reference[k]) for k in self.keys if reference.get(k)]
        for key in self.also:
            found += [str(v) for v in reference.get(key) or ()]
        return found

    def read(self, text: str) -> Identity | None:
        """The identity the text spells (an ARN, a queue URL, or a bare name or id), without asking AWS."""
        text = text.strip()
        return arn_identity(text) or queue_identity(text) or self.bare(text)


def _named(type_: str, *, caseless: bool = False) -> Callable[[str], Identity]:
    return lambda text: Identity(type_, text.lower() if caseless else text)


def _ec2(type_: str) -> Callable[[str], Identity | None]:
    def bare(text: str) -> Identity | None:
        prefix = text.split("-", 1)[0]
        return Identity(f"ec2:{_EC2_PREFIXES[prefix]}", text) if prefix in _EC2_PREFIXES else None

    return bare


def kms_key_identity(text: str) -> Identity:
    """A key id, or an alias name (`alias/orders`): which one is read by KMS (`kms.KEY_REFERENCE`)."""
    return Identity("kms:alias", text) if text.startswith("alias/") else Identity("kms:key", text)


def _function_bare(text: str) -> Identity:
    """`NAME`, `NAME:QUALIFIER` or the partial ARN `ACCOUNT:function:NAME[:QUALIFIER]`."""
    parts = text.split(":")
    if len(parts) >= 3 and parts[1] == "function":
        return Identity("lambda:function", parts[2], None, parts[0], parts[3] if len(parts) > 3 else None)
    return Identity("lambda:function", parts[0], None, None, parts[1] if len(parts) > 1 else None)


def task_definition_identity(text: str) -> Identity:
    """`family:revision`, or a bare family (its revision left open: `ecs.TASK_DEFINITION_REFERENCE` asks ECS)."""
    family, _, revision = text.partition(":")
    return Identity("ecs:task-definition", family, version=revision or None)


def launch_template_identity(text: str) -> Identity:
    """`lt-` and 8 to 17 hex digits is an id; anything else a name (a name may start with `lt-` too)."""
    if re.fullmatch(r"lt-[0-9a-f]{8,17}", text):
        return Identity("ec2:launch-template", text)
    return Identity("ec2:launch-template-name", text)


def _alias_bare(text: str) -> Identity:
    return Identity("kms:alias", text if text.startswith("alias/") else f"alias/{text}")


def _zone_bare(text: str) -> Identity:
    return Identity("route53:hostedzone", text.removeprefix("/hostedzone/"))


def _repository_bare(text: str) -> Identity:
    host, _, path = text.partition("/")
    host_match = _ECR_HOST.fullmatch(host)
    if host_match and path:
        return Identity("ecr:repository", path, host_match["region"], host_match["account"])
    return Identity("ecr:repository", text)


_DOCKER_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io", "registry.hub.docker.com")


def image_identity(text: str) -> Identity:
    """`[REGISTRY/]REPOSITORY[:TAG][@DIGEST]`, as Docker reads it: no tag means `latest`, Docker Hub's official
    images are `docker.io/library/NAME`; an ECR registry names its account and region."""
    name, _, digest = text.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = None
    if ":" in last:
        name, _, tag = name.rpartition(":")
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, path = first.lower(), rest
    else:
        registry, path = "docker.io", name
    if registry in _DOCKER_HUB:
        registry = "docker.io"
        path = path if "/" in path else f"library/{path}"
    host = _ECR_HOST.fullmatch(registry)
    version = digest or f"tag:{tag or 'latest'}"
    return Identity(
        "image", f"{registry}/{path}", host["region"] if host else None, host["account"] if host else None, version
    )


def repository_images(repository: Mapping[str, Any]) -> Identity | None:
    """A described ECR repository as an image reference: any image it holds."""
    uri = repository.get("repositoryUri")
    return replace(image_identity(str(uri)), version=None) if uri else None


def _any_bare(text: str) -> Identity:
    return Identity("?", text)


KMS_ALIAS = Space("kms:alias", "KMS alias", ("AliasArn", "AliasName"), _alias_bare)
ROLE = Space("iam:role", "IAM role", ("Arn", "RoleName"), _named("iam:role", caseless=True))
USER = Space("iam:user", "IAM user", ("Arn", "UserName"), _named("iam:user", caseless=True))
GROUP = Space("iam:group", "IAM group", ("Arn", "GroupName"), _named("iam:group", caseless=True))
INSTANCE_PROFILE = Space(
    "iam:instance-profile",
    "instance profile",
    ("Arn", "InstanceProfileName"),
    _named("iam:instance-profile", caseless=True),
)
MANAGED_POLICY = Space(
    "iam:policy", "managed policy", ("Arn", "PolicyArn", "PolicyName"), _named("iam:policy", caseless=True)
)
FUNCTION = Space("lambda:function", "Lambda function", ("FunctionArn", "FunctionName"), _function_bare)
LOG_GROUP = Space("logs:log-group", "log group", ("arn", "logGroupArn", "logGroupName"), _named("logs:log-group"))
QUEUE = Space("sqs:queue", "queue", ("QueueArn", "QueueUrl"), _named("sqs:queue"))
TOPIC = Space("sns:topic", "topic", ("TopicArn",), _named("sns:topic"))
VPC = Space("ec2:vpc", "VPC", ("VpcId",), _ec2("vpc"))
SUBNET = Space("ec2:subnet", "subnet", ("SubnetId", "SubnetArn"), _ec2("subnet"))
SECURITY_GROUP = Space("ec2:security-group", "security group", ("GroupId", "SecurityGroupArn"), _ec2("sg"))
ROUTE_TABLE = Space("ec2:route-table", "route table", ("RouteTableId",), _ec2("rtb"))
INTERNET_GATEWAY = Space("ec2:internet-gateway", "internet gateway", ("InternetGatewayId",), _ec2("igw"))
NAT_GATEWAY = Space("ec2:natgateway", "NAT gateway", ("NatGatewayId",), _ec2("nat"))
INSTANCE = Space("ec2:instance", "instance", ("InstanceId",), _ec2("i"))
TARGET_GROUP = Space(
    "elasticloadbalancing:targetgroup", "target group", ("TargetGroupArn",), _named("elasticloadbalancing:targetgroup")
)
LOAD_BALANCER = Space(
    "elasticloadbalancing:loadbalancer",
    "load balancer",
    ("LoadBalancerArn",),
    _named("elasticloadbalancing:loadbalancer"),
)
CLUSTER = Space("ecs:cluster", "ECS cluster", ("clusterArn", "clusterName"), _named("ecs:cluster"))
REPOSITORY = Space(
    "ecr:repository", "ECR repository", ("repositoryArn", "repositoryUri", "repositoryName"), _repository_bare
)
DB_SUBNET_GROUP = Space(
    "rds:subgrp", "DB subnet group", ("DBSubnetGroupArn", "DBSubnetGroupName"), _named("rds:subgrp", caseless=True)
)
BUCKET = Space("s3:bucket", "S3 bucket", ("Name", "Bucket"), _named("s3:bucket"))
TABLE = Space("dynamodb:table", "DynamoDB table", ("TableArn", "TableName"), _named("dynamodb:table"))
SECRET = Space("secretsmanager:secret", "secret", ("ARN", "Name"), _named("secretsmanager:secret"))
PARAMETER = Space("ssm:parameter", "SSM parameter", ("ARN", "Name"), _named("ssm:parameter"))
USER_POOL = Space("cognito-idp:userpool", "user pool", ("Arn", "Id", "UserPoolId"), _named("cognito-idp:userpool"))
"""A Cognito user pool by its id (`us-east-1_AbC123`), its ARN or a described pool."""
HOSTED_ZONE = Space("route53:hostedzone", "hosted zone", ("Id",), _zone_bare)
ANY = Space(
    "?",
    "resource",
    ("Arn", "QueueArn", "TopicArn", "FunctionArn", "StreamARN", "LatestStreamArn", "TableArn", "ARN"),
    _any_bare,
)
"""Any resource by ARN (or queue URL): for targets and sources that may be of several types."""


# --- resolving, once per evaluation -----------------------------------------------------------------------------


def asked(call: Callable[[], Any], also_missing: tuple[str, ...] = ()) -> Any:
    """`call()`, None when AWS answers that the thing does not exist (other errors propagate: never a verdict)."""
    try:
        return call()
    except ClientError as error:
        if is_not_found(error) or error_code(error) in also_missing:
            return None
        raise


class Resolver:
    """Reads references as identities in one account, asking AWS (through `session`) only where a `Space` must,
    each question once (the cache is shared by every region's view of one evaluation). Without a session it
    reads spellings only. `region` is where bare names are: the region of the resource being judged."""

    def __init__(self, session: Any = None, region: str | None = None, cache: dict[Any, Any] | None = None) -> None:
        self.session = session
        self.region = region or getattr(session, "region_name", None)
        self._cache: dict[Any, Any] = {} if cache is None else cache

    def at(self, region: str | None) -> Resolver:
        """This resolver for bare names in `region` (None: the session's), sharing its answers."""
        if region is None or region == self.region:
            return self
        return Resolver(self.session, region, self._cache)

    def identity(self, space: Space, reference: Any) -> Identity | None:
        """What `reference` (a string, a described resource, an Identity, None) names in `space`."""
        if isinstance(reference, Identity):
            return reference
        if isinstance(reference, Mapping) and space.described is not None:
            return space.described(reference)
        text = space.spelled(reference)
        if not text:
            return None
        key = (space.type, text, self.region)
        if key not in self._cache:
            self._cache[key] = self._complete(space, space.read(text), text)
        return self._cache[key]

    def _complete(self, space: Space, identity: Identity | None, text: str) -> Identity | None:
        if identity is None:
            return None
        if identity.region is None and space.regional and identity.type.split(":")[0] not in GLOBAL_SERVICES:
            identity = replace(identity, region=self.region)
        if space.resolve is None or self.session is None:
            return identity
        return space.resolve(in_region(self.session, identity.region or self.region), identity, text.strip())

    def ask(self, question: str, call: Callable[[Any], Any], default: Any) -> Any:
        """`call(session)`: a fact of the whole account (its public access block...), asked once per evaluation;
        `default` without a session."""
        if self.session is None:
            return default
        key = ("ask", question)
        if key not in self._cache:
            self._cache[key] = call(self.session)
        return self._cache[key]

    def same(self, space: Space, actual: Any, expected: Any) -> bool:
        """Whether `actual` and `expected` name one resource (False when either names nothing)."""
        a, e = self.identity(space, actual), self.identity(space, expected)
        return a is not None and e is not None and a.same(e)

    def among(self, space: Space, actual: Iterable[Any] | None, expected: Any) -> bool:
        """Whether one of `actual` names the resource `expected` names."""
        return any(self.same(space, item, expected) for item in actual or ())

    def same_set(self, space: Space, actual: Iterable[Any] | None, expected: Iterable[Any]) -> bool:
        """Whether `actual` and `expected` name the same resources, each once."""
        found = [self.identity(space, a) for a in actual or ()]
        wanted = [self.identity(space, e) for e in expected]
        if None in found or None in wanted or len(found) != len(wanted):
            return False
        left = list(found)
        for w in wanted:
            match = next((i for i, f in enumerate(left) if f is not None and w is not None and f.same(w)), None)
            if match is None:
                return False
            left.pop(match)
        return True


_current: ContextVar[Resolver | None] = ContextVar("stepeval_resolver", default=None)


def current() -> Resolver:
    """The resolver of the evaluation in progress (`resolving`), else one that reads spellings only."""
    return _current.get() or Resolver()


@contextmanager
def resolving(resolver: Resolver) -> Iterator[Resolver]:
    """Evaluate requirements with `resolver` (Step does this around every evaluation)."""
    token = _current.set(resolver)
    try:
        yield resolver
    finally:
        _current.reset(token)


# --- requirements over references -------------------------------------------------------------------------------


def shown(space: Space, reference: Any) -> str | None:
    """How a check records the expected reference: as given, or a described resource's reference."""
    return space.spelled(reference)


def refers(
    check: str,
    space: Space,
    expected: Any,
    actual: Callable[[Any], Any],
    *,
    hint: str | Callable[[Any], str] | None = None,
    explain: Callable[[Any], str] | None = None,
) -> Requirement:
    """`actual(resource)` names the resource `expected` names (a described resource, or any spelling of its
    reference in `space`), whatever the spelling on either side. A miss shows the expected reference the way
    the learner spelt theirs, and as the check records it ("alias/orders (arn:aws:kms:...:key/1234...)")."""
    recorded = shown(space, expected)
    if explain is None:

        def explain(found: Any) -> str:
            return f"{check} should be {_like(space, expected, found, recorded)}, but is {found or 'none'}."

    return _referring(check, recorded, actual, lambda found: current().same(space, found, expected), hint, explain)


def _shape(text: str) -> tuple[str, str | None]:
    """The form a reference is spelt in: an ARN of a type, a URL, an alias name, or a bare name or id."""
    arn = arn_identity(text)
    if arn is not None:
        return "arn", arn.type
    return ("url", None) if "://" in text else ("alias", None) if text.startswith("alias/") else ("bare", None)


def _like(space: Space, expected: Any, found: Any, recorded: str | None) -> str:
    """The expected reference in the learner's form where it differs from the recorded one, with the recorded."""
    if not isinstance(found, str) or not found:
        return str(recorded)
    like = next((f for f in space.forms(expected) if _shape(f) == _shape(found)), None)
    return str(recorded) if like is None or like == recorded else f"{like} ({recorded})"


def refers_among(
    check: str,
    space: Space,
    expected: Any,
    actual: Callable[[Any], Iterable[Any] | None],
    *,
    hint: str | Callable[[Any], str] | None = None,
    explain: Callable[[Any], str] | None = None,
) -> Requirement:
    """One of the references `actual(resource)` lists names the resource `expected` names."""
    return _referring(
        check, shown(space, expected), actual, lambda found: current().among(space, found, expected), hint, explain
    )


def refers_exactly(
    check: str,
    space: Space,
    expected: Iterable[Any],
    actual: Callable[[Any], Iterable[Any] | None],
    *,
    hint: str | Callable[[Any], str] | None = None,
    explain: Callable[[Any], str] | None = None,
) -> Requirement:
    """The references `actual(resource)` lists name exactly the resources `expected` names, no more, no fewer."""
    wanted = list(expected)
    shown_all = sorted(str(shown(space, e)) for e in wanted)
    return _referring(check, shown_all, actual, lambda found: current().same_set(space, found, wanted), hint, explain)


def _referring(
    check: str,
    shown_expected: Any,
    actual: Callable[[Any], Any],
    holds: Callable[[Any], bool],
    hint: str | Callable[[Any], str] | None,
    explain: Callable[[Any], str] | None,
) -> Requirement:
    """A requirement on what `actual(resource)` references, judged by `holds` in the evaluation's resolver."""
    return require(check, shown_expected, actual, compare=lambda found, _: holds(found), hint=hint, explain=explain)
