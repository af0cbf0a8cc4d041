"""The botocore internals behind harness/_compat/botocore.py: each test fails when one moves or changes shape."""

from __future__ import annotations

import botocore.loaders
import botocore.session
import pytest
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.config import Config
from botocore.model import ServiceModel

from harness._compat import botocore as door

IDENTITY = (
    b"<GetCallerIdentityResponse><GetCallerIdentityResult><Account>123456789012</Account>"
    b"<Arn>arn:aws:iam::123456789012:user/guard</Arn><UserId>GUARD</UserId></GetCallerIdentityResult>"
    b"</GetCallerIdentityResponse>"
)


class Body:
    """A raw body as botocore reads it (`stream()`)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **_: object):
        yield self.data


class Recorder:
    """A Sender that answers every request with one GetCallerIdentity answer, and keeps what it was sent."""

    def __init__(self) -> None:
        self.sent: list[AWSPreparedRequest] = []
        self.closed = False

    def send(self, request: AWSPreparedRequest) -> AWSResponse:
        self.sent.append(request)
        return AWSResponse(request.url, 200, {"Content-Type": "text/xml"}, Body(IDENTITY))

    def close(self) -> None:
        self.closed = True


def sts(retries: str = "standard"):
    session = botocore.session.Session()
    return session.create_client(
        "sts",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",  # nothing listens there: only the Sender answers
        aws_access_key_id="guard",
        aws_secret_access_key="guard",
        config=Config(retries={"mode": retries}),
    )


def test_a_client_sends_every_request_with_the_sender_it_is_given() -> None:
    client = sts()
    recorder = Recorder()
    previous = door.send_through(client, recorder)
    assert callable(previous.send) and callable(previous.close)  # botocore's own (URLLib3Session)
    assert door.sender(client) is recorder
    assert client.get_caller_identity()["Account"] == "123456789012"
    assert len(recorder.sent) == 1 and isinstance(recorder.sent[0], AWSPreparedRequest)
    assert recorder.sent[0].url.startswith("http://127.0.0.1:9")
    assert door.send_through(client, previous) is recorder
    assert door.sender(client) is previous


@pytest.fixture
def loader_per_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore as it comes, a loader per session (a test before may have shared one); the name put
    back after the test."""
    unshared = getattr(botocore.loaders.create_loader, "__wrapped__", botocore.loaders.create_loader)
    for module in (botocore.loaders, botocore.session):
        monkeypatch.setattr(module, "create_loader", unshared)


def test_sessions_make_their_loader_through_the_name_share_one_loader_replaces(loader_per_session: None) -> None:
    assert botocore.session.create_loader is botocore.loaders.create_loader  # the name a Session calls
    assert botocore.session.Session().get_component("data_loader") is not (
        botocore.session.Session().get_component("data_loader")
    )
    door.share_one_loader()
    first = botocore.session.Session().get_component("data_loader")
    assert botocore.session.Session().get_component("data_loader") is first


def test_the_data_every_client_loads_is_client_data(monkeypatch: pytest.MonkeyPatch, loader_per_session: None) -> None:
    """What a worker reads ahead (harness/core/botocore_models.warm_up) is what making any client reads."""
    loaded: list[str] = []
    load_data = botocore.loaders.Loader.load_data
    load_data_with_path = botocore.loaders.Loader.load_data_with_path

    def recorded(self, name):
        loaded.append(name)
        return load_data(self, name)

    def recorded_with_path(self, name):
        loaded.append(name)
        return load_data_with_path(self, name)

    monkeypatch.setattr(botocore.loaders.Loader, "load_data", recorded)
    monkeypatch.setattr(botocore.loaders.Loader, "load_data_with_path", recorded_with_path)
    sts(retries="legacy")
    assert set(door.CLIENT_DATA) <= set(loaded)
    loader = botocore.loaders.create_loader()
    assert all(loader.load_data(name) for name in door.CLIENT_DATA)


def test_cached_by_counts_the_operation_models_a_model_made() -> None:
    model = ServiceModel(botocore.loaders.create_loader().load_service_model("sts", "service-2"), "sts")
    assert door.cached_by(model) == 0
    model.operation_model("GetCallerIdentity")
    model.operation_model("GetCallerIdentity")
    assert door.cached_by(model) == 1
    model.operation_model("AssumeRole")
    assert door.cached_by(model) == 2


def test_the_plain_loader_reads_what_botocores_own_reads_as_dicts() -> None:
    """Each data file a client loads and a service model, read by `create_loader`: equal to botocore's own reading
    (OrderedDicts), in the same order, with no OrderedDict left at any depth."""
    ours, theirs = door.create_loader(), botocore.loaders.create_loader()
    assert ours.search_paths == theirs.search_paths

    def kinds(value: object) -> set[type]:
        if isinstance(value, dict):
            return {type(value)}.union(*(kinds(item) for item in value.values()))
        if isinstance(value, list):
            return set().union(*(kinds(item) for item in value))
        return set()

    for read in (
        *(lambda loader, name=name: loader.load_data(name) for name in door.CLIENT_DATA),
        lambda loader: loader.load_service_model("ec2", "service-2"),
    ):
        plain, ordered = read(ours), read(theirs)
        assert plain == ordered
        assert list(plain) == list(ordered)
        assert kinds(plain) == {dict}


def test_the_plain_loader_prunes_each_file_it_reads() -> None:
    """`create_loader(prune)` hands every data file it read to `prune` with its path, and botocore gets what it
    returns."""
    seen: list[str] = []

    def prune(path: str, data: object) -> object:
        seen.append(path)
        assert isinstance(data, dict)
        return {**data, "pruned": True}

    loaded = door.create_loader(prune).load_service_model("sts", "service-2")
    assert loaded["pruned"] is True
    assert any(path.endswith(("service-2.json", "service-2.json.gz")) for path in seen)
