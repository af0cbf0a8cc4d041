"""moto's copies keep connections alive (harness/_compat/werkzeug.py's KeptAliveHandler): one request after
another on a connection, whatever the request's body, each answer with its length; a client that asks to close gets
its connection closed.

Raw HTTP against a serving copy: an unsigned request reaches moto's S3.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator

import pytest

from harness.authoring.emulator import Emulator, MotoState, Seat

pytestmark = [pytest.mark.process, pytest.mark.moto]


@pytest.fixture(scope="module")
def seat() -> Iterator[Seat]:
    with Emulator(1, services=["s3"]) as emulator:
        assert emulator.root is not None
        copy: MotoState = emulator.root.fork(emulator.seats[0])
        yield emulator.seats[0]
        copy.close()


def connect(seat: Seat) -> http.client.HTTPConnection:
    host, port = seat.endpoint_url.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=10)


def ask(connection: http.client.HTTPConnection, method: str, path: str, **kwargs) -> http.client.HTTPResponse:
    connection.request(method, path, **kwargs)
    response = connection.getresponse()
    response.read()
    return response


def kept(connection: http.client.HTTPConnection) -> object:
    """The connection's socket, which must still be open (http.client drops it when the answer says close)."""
    assert connection.sock is not None
    return connection.sock


def listed_next(connection: http.client.HTTPConnection) -> tuple[http.client.HTTPResponse, bytes]:
    """`GET /` (the buckets) right after what was asked, which must go on the same, still open, connection."""
    sock = kept(connection)
    connection.request("GET", "/")
    listed = connection.getresponse()
    body = listed.read()
    assert kept(connection) is sock  # never reopened: the server did not close it
    return listed, body


def test_requests_follow_each_other_on_one_connection(seat: Seat) -> None:
    connection = connect(seat)
    first = ask(connection, "PUT", "/kept-alive-bucket")
    listed, _ = listed_next(connection)
    assert first.status == listed.status == 200
    assert listed.getheader("Connection") is None
    assert listed.getheader("Content-Length") is not None


def test_a_body_moto_does_not_read_is_skipped_not_taken_for_the_next_request(seat: Seat) -> None:
    connection = connect(seat)
    ignored = ask(connection, "GET", "/", body=b"x" * 100_000, headers={"Content-Length": "100000"})
    assert ignored.status == listed_next(connection)[0].status == 200


def test_a_chunked_body_is_read_to_its_end(seat: Seat) -> None:
    connection = connect(seat)
    created = ask(connection, "PUT", "/chunked-bucket", body=iter([b"", b""]), encode_chunked=True)
    listed, body = listed_next(connection)
    assert created.status == listed.status == 200
    assert b"chunked-bucket" in body


def test_a_head_answer_has_no_body_and_the_connection_goes_on(seat: Seat) -> None:
    connection = connect(seat)
    ask(connection, "PUT", "/headed-bucket")
    headed = ask(connection, "HEAD", "/headed-bucket")
    assert headed.status == listed_next(connection)[0].status == 200


def test_a_client_that_asks_to_close_is_answered_and_closed(seat: Seat) -> None:
    connection = connect(seat)
    closing = ask(connection, "GET", "/", headers={"Connection": "close"})
    assert closing.status == 200
    assert closing.getheader("Connection") == "close"
    assert connection.sock is None  # http.client closed it, as the answer said
