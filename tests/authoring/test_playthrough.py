"""The playthrough engine on a lab of its own (tests/labs/scenario_checks), some of it wrong on purpose."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from harness.authoring.emulator import Emulator, MotoState, Seat
from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import Lane, ScenarioResult, play, play_lanes
from harness.core.account import Account, Credentials
from harness.core.errors import LabError
from harness.core.lab import Lab, load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from tests.authoring.replay_reference import replayed_playthrough
from tests.conftest import LABS, REGION

pytestmark = [pytest.mark.process, pytest.mark.moto]

LAB_DIR = LABS / "scenario_checks"
REPO = Path(__file__).parents[2]
Played = dict[tuple[str, str], ScenarioResult]


def play_lab(lab: Lab, pool: WorkerPool, **options) -> list[ScenarioResult]:
    return play(lab, Runner(lab, pool), **options)


@pytest.fixture(scope="module")
def played(pool: WorkerPool) -> Played:
    """The whole lab played once (on moto processes of its own)."""
    results = play_lab(load_lab(LAB_DIR), pool)
    return {(r.step, r.scenario): r for r in results}


def copied_lab(tmp_path: Path) -> Path:
    return Path(shutil.copytree(LAB_DIR, tmp_path / "lab"))


def test_every_scenario_is_played_in_order_and_judged(played: Played) -> None:
    summary = [(step, name, r.kind, r.got, r.ok) for (step, name), r in played.items()]
    assert summary == [
        ("01.01", "untouched account", "negative", "fail", True),
        ("01.01", "versioning_off", "mistake", "fail", True),
        ("01.01", "plain_bucket_first", "mistake", "pass", True),
        ("01.01", "versioned_after_all", "mistake", "pass", False),
        ("01.01", "bucket_deleted", "mistake", "fail", True),
        ("01.01", "typo_in_scenario", "mistake", "broken", False),
        ("01.01", "versioned_bucket", "solve", "pass", True),
        ("01.02", "untouched account", "negative", "pass", False),
        ("01.02", "no_policy", "mistake", "pass", False),
        ("01.02", "public_read_policy", "solve", "pass", True),
        ("02.01", "untouched account", "negative", "fail", True),
        ("02.01", "wrong_cidr", "mistake", "fail", True),
        ("02.01", "vpc", "solve", "pass", True),
        ("02.02", "untouched account", "negative", "fail", True),
        ("02.02", "subnet_in_another_vpc", "mistake", "fail", True),
        ("02.02", "subnet", "solve", "pass", True),
        ("02.03", "untouched account", "negative", "fail", True),
        ("02.03", "gateway_not_attached", "mistake", "fail", True),
        ("02.03", "attached_gateway", "solve", "broken", False),
    ]


def test_an_evaluator_that_passes_the_untouched_account_is_reported(played: Played) -> None:
    result = played["01.02", "untouched account"]
    assert (result.expected, result.got, result.ok) == ("fail", "pass", False)
    assert result.events == ()


def test_a_mistake_that_passes_is_reported(played: Played) -> None:
    result = played["01.01", "versioned_after_all"]
    assert (result.expected, result.expected_issue, result.got, result.ok) == ("fail", "(?i)versioning", "pass", False)


def test_a_failure_with_the_expected_issue_is_ok(played: Played) -> None:
    result = played["01.01", "versioning_off"]
    assert result.ok and result.issue == "Versioning is not enabled on checks-site."


def test_a_scenario_that_raises_is_broken_not_an_evaluator_verdict(played: Played) -> None:
    for key in (("02.03", "attached_gateway"), ("01.01", "typo_in_scenario")):
        result = played[key]
        assert result.got == "broken" and not result.ok and result.answer is None
        assert f"{key[1]} raised" in result.detail and "Traceback" in result.detail
    assert "RuntimeError: this solve was never finished" in played["02.03", "attached_gateway"].detail


def test_recorded_events_are_what_the_scenario_created_and_reach_the_evaluator(played: Played) -> None:
    result = played["01.01", "versioning_off"]
    created = [{"type": "AWS::S3::Bucket", "id": "checks-site"}]
    assert [e.model_dump() for e in result.events] == created
    assert result.answer.message == f"events: {json.dumps(created)}"
    mistake = played["02.02", "subnet_in_another_vpc"]
    assert [e.type for e in mistake.events] == ["AWS::EC2::VPC", "AWS::EC2::Subnet"]


def test_reversed_events_reach_the_evaluator_reversed(played: Played) -> None:
    result = played["01.01", "plain_bucket_first"]
    expected = [{"type": "AWS::S3::Bucket", "id": "checks-site"}, {"type": "AWS::S3::Bucket", "id": "checks-plain"}]
    assert [e.model_dump() for e in result.events] == expected
    assert result.answer.message == f"events: {json.dumps(expected)}"


def test_a_mistake_after_the_solve_records_the_solves_events_too(played: Played) -> None:
    result = played["01.01", "bucket_deleted"]
    assert [e.id for e in result.events] == ["checks-site"]
    assert result.ok and result.issue == "No bucket from this step exists."


def test_handles_carry_forward_into_replayed_steps(played: Played) -> None:
    vpc = played["02.01", "vpc"].answer.resolved[0]
    subnet = played["02.02", "subnet"]
    assert subnet.ok
    assert [h.id for h in subnet.answer.resolved] == [subnet.events[0].id]
    assert played["02.02", "subnet_in_another_vpc"].issue == f"No subnet of this step is in the VPC {vpc.id}."


def test_select_plays_one_step_after_solving_the_earlier_ones(pool: WorkerPool) -> None:
    results = play_lab(load_lab(LAB_DIR), pool, select=lambda key: key == "02.02")
    assert [(r.step, r.scenario, r.ok) for r in results] == [
        ("02.02", "untouched account", True),
        ("02.02", "subnet_in_another_vpc", True),
        ("02.02", "subnet", True),
    ]


def test_nothing_is_replayed_so_a_solve_may_name_things_at_random(tmp_path: Path, pool: WorkerPool) -> None:
    lab_dir = copied_lab(tmp_path)
    (lab_dir / "scenarios" / "01_01.py").write_text(
        "import uuid\n"
        "from harness.authoring.scenarios import solve\n\n\n"
        "@solve\n"
        "def random_name(aws, handles):\n"
        "    name = f'checks-{uuid.uuid4().hex[:8]}'\n"
        "    aws.client('s3').create_bucket(Bucket=name)\n"
        "    aws.client('s3').put_bucket_versioning(Bucket=name, VersioningConfiguration={'Status': 'Enabled'})\n"
    )
    results = play_lab(load_lab(lab_dir), pool, select=lambda key: key == "01.02")
    assert [(r.scenario, r.got) for r in results] == [
        ("untouched account", "pass"),  # the lenient evaluator
        ("no_policy", "pass"),
        ("public_read_policy", "pass"),
    ]
    bucket = results[-1].answer.resolved[0].id
    assert bucket.startswith("checks-") and bucket != "checks-site"


def test_a_solve_that_raises_breaks_the_later_steps_scenarios_not_the_playthrough(
    tmp_path: Path, pool: WorkerPool
) -> None:
    lab_dir = copied_lab(tmp_path)
    (lab_dir / "scenarios" / "01_01.py").write_text(
        "from harness.authoring.scenarios import solve\n\n\n@solve\ndef half_done(aws, handles):\n"
        "    aws.client('s3').create_bucket(Bucket='checks-site')\n    raise RuntimeError('not finished')\n"
    )
    results = play_lab(load_lab(lab_dir), pool, select=lambda key: key == "01.02")
    assert [(r.scenario, r.got) for r in results] == [
        ("half_done", "broken"),
        ("untouched account", "fail"),  # evaluated on what the broken solve left, as before
        ("no_policy", "broken"),
        ("public_read_policy", "broken"),
    ]
    assert all("step 01.01's solve did not complete" in r.detail and "not finished" in r.detail for r in results[2:])


@pytest.mark.parametrize(
    ("file_name", "text", "problem"),
    [
        ("09_09.py", "", "no step 09.09 in this lab"),
        ("helpers.py", "", "not a step key"),
        ("02_01.py", "from harness.authoring.scenarios import mistake\n", "needs exactly one @solve (found 0)"),
        ("02_01.py", "import nowhere_to_be_found\n", "import failed"),
        (
            "02_01.py",
            "from harness.authoring.scenarios import solve\n"
            "@solve\ndef a(aws, handles): pass\n@solve\ndef b(aws, handles): pass\n",
            "needs exactly one @solve (found 2: a, b)",
        ),
        (
            "02_01.py",
            "from harness.authoring.scenarios import mistake, solve\n@solve\ndef a(aws, handles): pass\n"
            "@mistake(issue='(unclosed')\ndef b(aws, handles): pass\n",
            "b: issue pattern '(unclosed' is not a regex",
        ),
    ],
)
def test_a_wrong_scenario_file_is_a_lab_error_naming_it(
    tmp_path: Path, pool: WorkerPool, file_name: str, text: str, problem: str
) -> None:
    lab_dir = copied_lab(tmp_path)
    (lab_dir / "scenarios" / file_name).write_text(text)
    with pytest.raises(LabError) as error:
        play_lab(load_lab(lab_dir), pool)
    assert len(error.value.problems) == 1
    assert str(lab_dir / "scenarios" / file_name) in error.value.problems[0]
    assert problem in error.value.problems[0]


def test_a_step_without_a_scenario_file_is_a_lab_error(tmp_path: Path, pool: WorkerPool) -> None:
    lab_dir = copied_lab(tmp_path)
    (lab_dir / "scenarios" / "02_01.py").unlink()
    said = r"solution/boto3/02_01\.py: missing: step 02\.01 needs a solution \(or a @solve in scenarios/02_01\.py\)"
    with pytest.raises(LabError, match=said):
        play_lab(load_lab(lab_dir), pool)
    assert play_lab(load_lab(lab_dir), pool, select=lambda key: key == "01.01")


def test_a_scenario_may_add_events_explicitly(tmp_path: Path, pool: WorkerPool) -> None:
    lab_dir = tmp_path / "lab"
    shutil.copytree(LAB_DIR, lab_dir)
    with (lab_dir / "scenarios" / "01_01.py").open("a") as scenarios:
        scenarios.write(
            "\n\nSTALE = {'type': 'AWS::S3::Bucket', 'id': 'never-made'}\n"
            "@mistake(issue=r'.', events=lambda events: [STALE, *events])\n"
            "def stale_event_first(aws, handles):\n"
            "    _versioned_bucket(aws, 'checks-site')\n"
        )
    results = play_lab(load_lab(lab_dir), pool, select=lambda key: key == "01.01")
    stale = next(r for r in results if r.scenario == "stale_event_first")
    assert [e.id for e in stale.events] == ["never-made", "checks-site"]
    assert stale.answer is not None and '"never-made"' in stale.answer.message  # the evaluator echoes its events
    assert stale.got == "fail"  # it judges the first bucket event only, and that bucket does not exist


def comparable(result: ScenarioResult) -> tuple:
    """Everything a result says but how long it took (the answer's, and each AWS operation's)."""
    timings = {"duration_ms": True, "diagnostics": {"operations": {"__all__": {"ms"}}}}
    answer = result.answer.model_dump(exclude=timings) if result.answer else None
    return (
        *(
            getattr(result, name)
            for name in ScenarioResult.__dataclass_fields__
            if name not in ("duration_ms", "answer")
        ),
        answer,
    )


def test_lanes_give_the_same_results_in_the_same_order_as_one_server(played: Played) -> None:
    lab = load_lab(LAB_DIR)
    reported: list[ScenarioResult] = []
    with moto_lanes(lab, 2) as lanes:
        results = play_lanes(lab, lanes, on_result=reported.append)
    assert reported == results
    assert [comparable(r) for r in results] == [comparable(r) for r in played.values()]


def test_lanes_select_like_one_server(pool: WorkerPool) -> None:
    lab = load_lab(LAB_DIR)
    one = play_lab(lab, pool, select=lambda key: key == "02.02")
    with moto_lanes(lab, 2) as lanes:
        two = play_lanes(lab, lanes, select=lambda key: key == "02.02")
    assert [comparable(r) for r in two] == [comparable(r) for r in one]


def test_the_first_lane_ends_with_what_the_last_solve_left() -> None:
    lab = load_lab(LAB_DIR)
    with moto_lanes(lab, 2) as lanes:
        results = play_lanes(lab, lanes, select=lambda key: key == "01.01")
        first = boto3_client("s3", lanes[0].account)
        assert [b["Name"] for b in first.list_buckets()["Buckets"]] == ["checks-site"]
        assert first.get_bucket_versioning(Bucket="checks-site")["Status"] == "Enabled"
    assert results[-1].kind == "solve" and results[-1].ok


def test_a_lanes_session_is_made_with_its_clients_while_moto_starts_and_records_what_they_create() -> None:
    lab = load_lab(LAB_DIR)
    with moto_lanes(lab, 2) as lanes:
        assert all(lane.session is not None for lane in lanes)
        acting = lanes[0].session
        assert acting is not None
        s3 = acting.session.client("s3")  # made ahead, after the recorder was attached
        assert s3 is acting.session.client("s3")
        assert lanes[0].seat.emulator.root is not None
        copy = lanes[0].seat.emulator.root.fork(lanes[0].seat)
        try:
            acting.recorder.start()
            s3.create_bucket(Bucket="made-ahead")
            assert [e["id"] for e in acting.recorder.events] == ["made-ahead"]
        finally:
            copy.close()


def boto3_client(service: str, sandbox: Account):
    import boto3

    from harness.inside.session import client_config

    return boto3.client(
        service,
        endpoint_url=sandbox.endpoint_url,
        region_name=sandbox.region,
        aws_access_key_id=sandbox.credentials.access_key,
        aws_secret_access_key=sandbox.credentials.secret_key,
        config=client_config(sandbox.endpoint_url),
    )


def reachable(endpoint_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{endpoint_url}/moto-api/", timeout=5):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def test_seats_serve_on_loopback_and_nothing_is_left_after_even_on_an_exception() -> None:
    with pytest.raises(RuntimeError, match="on purpose"), Emulator(2) as emulator:
        assert emulator.root is not None
        copies = [emulator.root.fork(seat) for seat in emulator.seats]
        endpoints = [seat.endpoint_url for seat in emulator.seats]
        assert len(set(endpoints)) == 2
        assert all(url.startswith("http://127.0.0.1:") for url in endpoints)
        assert all(reachable(url) for url in endpoints)
        raise RuntimeError("on purpose")
    assert copies and not any(reachable(url) for url in endpoints)


class BrokenRunner:
    """A runner whose evaluations raise, as a worker pool that broke would."""

    def evaluate(self, *_: object, **__: object) -> None:
        raise RuntimeError("the evaluation broke")


def test_a_lane_that_breaks_stops_the_playthrough_with_its_error(pool: WorkerPool) -> None:
    lab = load_lab(LAB_DIR)
    with Emulator(2) as emulator:
        first, second = emulator.seats
        lanes = [Lane(Runner(lab, pool), first, first.sandbox())]
        lanes.append(Lane(BrokenRunner(), second, second.sandbox()))  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="the evaluation broke"):
            play_lanes(lab, lanes)


@pytest.mark.parametrize(
    ("lab_dir", "steps"),
    [
        (LAB_DIR, ("01.02", "02.01", "02.02")),  # not the steps with a scenario that raises
        (REPO, ("02.01", "03.02")),  # the sample lab: its first EC2 step, and its last (all 7 earlier solves)
    ],
    ids=["scenario_checks", "sample"],
)
def test_copies_answer_exactly_as_reset_and_replay_did(
    lab_dir: Path, steps: tuple[str, ...], moto_url: str, pool: WorkerPool
) -> None:
    """Answer by answer, ids included: copies of the state before a step against moto reset and the earlier
    solves replayed (tests/authoring/replay_reference.py, the playthrough as it was)."""
    lab = load_lab(lab_dir)
    select = steps.__contains__
    sandbox = Account(Credentials("testing", "testing"), REGION, moto_url)
    replayed = replayed_playthrough(lab, Runner(lab, pool), sandbox, select)
    with moto_lanes(lab, 2) as lanes:
        copied = play_lanes(lab, lanes, select=select)
    assert [r.kind for r in copied].count("solve") == len(steps)
    assert [comparable(r) for r in copied] == [comparable(r) for r in replayed]


class FakeState:
    """What `StateTemplate` asks of a moto state: forks (noted), serve, close."""

    def __init__(self, made: list[str]) -> None:
        self.made = made
        self.served: tuple | None = None
        self.closed = False

    def fork(self, seat=None, seed=None) -> FakeState:
        self.made.append("fork on a seat" if seat is not None else "spare")
        copy = FakeState(self.made)
        copy.served = (seat, seed) if seat is not None else None
        return copy

    def serve(self, seat, seed=None) -> None:
        assert self.served is None
        self.served = (seat, seed)

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("closes", [True, False])
def test_a_template_forks_its_copies_ahead_and_makes_no_more_than_it_owes(closes: bool) -> None:
    """Five copies owed: the root forks all five (its solve's included); a template that closes forks four, and
    its solve, played last here, takes the state itself (no keeper: nothing is owed after it)."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.authoring.states import StateTemplate

    made: list[str] = []
    state = FakeState(made)
    with ThreadPoolExecutor(2) as making:
        template = StateTemplate(state, 5, making, 2, closes=closes)  # type: ignore[arg-type]
        copies = [template.copy("seat", seed) for seed in range(4)]  # type: ignore[arg-type]
        solved = template.take("seat", 4)  # type: ignore[arg-type]
    assert [c.served for c in [*copies, solved]] == [("seat", seed) for seed in range(5)]
    assert made == ["spare"] * (4 if closes else 5)  # every copy made ahead, none wasted
    assert (solved is state) is closes and not state.closed


def test_a_solve_takes_its_templates_state_whose_copies_come_from_a_keeper_and_spares_made_before() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from harness.authoring.states import StateTemplate

    made: list[str] = []
    state = FakeState(made)
    with ThreadPoolExecutor(2) as making:
        template = StateTemplate(state, 5, making, 2)  # type: ignore[arg-type]
        taken = template.take("seat", 9)  # type: ignore[arg-type]
        copies = [template.copy("seat", seed) for seed in range(4)]  # type: ignore[arg-type]
    assert taken is state and state.served == ("seat", 9) and not state.closed
    assert made[:3] == ["spare", "spare", "spare"]  # two spares made ahead, then the keeper, before it serves
    assert made.count("spare") == 5  # ... and two more spares of the keeper: nothing more than owed
    assert [c.served for c in copies] == [("seat", seed) for seed in range(4)]
    keeper = template.state
    assert keeper is not state and keeper.served is None and keeper.closed  # closed after the last copy it owed


def test_a_step_whose_only_copy_is_its_solves_forks_nothing() -> None:
    """A step played only for its handles (not selected) has its solve take the state: no spare, no keeper."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.authoring.states import StateTemplate

    made: list[str] = []
    state = FakeState(made)
    with ThreadPoolExecutor(2) as making:
        taken = StateTemplate(state, 1, making, 2).take("seat", 3)  # type: ignore[arg-type]
    assert taken is state and state.served == ("seat", 3) and made == []


def test_the_root_is_never_taken_its_solve_gets_a_copy() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from harness.authoring.states import StateTemplate

    made: list[str] = []
    root = FakeState(made)
    with ThreadPoolExecutor(1) as making:
        taken = StateTemplate(root, 1, making, 1, closes=False).take("seat", 1)  # type: ignore[arg-type]
    assert taken is not root and taken.served == ("seat", 1) and root.served is None


def test_no_moto_state_is_more_than_three_forks_from_the_root_however_deep_the_lab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each solve acts on the state before its step itself and hands its seat over for its evaluation, so the same
    process is the next step's template: the kernel's work at each fork and exit, which grows with how many forks
    a process is from the first (each memory area links to every ancestor's), does not grow with the lab's depth."""
    generation: dict[int, int] = {}
    copied = MotoState._copied

    def counted(state: MotoState, request: str, seat: Seat | None) -> MotoState:
        made = copied(state, request, seat)
        generation[made.pid] = generation.get(state.pid, 0) + 1
        return made

    monkeypatch.setattr(MotoState, "_copied", counted)
    lab = load_lab(REPO)  # the sample lab: 8 steps
    with moto_lanes(lab, 2) as lanes:
        results = play_lanes(lab, lanes)
    assert all(r.ok for r in results) and len({r.step for r in results}) == 8
    assert max(generation.values()) == 3  # a copy of a keeper of a template the first solve acted on
