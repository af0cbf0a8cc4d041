"""The werkzeug internals behind harness/_compat/werkzeug.py: each test fails when one moves or changes shape."""

from __future__ import annotations

import http.client
import importlib.metadata
import inspect
import logging
import threading

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from harness._compat import werkzeug as door


def echo(environ: dict, start_response) -> list[bytes]:
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [environ["PATH_INFO"].encode(), b" ", body]


def test_the_handler_werkzeug_calls_for_each_request_is_run_wsgi_reading_make_environ() -> None:
    assert {"make_environ", "run_wsgi"} <= set(vars(WSGIRequestHandler))
    assert "self.run_wsgi" in inspect.getsource(WSGIRequestHandler)
    assert "self.make_environ()" in inspect.getsource(WSGIRequestHandler.run_wsgi)


def test_a_kept_alive_handler_answers_requests_one_after_another_on_one_connection() -> None:
    server = make_server("127.0.0.1", 0, echo, threaded=True, request_handler=door.KeptAliveHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        answers = []
        for path, body in (("/a", b"first"), ("/b", b""), ("/c", b"third")):
            connection.request("POST", path, body=body)
            response = connection.getresponse()
            answers.append((response.status, response.getheader("Content-Length"), response.read()))
            assert connection.sock is not None  # still open: http.client drops it when the answer says close
        connection.close()
    finally:
        server.shutdown()
        server.server_close()
    assert answers == [(200, "8", b"/a first"), (200, "3", b"/b "), (200, "8", b"/c third")]


def test_each_server_asks_its_version_through_the_lookup_that_is_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.metadata, "version", importlib.metadata.version)
    assert "importlib.metadata.version" in inspect.getsource(BaseWSGIServer.__init__)
    door.cache_version_lookups()
    assert importlib.metadata.version("werkzeug")
    hits = importlib.metadata.version.cache_info().hits  # type: ignore[attr-defined]
    server = BaseWSGIServer("127.0.0.1", 0, echo)
    server.server_close()
    assert importlib.metadata.version.cache_info().hits == hits + 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("service", ["s3", "dynamodb"])  # an XML protocol, a JSON one
def test_a_call_the_emulator_fails_on_is_answered_once_in_one_line_never_retried(
    service: str, caplog: pytest.LogCaptureFixture
) -> None:
    calls = []

    def failing(environ: dict, start_response) -> list[bytes]:
        calls.append(environ["PATH_INFO"])
        return {}.get("x").get("y")  # what moto's handlers raise on a body they did not expect

    server = make_server("127.0.0.1", 0, failing, threaded=True, request_handler=door.KeptAliveHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = boto3.client(
        service,
        endpoint_url=f"http://127.0.0.1:{server.port}",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=botocore.config.Config(retries={"mode": "standard", "max_attempts": 3}),
    )
    caplog.set_level(logging.DEBUG, logger=door.__name__)
    try:
        with pytest.raises(ClientError) as raised:
            client.list_buckets() if service == "s3" else client.list_tables()
    finally:
        server.shutdown()
        server.server_close()
    error = raised.value.response["Error"]
    assert error["Code"] == door.EMULATOR_FAILED and len(calls) == 1
    assert error["Message"] == (
        "the emulator failed on this call (moto: AttributeError: 'NoneType' object has no attribute 'get');"
        " this is not an AWS answer"
    )
    logged = [(r.levelno, bool(r.exc_info)) for r in caplog.records if r.name == door.__name__]
    assert logged == [(logging.DEBUG, True)]  # the traceback: for debugging, never on the author's terminal
