"""The werkzeug internals behind harness/_compat/werkzeug.py: each test fails when one moves or changes shape."""

from __future__ import annotations

import http.client
import importlib.metadata
import inspect
import threading

import pytest
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
