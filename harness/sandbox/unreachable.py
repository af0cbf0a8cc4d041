"""Why an AWS endpoint did not answer, in one line naming its host, port and cause: the gateway's 502 to a module
(and the answer's `error.detail`), and the service's own STS calls (an `error` of kind `sandbox`), say it alike."""

from __future__ import annotations

from collections.abc import Iterator

import urllib3
from botocore.exceptions import BotoCoreError


def unreachable(
    endpoint_url: str, exc: urllib3.exceptions.HTTPError, *, connect_timeout_s: float, read_timeout_s: float
) -> str:
    """`the endpoint URL (host:port) did not answer: cause (urllib3's exception)`; the timeouts are the caller's."""
    url = urllib3.util.parse_url(endpoint_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    if isinstance(exc, urllib3.exceptions.NameResolutionError):
        cause = f"the name {url.host} does not resolve"
    elif isinstance(exc, urllib3.exceptions.NewConnectionError):  # a ConnectTimeoutError too, for urllib3's callers
        reasons = [e.strerror for e in _chain(exc) if isinstance(e, OSError) and e.strerror]
        cause = reasons[0].lower() if reasons else str(exc).rpartition(": ")[2]
    elif isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        cause = f"no connection within {connect_timeout_s:g} s"
    elif isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        cause = f"no answer within {read_timeout_s:g} s"
    else:
        cause = str(exc).rpartition(": ")[2] or type(exc).__name__
    return f"the endpoint {endpoint_url} ({url.host}:{port}) did not answer: {cause} ({type(exc).__name__})"


def botocore_unreachable(exc: BotoCoreError, *, connect_timeout_s: float, read_timeout_s: float) -> str | None:
    """`unreachable` for a botocore client's EndpointConnectionError or timeout (the urllib3 error it wraps, the
    endpoint its request went to, without the path); None when `exc` is no such failure."""
    request_url = getattr(exc, "kwargs", {}).get("endpoint_url")
    cause = next((e for e in _chain(exc) if isinstance(e, urllib3.exceptions.HTTPError)), None)
    if not isinstance(request_url, str) or cause is None:
        return None
    url = urllib3.util.parse_url(request_url)
    endpoint_url = f"{url.scheme}://{url.netloc}"
    return unreachable(endpoint_url, cause, connect_timeout_s=connect_timeout_s, read_timeout_s=read_timeout_s)


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    """`exc`, its cause and context, and theirs (urllib3 wraps the socket's OSError, botocore urllib3's)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__
