"""`stepeval demo`: the two sample labs played on moto servers on loopback, no AWS account, no network.

Every step of the web-tier lab is checked on the untouched account, on each common mistake and on its solve; two
answers are shown in full; a module that tries to write is refused and the learner's bucket policy is shown
untouched. Then the serverless lab (labs/serverless-api) is played the same way, one answer shown. The labs are
the checkout's, or (an installed wheel) the copies setup.py put in harness/samples/.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import boto3
from rich.console import Console

from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import Lane, ScenarioResult
from harness.commands.console import output_console
from harness.commands.render import answer_panel, kind_shown
from harness.commands.testrun import plain, play_live, report
from harness.core.account import Account
from harness.core.contract import Answer, ContextInput, Event
from harness.core.errors import BadInput
from harness.core.lab import Lab, load_lab
from harness.inside.session import client_config
from harness.sandbox.pool import LOG_LEVEL_ENV, WorkerPool
from harness.sandbox.runner import Runner

PACKAGED = Path(__file__).resolve().parents[1] / "samples"  # an installed wheel's copy (setup.py)
REPO = Path(__file__).resolve().parents[2]  # a source checkout (an editable install)
ROGUE_STEP = "01.01"  # puts a public bucket policy on the bucket named in its events
SHOWN = (("02.02", "both_in_one_zone"), ("03.02", "03_02"))
SERVERLESS_SHOWN = (("01.02", "every_dynamodb_action"),)


@dataclass(frozen=True)
class SampleLabs:
    """The labs the demo plays: the web tier, the serverless API, and the one with a module that tries to write."""

    web_tier: Path
    serverless: Path
    rogue: Path


def sample_labs() -> SampleLabs:
    """The wheel's copies when installed, else the checkout's; BadInput naming what is missing otherwise."""
    for labs in (
        SampleLabs(PACKAGED / "web-tier", PACKAGED / "serverless-api", PACKAGED / "rogue"),
        SampleLabs(REPO, REPO / "labs" / "serverless-api", REPO / "tests" / "labs" / "misbehaving"),
    ):
        if all((lab / "specs").is_dir() for lab in (labs.web_tier, labs.serverless, labs.rogue)):
            return labs
    raise BadInput(f"the demo's sample labs are missing: neither {PACKAGED} (a built wheel) nor {REPO}'s checkout")


def run_demo(*, as_json: bool, region: str | None = None) -> int:
    """Play the demo (the labs in `region`, by default us-east-1); exit 0 when every answer is the one expected,
    1 otherwise."""
    labs = sample_labs()
    os.environ[LOG_LEVEL_ENV] = "WARNING"  # the step modules' info lines would drown the answers
    console = output_console(stderr=as_json)
    console.print(
        "stepeval demo: two sample labs, every step checked on an untouched account, on common mistakes and on "
        "its solution, all on moto on loopback (no AWS account); then a module that tries to write, refused. "
        "About 1-2 minutes.",
        style="bold",
    )
    refusal: list[tuple[Answer, bool]] = []

    def refuse_a_write(results: list[ScenarioResult], lanes: list[Lane]) -> None:
        _show(results, SHOWN, console, as_json)
        # the first lane's server holds what the last solve left (see play_lanes)
        refusal.append(_refused_write(results, lanes[0].runner.pool, lanes[0].account, labs.rogue, console, as_json))

    results, status = _play(load_lab(labs.web_tier), console, as_json, region, then=refuse_a_write)
    ((refused, untouched),) = refusal
    serverless, serverless_status = _play(load_lab(labs.serverless), console, as_json, region)
    _show(serverless, SERVERLESS_SHOWN, console, as_json)
    if as_json:
        print(
            json.dumps(
                {
                    "playthrough": [plain(r) for r in results],
                    "refused_write": refused.model_dump(),
                    "serverless_playthrough": [plain(r) for r in serverless],
                }
            )
        )
    ok = all(r.ok for r in results + serverless) and refused.error is not None and refused.error.kind == "read_only"
    return 0 if ok and untouched and status == 0 and serverless_status == 0 else 1


def _play(
    lab: Lab,
    console: Console,
    as_json: bool,
    region: str | None,
    then: Callable[[list[ScenarioResult], list[Lane]], None] | None = None,
) -> tuple[list[ScenarioResult], int]:
    """Play a lab on servers of its own (with what its spec's `emulator:` asks), report it, then call `then` while
    its servers still hold the last solve's state; its results and report status."""
    started = time.perf_counter()
    with moto_lanes(lab, region=region) as lanes:
        console.rule(f"[bold]{lab.spec.title}[/]: every step, untouched, mistaken and solved")
        results = play_live(lab, lanes, console)
        status = report(results, time.perf_counter() - started, console, as_json=False) if not as_json else 0
        if then is not None:
            then(results, lanes)
    return results, status


def _show(results: list[ScenarioResult], which: tuple[tuple[str, str], ...], console: Console, as_json: bool) -> None:
    """Print the answers of the chosen scenarios in full."""
    for step, scenario in which:
        shown = next(r for r in results if (r.step, r.scenario) == (step, scenario))
        if not as_json and shown.answer is not None:
            console.print(answer_panel(shown.answer, f"{scenario} ({kind_shown(shown) or shown.kind})"))


def _refused_write(
    results: list[ScenarioResult], pool: WorkerPool, account: Account, rogue: Path, console: Console, as_json: bool
) -> tuple[Answer, bool]:
    """Point a module that writes at the learner's bucket: refused, and the policy is what the learner put."""
    bucket = next(h.id for r in results if r.answer for h in r.answer.resolved if h.name == "01_01_bucket")
    s3 = boto3.Session(
        aws_access_key_id=account.credentials.access_key,
        aws_secret_access_key=account.credentials.secret_key,
        region_name=account.region,
    ).client("s3", endpoint_url=account.endpoint_url, config=client_config(account.endpoint_url))
    before = s3.get_bucket_policy(Bucket=bucket)["Policy"]
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id=bucket)])
    answer = Runner(load_lab(rogue), pool).evaluate(ROGUE_STEP, context, account)
    untouched = s3.get_bucket_policy(Bucket=bucket)["Policy"] == before
    if not as_json:
        console.print(answer_panel(answer, "a module that tries to overwrite the learner's bucket policy"))
        verdict = "still the learner's own" if untouched else "[red]CHANGED[/]"
        console.print(f"After the refused write, the bucket policy on {bucket} is {verdict}.", soft_wrap=True)
    else:
        print(f"bucket policy on {bucket} untouched: {untouched}", file=sys.stderr)
    return answer, untouched
