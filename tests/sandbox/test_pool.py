"""The pool: one fresh process per evaluation, killed once (however many times it is told), under concurrency."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.core.contract import ContextInput
from harness.core.lab import load_lab
from harness.core.limits import Limits, raise_open_files
from harness.sandbox.pool import (
    EvaluationProcess,
    TemplateProcess,
    WorkerPool,
    loading_pool,
    playthrough_pool,
    template_gone,
)
from harness.sandbox.runner import Runner
from tests.conftest import LABS

pytestmark = [pytest.mark.process, pytest.mark.moto]


def test_each_evaluation_runs_in_a_process_of_its_own(misbehaving_runner: Runner, sandbox) -> None:
    processes = set()
    for _ in range(4):
        answer = misbehaving_runner.evaluate("05.01", ContextInput(), sandbox)
        assert answer.status == "fail", answer
        nonce, runs = answer.message.split(":")
        assert runs == "1", answer.message  # the process had run no evaluation before
        processes.add(nonce)
    assert len(processes) == 4


def test_killing_twice_closes_nothing_of_anyone_else(pool: WorkerPool) -> None:
    pool.start()
    process = pool._take([])
    try:
        process.kill()
        process.close()
        neighbour_r, neighbour_w = os.pipe()  # may reuse the numbers the process's fds had
        process.kill()
        process.close()
        os.write(neighbour_w, b"still mine")
        assert os.read(neighbour_r, 10) == b"still mine"
        os.close(neighbour_r)
        os.close(neighbour_w)
    finally:
        pool._reaper.reap(process)


def test_timeouts_under_concurrency_break_no_other_evaluation(misbehaving_lab, sandbox) -> None:
    """The double kill closed fds another worker already used: EBADF, HTTP 500 under load. Not any more."""
    with WorkerPool(3) as pool:
        runner = Runner(misbehaving_lab, pool)
        jobs = [("02.03", 0.2) if i % 3 == 0 else ("02.01", None) for i in range(24)]

        def one(job: tuple[str, float | None]) -> tuple[str, str, str | None]:
            step, timeout = job
            answer = runner.evaluate(step, ContextInput(), sandbox, timeout_s=timeout)
            return step, answer.status, answer.error.kind if answer.error else None

        with ThreadPoolExecutor(6) as threads:
            results = list(threads.map(one, jobs))
    for step, status, kind in results:
        assert (status, kind) == (("error", "timeout") if step == "02.03" else ("fail", None)), (step, status, kind)


def test_a_spare_is_ready_before_the_job(pool: WorkerPool) -> None:
    pool.start()
    process: EvaluationProcess = pool._take([])
    try:
        process.wait_ready(time.monotonic() + 30)
        outcome = process.run({"job": "load", "module": "/nonexistent/evaluation/boto3/01_01.py"}, 10, Limits())
        assert outcome.reply == {"outcome": "error", "kind": "load", "detail": "no module at this path"}
    finally:
        process.kill()
        pool._reaper.reap(process)


def _lab_that_looks_for(root: Path, name: str, others: list[Path]) -> Path:
    """A lab whose module, on import, says whether it can see its own module and each of the `others` labs'."""
    module = root / name / "evaluation" / "boto3" / "01_01.py"
    module.parent.mkdir(parents=True)
    paths = [module, *(lab / "boto3" / "01_01.py" for lab in others)]
    looks = ", ".join(f"os.path.exists({str(path)!r})" for path in paths)
    module.write_text(f"import os\nraise RuntimeError('seen:' + str([{looks}]))\n")
    return module


def test_a_job_sees_its_own_lab_only_though_spares_hold_every_expected_one(tmp_path: Path) -> None:
    labs = [tmp_path / name / "evaluation" for name in ("a", "b", "c")]
    a = _lab_that_looks_for(tmp_path, "a", [labs[1], labs[2]])
    b = _lab_that_looks_for(tmp_path, "b", [labs[0], labs[2]])
    c = _lab_that_looks_for(tmp_path, "c", [labs[0], labs[1]])
    with WorkerPool(1) as pool:
        if not pool.protections().mount_namespace:
            pytest.skip("no mount namespace here: every path is visible (the degraded path)")
        pool.expect([str(labs[0]), str(labs[1])])  # c is not announced: its job replaces a spare
        pool.start()
        for module in (a, b, c, a):
            outcome = pool.submit({"job": "load", "module": str(module)}, 30)
            assert outcome.reply is not None, outcome
            assert "seen:[True, False, False]" in outcome.reply["detail"], outcome.reply


def test_what_an_evaluation_does_never_reaches_the_template(sandbox, aws) -> None:
    """Until issue 25 an evaluation's clients (poisoned here: names botocore refuses, which killed the template at
    every start) and its reads were warmed for the next ones. Now the template warms what the lab names only."""
    aws.client("s3").create_bucket(Bucket="still-served")
    with WorkerPool(1) as pool:
        runner = Runner(load_lab(LABS / "hostile"), pool)
        named = (list(pool._warming.clients), list(pool._warming.rehearsals))
        assert runner.evaluate("06.02", ContextInput(), sandbox).status == "pass"
        template = pool._template
        for _ in range(3):
            answer = runner.evaluate("05.01", ContextInput(), sandbox)
            assert answer.status == "pass" and answer.validated[0].id == "still-served", answer
        assert pool._template is template and template.process.poll() is None
        assert (list(pool._warming.clients), list(pool._warming.rehearsals)) == named


def write_step(tmp_path: Path, source: str) -> tuple[Path, Path]:
    """A lab's `evaluation/` directory under `tmp_path` holding one step module with `source`; both paths."""
    modules = tmp_path / "lab" / "evaluation"
    step = modules / "boto3" / "01_01.py"
    step.parent.mkdir(parents=True)
    step.write_text(source)
    return modules, step


def test_the_kit_modules_an_expected_lab_imports_are_imported_before_the_fork(tmp_path: Path) -> None:
    """The template imports them once (15-45 ms each time an evaluation did it itself); only the kit's own
    modules, read from the lab's sources as text, are ever imported there."""
    modules, step = write_step(
        tmp_path,
        "import sys\n"
        "seen = ['harness.kit.' + name in sys.modules for name in ('sqs', 'require', 'rds')]\n"
        "from harness.kit import sqs\n"
        "# harness.kit.nonexistent_module_here: a name the kit lacks, never tried by the template\n"
        "raise RuntimeError(f'seen:{seen}')\n",
    )
    with WorkerPool(1) as pool:
        pool.expect([str(modules)])
        pool.start()
        outcome = pool.submit({"job": "load", "module": str(step)}, 30)
    assert outcome.reply is not None, outcome
    assert "seen:[True, True, False]" in outcome.reply["detail"], outcome.reply  # sqs imports require


def test_the_job_a_spare_rehearses_runs_to_its_answer() -> None:
    """The harness's own step module (packaged beside the worker, in every root) loads and answers: were it
    broken, every spare would skip its rehearsal silently and pay the copies during its job."""
    from harness.inside.worker import Worker

    reply = Worker().rehearse()
    assert reply["outcome"] == "returned", reply
    assert reply["result"]["message"] == "rehearsal"


def running(pid: int) -> bool:
    """Whether `pid` still runs: a dead process not yet reaped by whoever inherited it (a zombie) does not."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def test_evaluation_processes_die_with_the_template() -> None:
    """The template watches its evaluation processes; were it killed, they must not live on unwatched (each has
    the parent-death signal set)."""
    with WorkerPool(1) as pool:
        pool.start()
        process: EvaluationProcess = pool._take([])
        try:
            process.wait_ready(time.monotonic() + 30)
            template = pool._template.process.pid
            children = [
                int(pid)
                for task in Path(f"/proc/{template}/task").iterdir()
                for pid in (task / "children").read_text().split()
            ]
            assert children, "the template has forked the spares"
            os.kill(template, 9)
            deadline = time.monotonic() + 10
            while any(map(running, children)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not [pid for pid in children if running(pid)]
        finally:
            process.kill()
            pool._reaper.reap(process)


def test_a_uid_another_harness_process_holds_is_never_handed_out() -> None:
    """Two harness processes on one host (two `stepeval serve`, a CLI beside a service) claim each uid host-wide:
    RLIMIT_NPROC counts by uid, so a shared one would let one evaluation's processes limit another's."""
    from harness.sandbox.pool import UID_CLAIM, UidPool, _claim

    probe = UidPool(1)
    free = probe.take()
    assert free is not None
    probe.give_back(free)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import socket, sys; s = socket.socket(socket.AF_UNIX); "
            f"s.bind('\\0' + {UID_CLAIM!r}.format({free})); print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        uids = UidPool(4)
        taken = [uids.take() for _ in range(4)]
        assert free not in taken and None not in taken
        for uid in taken:
            uids.give_back(uid)
    finally:
        holder.kill()
        holder.wait()
    claim = _claim(free)  # the holder is gone: its claim went with it
    assert claim is not None
    os.close(claim)


def test_spares_rehearse_their_job_only_while_fewer_jobs_run_than_there_are_cpus() -> None:
    from harness.sandbox.pool import CPUS

    with WorkerPool(CPUS + 1) as pool:
        assert pool._preparation()["rehearse_job"] is True
        pool._running = CPUS - 1
        assert pool._preparation()["rehearse_job"] is True
        pool._running = CPUS
        assert pool._preparation()["rehearse_job"] is False
        pool._running = 0


def test_a_playthroughs_pool_never_has_its_spares_rehearse_their_job() -> None:
    """`stepeval test` plays its lanes on every CPU there is, taken mostly by moto and its own process, which the
    pool does not count: a rehearsal there only adds work. The pool it starts (or takes prestarted) says so."""
    from harness.authoring.lanes import moto_lanes
    from harness.authoring.prestart import prestart

    assert playthrough_pool(1)._preparation()["rehearse_job"] is False
    lab_dir = LABS / "scenario_checks"
    with prestart(lab_dir) as prestarted, moto_lanes(load_lab(lab_dir), prestarted=prestarted) as lanes:
        pool = lanes[0].runner.pool
        assert pool is prestarted.pool and pool._preparation()["rehearse_job"] is False
    with moto_lanes(load_lab(lab_dir)) as lanes:
        assert lanes[0].runner.pool._preparation()["rehearse_job"] is False


def _running_as_evaluation_uid(template: int) -> list[int]:
    """The template's children that run as an evaluation's uid (spares are still root until their job)."""
    pids = [
        int(pid) for task in Path(f"/proc/{template}/task").iterdir() for pid in (task / "children").read_text().split()
    ]
    found = []
    for pid in pids:
        try:
            uid = int(Path(f"/proc/{pid}/status").read_text().split("\nUid:")[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
        if uid != 0:
            found.append(pid)
    return found


def test_an_evaluation_that_clears_its_parent_death_signal_still_dies_when_the_template_does(tmp_path: Path) -> None:
    """A hostile module clears its parent-death signal and sleeps; the template is killed under it. Nothing is
    left to end it at its deadline but the pool, which then kills everything running as its uid."""
    sleeps_unbound = "import ctypes, time\nctypes.CDLL(None).prctl(1, 0, 0, 0, 0)\ntime.sleep(60)\n"
    modules, step = write_step(tmp_path, sleeps_unbound)
    with WorkerPool(1) as pool:
        if not (pool.protections().pid_namespace and pool.protections().own_uid):
            pytest.skip("needs root (a uid per evaluation) and a PID namespace: the degraded path here")
        pool.expect([str(modules)])
        pool.start()
        with ThreadPoolExecutor(1) as threads:
            outcome = threads.submit(pool.submit, {"job": "load", "module": str(step)}, 4)
            template = pool._template.process.pid
            deadline = time.monotonic() + 20
            while not (running := _running_as_evaluation_uid(template)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert running, "the job's process runs as its uid"
            os.kill(template, 9)
            # timeout: the pool's deadline ended it; crash: the template died before the process's last look at it
            # (the end of its confinement, after its uid switch), and it ended itself
            assert outcome.result().failure in ("timeout", "crash")
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in running) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in running if Path(f"/proc/{pid}").exists()]


def test_a_pool_that_only_imports_modules_builds_no_clients_for_them(tmp_path: Path) -> None:
    """`stepeval check` imports each module and runs none: the template need not build their clients (EC2's
    model alone is ~0.1 s of its start)."""
    modules, _ = write_step(
        tmp_path, "from harness.kit import ec2\n\nasync def run(session, context, logger):\n    session.client('s3')\n"
    )
    with loading_pool() as pool:
        pool.expect([str(modules)])
        assert list(pool._warming.clients) == [] and "harness.kit.ec2" in pool._warming.imports
    with WorkerPool(1) as pool:
        pool.expect([str(modules)])
        assert set(pool._warming.clients) == {("ec2", "us-east-1"), ("s3", "us-east-1")}


def test_a_loading_pool_holds_only_what_importing_needs_and_runs_nothing(tmp_path: Path) -> None:
    """`stepeval check`'s pool: its processes come from a template that imported the kit the lab names and
    the job's frame (`harness.inside.job`), not the worker's sessions and loaders; a job that would run a step is
    refused."""
    modules, step = write_step(
        tmp_path,
        "import sys\n"
        "from harness.kit import require\n"
        "held = [name in sys.modules\n"
        "        for name in ('harness.kit.require', 'harness.inside.job', 'harness.inside.worker')]\n"
        "raise RuntimeError(f'held:{held}')\n",
    )
    with loading_pool() as pool:
        pool.expect([str(modules)])
        pool.start()
        loaded = pool.submit({"job": "load", "module": str(step)}, 30)
        ran = pool.submit({"job": "run", "module": str(step), "context": {}, "region": "us-east-1"}, 30)
    assert loaded.reply is not None and "held:[True, True, False]" in loaded.reply["detail"], loaded
    assert ran.reply is not None and ran.reply["outcome"] == "error", ran
    assert "only loads modules" in ran.reply["detail"]


def test_a_pool_for_one_evaluation_has_its_gateway_load_the_labs_models_not_read_them_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`stepeval run`'s pool: its gateway loads the models its lab's files name (shared, as any pool's) but does not
    derive all of them ahead, which hides from each evaluation what the one before it derived: there is no other."""
    from harness.core.paths import lab_modules
    from harness.sandbox.gateway import Gateway

    asked: list[tuple[list[str], bool]] = []
    monkeypatch.setattr(
        Gateway, "prepare", lambda self, services, *, whole=True: asked.append((sorted(services), whole))
    )
    for one in (True, False):
        pool = WorkerPool(1, one_evaluation=one)
        try:
            pool.expect([lab_modules(LABS.parent.parent)])  # the sample lab: the repository's root
            assert pool.gateway is not None
        finally:
            pool.close()
    assert [whole for _, whole in asked] == [False, True]
    assert asked[0][0] == asked[1][0] and "ec2" in asked[0][0]


def test_a_runner_for_one_step_readies_what_its_module_names_not_the_whole_lab() -> None:
    """`stepeval run`: the template builds the clients (and imports the kit modules) of the one step it runs."""
    lab = load_lab(LABS.parent.parent / "labs" / "serverless-api")
    with WorkerPool(1, one_evaluation=True) as one, WorkerPool(1) as every:
        Runner(lab, one, steps=["01.01"])
        Runner(lab, every)
        services = [{service for service, _ in pool._warming.clients} for pool in (one, every)]
        assert services[0] == {"dynamodb", "kms"}  # the table's step (kms: named by the kit module it imports)
        assert services[1] > services[0] and {"iam", "lambda", "logs", "apigatewayv2"} <= services[1]
        assert set(one._warming.imports) < set(every._warming.imports)
        assert list(one._warming.labs) == list(every._warming.labs)  # its root still holds the lab's evaluation/


def test_a_pool_for_one_evaluation_forks_one_spare_and_none_once_its_job_is_done() -> None:
    """`stepeval run` runs one job: a second spare, or one forked after the job, would be a process for nothing."""
    job = {"job": "load", "module": "/nonexistent/evaluation/boto3/01_01.py"}
    for one, spares_after in ((True, 0), (False, 2)):
        with WorkerPool(1, one_evaluation=one) as pool:
            reaped = threading.Event()
            done = pool._reaper.done
            pool._reaper.done = lambda process, done=done, reaped=reaped: (done(process), reaped.set())
            pool.start()
            assert len(pool._spares) == (1 if one else 2)
            reply = pool.submit(job, 30).reply
            assert reply == {"outcome": "error", "kind": "load", "detail": "no module at this path"}
            assert reaped.wait(30)
            assert len(pool._spares) == spares_after


LOAD_JOB = {"job": "load", "module": "/nonexistent/evaluation/boto3/01_01.py"}
NO_MODULE = {"outcome": "error", "kind": "load", "detail": "no module at this path"}


def test_a_refused_spawn_request_leaves_the_template_and_its_evaluations_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kernel may refuse to pass a spare's descriptors to a template that runs (ETOOMANYREFS: the uid's
    descriptors in flight past the pool's RLIMIT_NOFILE, which root never meets, hence the refusal injected here; the
    hostile lab's step 10.11 meets the real one). The template and the evaluation it holds go on; the job asking for a
    spare meanwhile gets the sandbox's error (no crash, no restart counted); the next, once sends pass, runs."""
    with WorkerPool(1) as pool:
        pool.start()
        held: EvaluationProcess = pool._take([])
        try:
            held.wait_ready(time.monotonic() + 30)
            template = pool._template
            for spare in list(pool._spares):  # none left: the job must ask for a new one
                pool._spares.remove(spare)
                spare.kill()
                pool._reaper.reap(spare)

            def refused(request: dict, fds: list[int]) -> None:
                raise OSError(errno.ETOOMANYREFS, os.strerror(errno.ETOOMANYREFS))

            monkeypatch.setattr(template, "spawn", refused)
            outcome = pool.submit(LOAD_JOB, 30)
            assert (outcome.reply, outcome.failure) == (None, "sandbox"), outcome
            assert "could be started for now" in outcome.detail and "Too many references" in outcome.detail
            assert pool.restarts == 0
            assert pool._template is template and template.process.poll() is None
            assert held.run(LOAD_JOB, 10, Limits()).reply == NO_MODULE  # the evaluation it held, untouched
            monkeypatch.undo()
            assert pool.submit(LOAD_JOB, 30).reply == NO_MODULE
            assert pool._template is template
        finally:
            held.kill()
            pool._reaper.reap(held)


def test_a_template_is_gone_only_once_it_exited_or_closed_its_end() -> None:
    """A failed spawn request ends the template (and with it what it forked) only if it is gone; any other error
    refused that request alone. One found gone is closed and reaped, never left running, and another starts."""
    with WorkerPool(1) as pool:
        pool.start()
        template: TemplateProcess = pool._template
        refused = OSError(errno.ETOOMANYREFS, os.strerror(errno.ETOOMANYREFS))
        assert not template_gone(template, refused)
        assert template_gone(template, BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)))
        os.kill(template.process.pid, 9)
        template.process.wait(10)
        assert template_gone(template, refused)
        assert pool.submit(LOAD_JOB, 30).reply == NO_MODULE
        assert pool._template is not template and pool._template.process.poll() is None
        assert template.control.fileno() == -1  # closed: the old one holds nothing of the pool's


def test_a_pool_raises_its_soft_open_files_limit_to_the_hard_one(tmp_path: Path) -> None:
    """The uid's descriptors in flight (a module's, where it shares the harness's uid) refuse the pool's sends past
    the pool's soft RLIMIT_NOFILE: the pool raises it to the hard one at start. Its evaluations keep their step's
    `files`, soft and hard: nothing of the raised limit reaches them."""
    module = tmp_path / "lab" / "evaluation" / "boto3" / "01_01.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import resource\nraise RuntimeError('files:' + str(resource.getrlimit(resource.RLIMIT_NOFILE)))\n"
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
        with WorkerPool(1) as pool:
            assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
            assert raise_open_files() == hard  # again: nothing to change
            job = {"job": "load", "module": str(module), "limits": Limits(files=300).to_message()}
            outcome = pool.submit(job, 30)
            assert outcome.reply is not None and "files:(300, 300)" in outcome.reply["detail"], outcome
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
