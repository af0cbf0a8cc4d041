"""An endpoint that does not answer: the gateway's 502 names host, port and cause, and so does the answer's
`error.detail` (an `aws` error, exit 3), not "HeadBucket: 502: Bad Gateway"."""

from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest
import urllib3

from harness.sandbox.gateway import CONNECT_TIMEOUT_S, READ_TIMEOUT_S
from harness.sandbox.unreachable import unreachable
from tests.conftest import LABS, STEPEVAL


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_gateway_names_host_port_and_cause_of_a_refused_connection() -> None:
    port = closed_port()
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(urllib3.exceptions.HTTPError) as raised:
        urllib3.PoolManager().request("GET", url, retries=False)
    detail = unreachable(url, raised.value, connect_timeout_s=CONNECT_TIMEOUT_S, read_timeout_s=READ_TIMEOUT_S)
    assert detail == f"the endpoint {url} (127.0.0.1:{port}) did not answer: connection refused (NewConnectionError)"


def test_a_timeout_and_a_default_port_are_named_too() -> None:
    timeout = urllib3.exceptions.ReadTimeoutError(None, "https://sts.example", "read timed out")
    assert unreachable("https://sts.example", timeout, connect_timeout_s=5, read_timeout_s=30).endswith(
        "(sts.example:443) did not answer: no answer within 30 s (ReadTimeoutError)"
    )


@pytest.mark.process
def test_the_answer_names_the_unreachable_endpoint() -> None:
    port = closed_port()
    context = json.dumps({"events": [{"type": "AWS::S3::Bucket", "id": "alpha-bucket"}]})
    done = subprocess.run(
        [STEPEVAL, "run", "01.01", "--lab", LABS / "seed_examples", "--context", "-",
         "--endpoint-url", f"http://127.0.0.1:{port}"],
        input=context, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "aws"
    assert f"127.0.0.1:{port}" in error["detail"] and "connection refused" in error["detail"], error
