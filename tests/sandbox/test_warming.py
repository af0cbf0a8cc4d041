"""What the pool readies ahead of its jobs: the four caches' rules and bounds, without a process."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.core.contract import Operation
from harness.sandbox.warming import MAX_LABS, MAX_REHEARSED, MAX_WARM, LabNames, Recent, Warming, named_by


def lab(directory: str, kit: Iterable[str] = (), services: Iterable[str] = ()) -> LabNames:
    return LabNames(directory, frozenset(kit), frozenset(services))


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
    assert warming.services() == {"s3", "ec2", "iam"}


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
    reads = [Operation(service="svc10", operation=f"Describe{i}", allowed=True) for i in range(MAX_REHEARSED + 5)]
    warming.used_operations(reads)
    assert list(warming.rehearsals) == [("svc10", f"Describe{i}") for i in range(5, MAX_REHEARSED + 5)]


def test_a_pair_already_warm_keeps_its_place_when_a_lab_names_it_and_is_renewed_when_an_evaluation_used_it() -> None:
    warming = Warming()
    warming.expect([lab("/a", services={"s3", "sqs"})], None)
    warming.expect([lab("/b", services={"s3"})], None)
    assert list(warming.clients) == [("s3", "us-east-1"), ("sqs", "us-east-1")]
    warming.used_clients([["s3", "us-east-1"]])
    assert list(warming.clients) == [("sqs", "us-east-1"), ("s3", "us-east-1")]


def test_an_evaluations_claim_of_its_clients_keeps_only_well_formed_pairs_among_its_first_few() -> None:
    warming = Warming()
    warming.used_clients("s3")  # not a list: ignored
    warming.used_clients({"s3": "us-east-1"})
    assert len(warming.clients) == 0
    claim = [
        ["S3!", "us-east-1"],
        ["s3", "moon-base-1x"],
        ["s3"],
        ("s3", "us-east-1"),
        [3, "us-east-1"],
        ["sqs", "eu-west-1", "extra"],
        ["dynamodb", "eu-west-1"],
    ]
    warming.used_clients(claim)
    assert list(warming.clients) == [("dynamodb", "eu-west-1")]
    flood = [[f"svc{i:02d}", "us-east-1"] for i in range(MAX_WARM * 4)]
    warming.used_clients(flood)
    assert [service for service, _ in warming.clients] == [f"svc{i:02d}" for i in range(MAX_WARM)]


def test_only_reads_the_gateway_let_through_on_a_warm_service_are_rehearsed() -> None:
    warming = Warming()
    warming.expect([lab("/a", services={"s3"})], None)
    warming.used_operations(
        [
            Operation(service="s3", operation="ListBuckets", allowed=True),
            Operation(service="s3", operation="DeleteBucket", allowed=False),
            Operation(service="ec2", operation="DescribeVpcs", allowed=True),
            Operation(service="s3", operation="GetBucketPolicy", allowed=True),
            Operation(service="s3", operation="ListBuckets", allowed=True),  # again: the newest
        ]
    )
    assert list(warming.rehearsals) == [("s3", "GetBucketPolicy"), ("s3", "ListBuckets")]


def test_the_preparation_carries_clients_imports_and_rehearsals_in_order() -> None:
    warming = Warming()
    warming.expect([lab("/a", {"harness.kit.s3"}, {"s3"})], "eu-west-1")
    warming.used_operations([Operation(service="s3", operation="ListBuckets", allowed=True)])
    assert warming.preparation() == {
        "warm": [("s3", "eu-west-1")],
        "imports": ["harness.kit.s3"],
        "rehearse": [("s3", "ListBuckets")],
    }


def test_what_a_lab_names_is_read_from_its_files_and_only_the_kits_own_modules_count(tmp_path: Path) -> None:
    step = tmp_path / "evaluation" / "boto3" / "01_01.py"
    helper = tmp_path / "evaluation" / "boto3" / "_lib" / "common.py"
    helper.parent.mkdir(parents=True)
    step.write_text("from harness.kit import sqs, nonexistent_module_here\nsession.client('dynamodb')\n")
    helper.write_text("def make(session):\n    return session.resource('s3')\n")
    names = named_by(str(tmp_path / "evaluation"))
    assert names.directory == str(tmp_path / "evaluation")
    assert "harness.kit.sqs" in names.kit and "harness.kit.nonexistent_module_here" not in names.kit
    assert all(module.startswith("harness.kit.") for module in names.kit)
    assert {"dynamodb", "s3", "sqs"} <= names.services  # sqs: named by the kit module the step imports
    assert named_by(str(tmp_path / "evaluation"), services=False) == LabNames(names.directory, names.kit, frozenset())
