"""Lambda validators: the function (runtime, handler, role, memory, timeout, architecture, environment), its
resource policy (who may invoke it), and event source mappings (id = the mapping's UUID)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from harness.kit import grants, refs
from harness.kit.aws import is_not_found
from harness.kit.bounds import Bound
from harness.kit.grants import principal_may
from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_function(session: Any, name: str) -> Resource:
    client = session.client("lambda")
    configuration = client.get_function_configuration(FunctionName=name)

    def policy() -> str | None:
        try:
            return client.get_policy(FunctionName=name)["Policy"]
        except ClientError as error:
            if is_not_found(error):
                return None
            raise

    return LazyResource(configuration, {"Policy": policy})


def _fetch_mapping(session: Any, uuid: str) -> Resource:
    return session.client("lambda").get_event_source_mapping(UUID=uuid)


def _function_settling(function: Resource) -> str | None:
    """State is Pending, or LastUpdateStatus is InProgress"""
    if function.get("State") == "Pending":
        return "state Pending"
    return "an update InProgress" if function.get("LastUpdateStatus") == "InProgress" else None


FUNCTION = register(
    Kind("AWS::Lambda::Function", "Lambda function", _fetch_function, settling=_function_settling, retry_after_s=5)
)
"""`get_function_configuration`'s function (`FunctionName`, `FunctionArn`, `Runtime`, `Handler`, `Role`,
`MemorySize`, `Timeout`, `Architectures`, `Environment`: `{"Variables"}`, `State`, `LastUpdateStatus`) plus
`Policy`, its resource policy (JSON text or None), read when first used."""
EVENT_SOURCE_MAPPING = register(
    Kind(
        "AWS::Lambda::EventSourceMapping",
        "event source mapping",
        _fetch_mapping,
        settling=state_in("State", {"Creating", "Enabling", "Updating"}),
        retry_after_s=10,
    )
)
"""`get_event_source_mapping`'s mapping: `{"UUID", "EventSourceArn", "FunctionArn", "BatchSize", "State",
"MaximumBatchingWindowInSeconds"}`."""


def runtime(value: str) -> Requirement:
    """The runtime, e.g. `python3.12`."""
    return attribute("runtime", "Runtime", value)


def handler(value: str) -> Requirement:
    """The handler, `FILE.FUNCTION` (e.g. `app.handler`)."""
    return attribute("handler", "Handler", value, hint="The handler is FILE.FUNCTION, e.g. app.handler for app.py.")


def memory(megabytes: int | Bound) -> Requirement:
    """The memory size, in MB."""
    return attribute("memory (MB)", "MemorySize", megabytes)


def timeout(seconds: int | Bound) -> Requirement:
    """The timeout, in seconds."""
    return attribute("timeout (s)", "Timeout", seconds)


def architecture(value: str = "arm64") -> Requirement:
    """The instruction set: `arm64` or `x86_64` (the default)."""
    return require("architecture", value, lambda f: ", ".join(f.get("Architectures") or ["x86_64"]))


@later
def execution_role(role: Resource | str | None) -> Requirement:
    """Runs as the role (a described role, its name or its ARN)."""
    return refs.refers(
        "execution role",
        refs.ROLE,
        role,
        lambda f: f.get("Role"),
        hint="Choose the step's role as the function's execution role.",
    )


def environment(**variables: str) -> Requirement:
    """These environment variables have these values (others may exist too)."""
    return require(
        "environment variables",
        dict(variables),
        lambda f: (f.get("Environment") or {}).get("Variables", {}),
        compare=lambda actual, expected: all(actual.get(k) == v for k, v in expected.items()),
        explain=lambda actual: (
            "its environment has "
            + ", ".join(
                f"{k}={actual[k]}" if k in actual else f"no {k}" for k in variables if actual.get(k) != variables[k]
            )
            + f"; expected {', '.join(f'{k}={v}' for k, v in variables.items())}."
        ),
    )


@later
def invokable_by(principal: str, source_arn: Resource | str | None = None) -> Requirement:
    """The resource policy lets `principal` (e.g. `apigateway.amazonaws.com`) invoke the function, from
    `source_arn` if given (e.g. the API's `arn:aws:execute-api:REGION:ACCOUNT:API_ID/*`)."""
    return principal_may(
        "lambda:InvokeFunction",
        principal,
        lambda function: function["Policy"],
        source_arn=source_arn,
        hint=f"Add a permission (lambda add-permission) for {principal} to invoke the function.",
    )


@later
def invokable_by_api(api: Resource | str | None, *routes: str, stage: str = "$default") -> Requirement:
    """API Gateway may invoke the function for each route (`"GET /items/{id}"`; none: any) of `api` (a described
    HTTP or REST API, or its id) at `stage`: the request API Gateway sends for it
    (`aws:SourceArn` = `arn:aws:execute-api:REGION:ACCOUNT:API_ID/STAGE/METHOD/PATH`, in the function's account and
    Region) is allowed, so a permission scoped to another API, stage or route does not count."""
    api_id = api if isinstance(api, str) else str(api.get("ApiId") or api.get("id") or "") if api else ""
    asked = routes or ("* /*",)

    def finding(function: Resource) -> grants.PolicyFinding:
        _, partition, _, region, account = str(function["FunctionArn"]).split(":")[:5]
        found = grants.PolicyFinding(True, "")
        for route in asked:
            method, _, path = route.partition(" ")
            arn = f"arn:{partition}:execute-api:{region}:{account}:{api_id}/{stage}/{method}{path}"
            permission = grants.may(
                "apigateway.amazonaws.com", "lambda:InvokeFunction", source=arn, document=lambda f: f["Policy"]
            )
            found = permission.actual(function)
            if not found.holds:
                return found
        return found

    return grants.finding_requirement(
        "invoked by API Gateway",
        f"apigateway.amazonaws.com from API {api_id} ({', '.join(routes) or 'any route'}, stage {stage})",
        finding,
        hint=f"Add a permission (lambda add-permission) for apigateway.amazonaws.com with a SourceArn that covers "
        f"API {api_id}'s routes (arn:...:execute-api:REGION:ACCOUNT:{api_id}/*).",
    )


@later
def source(arn: Resource | str | None, *, key: str | None = None) -> Requirement:
    """The event source mapping reads from `arn`: a queue (URL or ARN), a stream's ARN, or a described resource
    (its ARN; a described table's latest stream; `key` names another attribute to read)."""
    return refs.refers("event source", refs.ANY, id_of(arn, key) if key else arn, lambda m: m.get("EventSourceArn"))


@later
def for_function(function: Resource | str | None) -> Requirement:
    """The event source mapping invokes the function (a described function, its name or ARN; a qualifier, when
    both name one, must be the same)."""
    return refs.refers("function", refs.FUNCTION, function, lambda m: m.get("FunctionArn"))


def batch_size(size: int | Bound) -> Requirement:
    """How many records the mapping hands the function at once."""
    return attribute("batch size", "BatchSize", size)


def mapping_enabled() -> Requirement:
    """The event source mapping is enabled (or being enabled)."""
    return require("state", "Enabled", lambda m: m.get("State"), compare=lambda a, _: a in ("Enabled", "Enabling"))


# --- ARNs --------------------------------------------------------------------------------------------------------


def _function_arn_part(resource: str) -> refs.ArnPart | None:
    """`function:NAME[:QUALIFIER]`: a function, its version or alias as the version."""
    kind, _, rest = refs.split_resource(resource)
    if kind != "function":
        return None
    name, _, qualifier = rest.partition(":")
    return kind, name, qualifier or None


refs.reads_arns("lambda", _function_arn_part)
