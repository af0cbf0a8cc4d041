"""The forking emulator: copies hold their template's state, are independent, seeded alike, and hang up when done.

These also exercise what harness.authoring.emulator borrows from moto's and werkzeug's internals (its WSGI app and
request handler, its seeded random ids, its reset) end to end; tests/_compat/ guards each internal on its own.
"""

from __future__ import annotations

import contextlib
import datetime
import socket
import threading
import time

import boto3
import pytest

from harness.authoring import emulator as emulator_module
from harness.authoring.emulator import Emulator, EmulatorError, MotoState, Seat
from harness.inside.session import client_config

pytestmark = [pytest.mark.process, pytest.mark.moto]


def client(service: str, seat: Seat):
    sandbox = seat.sandbox()
    return boto3.Session(
        aws_access_key_id=sandbox.credentials.access_key,
        aws_secret_access_key=sandbox.credentials.secret_key,
        region_name=sandbox.region,
    ).client(service, endpoint_url=seat.endpoint_url, config=client_config(seat.endpoint_url))


def buckets(s3) -> list[str]:
    return sorted(b["Name"] for b in s3.list_buckets()["Buckets"])


@pytest.fixture(scope="module")
def emulator():
    with Emulator(2, services=["s3", "ec2"]) as started:
        yield started


def root(emulator: Emulator) -> MotoState:
    assert emulator.root is not None
    return emulator.root


def test_a_copy_holds_its_templates_state_and_changes_nothing_but_itself(emulator: Emulator) -> None:
    seat, other = emulator.seats
    s3, other_s3 = client("s3", seat), client("s3", other)
    first = root(emulator).fork(seat)
    s3.create_bucket(Bucket="kept")
    template = first.fork()  # serves nothing: a state to copy
    s3.create_bucket(Bucket="only-in-the-first")
    first.close()
    copies = [template.fork(seat), template.fork(other)]
    try:
        assert buckets(s3) == ["kept"]  # the same client: its old connection was hung up, it reconnected
        s3.create_bucket(Bucket="only-in-this-copy")
        assert buckets(other_s3) == ["kept"]
        assert buckets(s3) == ["kept", "only-in-this-copy"]
    finally:
        for state in [*copies, template]:
            state.close()


def test_copies_seeded_alike_create_the_same_ids_and_the_root_stays_empty(emulator: Emulator) -> None:
    seat = emulator.seats[0]
    ec2 = client("ec2", seat)
    made = []
    for _ in range(2):
        copy = root(emulator).fork(seat, seed=7)
        try:
            assert all(vpc["IsDefault"] for vpc in ec2.describe_vpcs()["Vpcs"])  # built here, after the seed
            made.append(ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"])
        finally:
            copy.close()
    assert made[0] == made[1]


def test_a_spare_put_on_a_seat_serves_as_a_copy_forked_there_would(emulator: Emulator) -> None:
    seat = emulator.seats[0]
    s3, ec2 = client("s3", seat), client("ec2", seat)
    first = root(emulator).fork(seat)
    s3.create_bucket(Bucket="kept")
    template = first.fork()
    first.close()
    spare = template.fork()  # serves nothing yet
    made = []
    try:
        for copy in (spare, None):
            if copy is None:
                copy = template.fork(seat, seed=7)
            else:
                spare.serve(seat, seed=7)
            try:
                assert buckets(s3) == ["kept"]
                made.append(ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"])
            finally:
                copy.close()
        assert made[0] == made[1]
        with pytest.raises(EmulatorError, match="did not serve"):
            root(emulator).serve(seat, 1)  # the root copies, it never serves
    finally:
        template.close()


def test_a_seat_handed_over_is_served_by_a_copy_and_the_giver_is_a_template_that_serves_again(
    emulator: Emulator,
) -> None:
    seat, other = emulator.seats
    s3, other_s3 = client("s3", seat), client("s3", other)
    giver = root(emulator).fork(seat)
    s3.create_bucket(Bucket="before")
    taker = giver.hand_over(seat)
    copy = None
    try:
        assert buckets(s3) == ["before"]  # the same client, reconnected to the copy that serves the seat now
        s3.create_bucket(Bucket="only-in-the-taker")
        copy = giver.fork(other)  # the giver serves nothing now: a template of the state before the hand-over
        assert buckets(other_s3) == ["before"]
        copy.close()
        taker.close()
        giver.serve(other, seed=7)  # ... which may serve again, on any seat
        copy = root(emulator).fork(seat)  # the giver's old server must take nothing from the seat it handed over
        assert buckets(s3) == []
        assert buckets(other_s3) == ["before"]
        idle = copy.fork()
        with pytest.raises(EmulatorError, match="did not fork"):
            idle.hand_over(seat)  # only a serving copy can hand a seat over
        idle.close()
    finally:
        for state in (copy, taker, giver):
            if state is not None:
                state.close()


def amazon_snapshots_made_at(ec2) -> datetime.datetime:
    """When this copy's EC2 backend made its AMI catalogue (the snapshots of Amazon's images, to the second)."""
    return ec2.describe_snapshots(OwnerIds=["amazon"])["Snapshots"][0]["StartTime"]


def test_a_backend_built_ahead_is_taken_by_a_copy_seeded_alike_and_makes_the_same_ids(emulator: Emulator) -> None:
    seat = emulator.seats[0]
    ec2 = client("ec2", seat)
    prepared, plain = root(emulator).fork(), root(emulator).fork()
    made: dict[tuple[str, int], tuple[str, datetime.datetime]] = {}
    try:
        prepared.prepare(7, ["ec2", "s3"])  # s3: not worth building ahead, ignored
        prepared.fork().close()  # a command answered after the build: it is done
        time.sleep(2.1)
        built_later = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)
        for name, template in (("prepared", prepared), ("plain", plain)):
            for seed in (7, 8):
                copy = template.fork(seat, seed)
                try:
                    vpc = ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
                    made[name, seed] = (vpc, amazon_snapshots_made_at(ec2))
                finally:
                    copy.close()
    finally:
        prepared.close()
        plain.close()
    assert made["prepared", 7][0] == made["plain", 7][0]  # the same ids, built ahead or not
    assert made["prepared", 7][1] < built_later  # ... and it was built ahead
    assert made["prepared", 8][0] == made["plain", 8][0]  # another seed: built by the copy itself
    assert made["prepared", 8][1] >= built_later
    assert made["plain", 7][1] >= built_later
    assert made["plain", 7][0] != made["plain", 8][0]


def test_a_closed_copy_hangs_up_so_a_kept_alive_client_does_not_wait(emulator: Emulator) -> None:
    seat = emulator.seats[0]
    s3 = client("s3", seat)
    for name in ("one", "two", "three"):
        copy = root(emulator).fork(seat)
        started = time.monotonic()
        s3.create_bucket(Bucket=name)
        assert buckets(s3) == [name]
        copy.close()
        assert time.monotonic() - started < 5  # a stale connection would wait for the client's timeout


def test_the_environment_given_reaches_moto() -> None:
    with Emulator(1, env={"MOTO_ACCOUNT_ID": "210987654321"}) as emulator:
        seat = emulator.seats[0]
        copy = root(emulator).fork(seat)
        sts = client("sts", seat)
        assert sts.get_caller_identity()["Account"] == "210987654321"
        copy.close()


def test_nothing_serves_or_runs_after_the_emulator_ends() -> None:
    with Emulator(1) as emulator:
        seat = emulator.seats[0]
        copy = root(emulator).fork(seat)  # left open on purpose: the emulator stops it
        pids = [root(emulator).pid, copy.pid]
        assert buckets(client("s3", seat)) == []
    port = int(seat.endpoint_url.rsplit(":", 1)[1])
    deadline = time.monotonic() + 10
    while (any(alive(pid) for pid in pids) or listening(port)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)
    assert not listening(port)


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), 2).close()
        return True
    except OSError:
        return False


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class CountingServer:
    """What `_accept` needs of a server: its listening socket, and a handler that takes one connection."""

    def __init__(self, listener: socket.socket) -> None:
        self.listener = listener
        self.handled = 0
        self.timeout: float | None = None

    def fileno(self) -> int:
        return self.listener.fileno()

    def handle_request(self) -> None:
        self.listener.settimeout(self.timeout)
        with contextlib.suppress(OSError):
            self.listener.accept()[0].close()
            self.handled += 1


def test_a_copy_that_stopped_accepting_leaves_new_connections_to_the_next() -> None:
    """A serving copy that is ending must not take the next copy's connection on the port they share."""
    stop = threading.Event()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        server = CountingServer(listener)
        accepting = threading.Thread(target=emulator_module._accept, args=(server, stop), daemon=True)
        accepting.start()
        socket.create_connection(listener.getsockname(), 2).close()
        deadline = time.monotonic() + 5
        while server.handled == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.handled == 1
        stop.set()
        with socket.create_connection(listener.getsockname(), 2):
            accepting.join(5)
            assert not accepting.is_alive()
            assert server.handled == 1
            listener.settimeout(2)
            listener.accept()[0].close()  # still waiting for whoever serves next
