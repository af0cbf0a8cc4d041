"""What the pool readies ahead of its jobs: the four caches' rules and bounds, without a process."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.sandbox.warming import MAX_LABS, MAX_REHEARSED, MAX_WARM, LabNames, Recent, Warming, lab_names


def lab(
    directory: str, kit: Iterable[str] = (), services: Iterable[str] = (), calls: Iterable[tuple[str, str]] = ()
) -> LabNames:
    return LabNames(directory, frozenset(kit), frozenset(services), tuple(calls))


def test_recent_keeps_the_newest_within_its_bound_and_renews_only_when_told() -> None:
    recent: Recent[str] = Recent(3)
    recent.put(["a", "b", "c"], renew=False)
    recent.put(["a"], renew=False)  # keeps its place: still the oldest
    recent.put(["d"], renew=False)
    assert list(recent) == ["b", "c", "d"]
    recent.put(["b", "e"], renew=True)  # b becomes the newest: c goes
    assert list(recent) == ["d", "b", "e"] and len(recent) == 3 and "c" not in recent
    unbounded: Recent[int] = Recent(None)
    unbounded.put(range(1000), renew=True)
    assert len(unbounded) == 1000


def test_expected_labs_are_held_newest_first_imported_and_their_services_warmed_in_the_region() -> None:
    warming = Warming()
    warming.expect([lab("/a", {"harness.kit.s3"}, {"s3"}), lab("/b", {"harness.kit.ec2"}, {"ec2", "iam"})], "eu-west-1")
    warming.expect([lab("/a")], "eu-west-1")  # told again: the newest
    assert list(warming.labs) == ["/b", "/a"]
    assert list(warming.imports) == ["harness.kit.s3", "harness.kit.ec2"]
    assert list(warming.clients) == [("s3", "eu-west-1"), ("ec2", "eu-west-1"), ("iam", "eu-west-1")]


def test_a_missing_or_malformed_region_warms_the_default_one() -> None:
    warming = Warming()
    warming.expect([lab("/a", services={"s3"})], None)
    warming.expect([lab("/b", services={"sqs"})], "not a region")
    assert list(warming.clients) == [("s3", "us-east-1"), ("sqs", "us-east-1")]


def test_each_cache_holds_at_most_its_bound_and_drops_the_oldest() -> None:
    warming = Warming()
    warming.expect([lab(f"/lab{i}") for i in range(MAX_LABS + 3)], None)
    assert list(warming.labs) == [f"/lab{i}" for i in range(3, MAX_LABS + 3)]
    warming.expect_paths([f"/job{i}" for i in range(2)])  # a job's own lab, no spare held: expected too
    assert len(warming.labs) == MAX_LABS and list(warming.labs)[-2:] == ["/job0", "/job1"]
    warming.expect([lab("/many", services={f"svc{i:02d}" for i in range(MAX_WARM + 4)})], None)
    assert [service for service, _ in warming.clients] == [f"svc{i:02d}" for i in range(4, MAX_WARM + 4)]
    calls = [("svc10", f"describe_{i}") for i in range(MAX_REHEARSED + 5)]
    warming.expect([lab("/calls", calls=calls)], None)
    assert list(warming.rehearsals) == calls[5:]


def test_nothing_an_evaluation_does_is_warmed_only_what_the_labs_name() -> None:
    """issue 25: the clients an evaluation reported (their regions its choice) and the reads the gateway logged for
    it were warmed for the next evaluations, a channel between them. Warming has no input for them any more."""
    assert not any(hasattr(Warming, name) for name in ("used_clients", "used_operations"))
    warming = Warming()
    warming.expect([lab("/a", services={"s3"}, calls=[("s3", "list_buckets")])], "eu-west-1")
    assert list(warming.clients) == [("s3", "eu-west-1")] and list(warming.rehearsals) == [("s3", "list_buckets")]


def test_the_preparation_carries_clients_imports_and_rehearsals_in_order() -> None:
    warming = Warming()
    warming.expect([lab("/a", {"harness.kit.s3"}, {"s3"}, [("s3", "list_buckets")])], "eu-west-1")
    assert warming.preparation() == {
        "warm": [("s3", "eu-west-1")],
        "imports": ["harness.kit.s3"],
        "rehearse": [("s3", "list_buckets")],
    }


def test_what_a_lab_names_is_read_from_its_files_and_only_the_kits_own_modules_count(tmp_path: Path) -> None:
    step = tmp_path / "evaluation" / "boto3" / "01_01.py"
    helper = tmp_path / "evaluation" / "boto3" / "_lib" / "common.py"
    helper.parent.mkdir(parents=True)
    step.write_text(
        "from harness.kit import sqs, nonexistent_module_here\nsession.client('dynamodb').describe_table(T='x')\n"
    )
    helper.write_text("def make(session):\n    return session.resource('s3')\n")
    names = lab_names(str(tmp_path / "evaluation"))
    assert names.directory == str(tmp_path / "evaluation")
    assert "harness.kit.sqs" in names.kit and "harness.kit.nonexistent_module_here" not in names.kit
    assert all(module.startswith("harness.kit.") for module in names.kit)
    assert {"dynamodb", "s3", "sqs"} <= names.services  # sqs: named by the kit module the step imports
    assert names.calls[0] == ("dynamodb", "describe_table")  # the lab's own files first, then the kit's
    assert any(service == "sqs" for service, _ in names.calls[1:])  # the kit module's
    assert lab_names(str(tmp_path / "evaluation"), services=False) == LabNames(names.directory, names.kit, frozenset())


def test_only_the_step_modules_named_are_read_with_the_labs_shared_helpers(tmp_path: Path) -> None:
    """`stepeval run` readies what its one step's module names (and the lab's `_lib`), not every step's."""
    steps = tmp_path / "evaluation" / "boto3"
    (steps / "_lib").mkdir(parents=True)
    (steps / "01_01.py").write_text("session.client('dynamodb').describe_table(TableName='t')\n")
    (steps / "01_02.py").write_text("from harness.kit import sqs\nsession.client('ec2').describe_vpcs()\n")
    (steps / "_lib" / "common.py").write_text("def make(session):\n    return session.resource('s3')\n")
    directory = str(tmp_path / "evaluation")
    whole = lab_names(directory)
    assert {"dynamodb", "ec2", "s3", "sqs"} <= whole.services and "harness.kit.sqs" in whole.kit
    one = lab_names(directory, modules=[str(steps / "01_01.py")])
    assert one == LabNames(directory, frozenset(), frozenset({"dynamodb", "s3"}), (("dynamodb", "describe_table"),))
    assert lab_names(directory, modules=[str(steps / "09_09.py")]).services == {"s3"}  # no such module: the helpers
