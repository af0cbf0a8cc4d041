"""`stepeval`: run one step, check a lab, play the demo. Exit codes: 0 pass, 1 fail, 2 bad input, 3 error,
75 pending (AWS is still at work: ask again), 130 interrupted."""

# Heavy imports (pydantic, boto3) happen inside the commands, after `run` and `check` have started their worker,
# so that the worker's start-up overlaps ours: this is most of a cold `stepeval run`.

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from harness.authoring.extra import require_authoring
from harness.commands.outputs import output_file
from harness.core.errors import BadInput, LabError
from harness.core.paths import lab_modules, step_module
from harness.core.startup import collections_paused
from harness.sandbox.pool import WorkerPool, loading_pool

if TYPE_CHECKING:
    from harness.core.contract import Answer, ContextInput
    from harness.core.lab import Lab
    from harness.store.evaluations import EvaluationRecorder

EXIT_PASS, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_ERROR = 0, 1, 2, 3
EXIT_INTERRUPTED = 128 + 2  # the shell's code for a process ended by SIGINT (Ctrl-C)
EXIT_PENDING = 75  # sysexits' EX_TEMPFAIL: not a verdict yet, nor an error; ask again after retry_after_s
EXIT_BY_STATUS = {"pass": EXIT_PASS, "fail": EXIT_FAIL, "pending": EXIT_PENDING, "error": EXIT_ERROR}
MAX_TIMEOUT_S = 900.0


def positive_seconds(text: str) -> float:
    """A timeout in seconds: a number above 0 and at most 900."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(f"{text} seconds: must be more than 0 and at most {MAX_TIMEOUT_S:g}")
    return value


def read_context(source: str | None, lab: Lab) -> ContextInput:
    """The context from a file or stdin ("-"); absent means no resolved handles and no events."""
    from harness.core.contract import ContextInput, parse_context

    if source is None:
        return ContextInput()
    name = "stdin" if source == "-" else source
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"--context {name}: cannot read: {exc}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"--context {name}: not valid JSON: {exc}") from None
    return parse_context(raw, source=f"--context {name}", lab=lab)


def say_moved_names(root: Path, only: Path | None = None) -> str:
    """Each use of a moved name in the lab's files (under `only`, if given) said on stderr, one line each, as
    `stepeval test` says them; a warning, never a change of exit code. The summary's tail: "" when there is none."""
    from harness.authoring.deprecated_uses import lab_deprecated_uses
    from harness.authoring.moved import say_deprecated

    uses = lab_deprecated_uses(root) if only is None else lab_deprecated_uses(root, [only.relative_to(root)])
    for use in uses:
        say_deprecated(use.path, use.line, use.message)
    return f"; {len(uses)} deprecated name{'' if len(uses) == 1 else 's'} in use (warnings above)" if uses else ""


def print_answer(answer: Answer) -> None:
    """The one JSON object on stdout."""
    sys.stdout.write(answer.model_dump_json(indent=2) + "\n")
    sys.stdout.flush()


def show_output(answer: Answer, module: str) -> None:
    """What the module printed or logged, on stderr between two marker lines (never on stdout, never parsed)."""
    diagnostics = answer.diagnostics
    if diagnostics is None or not diagnostics.output:
        return
    cut = "\n[... cut: the rest is not kept ...]" if diagnostics.output_truncated else ""
    text = diagnostics.output.rstrip("\n")
    sys.stderr.write(f"----- output of {module} -----\n{text}{cut}\n----- end of output -----\n")
    sys.stderr.flush()


def cmd_run(args: argparse.Namespace) -> int:
    with WorkerPool(1, one_evaluation=True) as pool:
        with collections_paused():  # until the evaluation, whose gateway serves what a module sends
            module = step_module(args.lab, args.step)  # None: a malformed key, said once the lab is read
            pool.expect([lab_modules(args.lab)], modules=None if module is None else [module])
            pool.start()  # the worker imports boto3 while we import ours and read the spec and the context
            from harness.core.credentials import resolve_sandbox
            from harness.core.lab import load_lab, normalize_step_key
            from harness.sandbox.runner import Runner

            step_key = normalize_step_key(args.step)
            lab = load_lab(args.lab)
            lab.step(step_key)
            context = read_context(args.context, lab)
            sandbox = resolve_sandbox(profile=args.profile, region=args.region, endpoint_url=args.endpoint_url)
            recorder = open_cli_recorder(args.store, lab) if args.store else None
            tap = recorder.tap() if recorder else None
            runner = Runner(lab, pool, steps=[step_key])  # the pool readies what this step's module names, no more
            importlib.import_module("harness.sandbox.gateway")  # what the evaluation starts first, imported here
        answer = runner.evaluate(step_key, context, sandbox, timeout_s=args.timeout, tap=tap)
        if recorder is not None and tap is not None:
            recorder.record(step_key, None, sandbox.region, context, answer, tap)
        pool.warn_if_degraded()
    say_moved_names(lab.root, only=lab.root / "evaluation")  # the worker shows no warnings: they are read here
    show_output(answer, lab.step(step_key).module_path.name)
    print_answer(answer)
    return EXIT_BY_STATUS[answer.status]


def open_cli_recorder(url: str, lab: Lab) -> EvaluationRecorder:
    """`stepeval run --store`: the evaluation is recorded like the service's (source "cli")."""
    from harness.store.engine import open_engine
    from harness.store.evaluations import EvaluationRecorder, Retention
    from harness.store.records import RecordStore

    return EvaluationRecorder(RecordStore(open_engine(url)), lab, Retention(90.0, 100_000), source="cli")


def cmd_replay(args: argparse.Namespace) -> int:
    from harness.commands.recorded import run_replay

    return run_replay(args.lab, args.store, step=args.step, since=args.since, as_json=args.json, workers=args.workers)


def cmd_stats(args: argparse.Namespace) -> int:
    from harness.commands.recorded import run_stats

    return run_stats(args.store, lab_dir=args.lab, as_json=args.json)


def cmd_check(args: argparse.Namespace) -> int:
    with loading_pool() as pool:
        pool.expect([lab_modules(args.lab)])
        pool.start()  # the worker imports boto3 while we import ours and read the spec, as `run` does
        from harness.commands.check import check_lab

        problems, summary = check_lab(Path(args.lab), pool)
    for line in problems:
        print(line)
    print(summary + say_moved_names(Path(args.lab)), file=sys.stderr)
    return EXIT_FAIL if problems else EXIT_PASS


def cmd_lint(args: argparse.Namespace) -> int:
    from harness.commands.lint import lint_lab
    from harness.core.lab import load_lab

    lab = load_lab(args.lab)
    problems = lint_lab(lab)
    for problem in problems:
        print(problem)
    summary = f"{len(problems)} problem{'' if len(problems) == 1 else 's'}" if problems else "no problems"
    print(summary + say_moved_names(lab.root), file=sys.stderr)
    return EXIT_FAIL if problems else EXIT_PASS


def cmd_new(args: argparse.Namespace) -> int:
    from harness.commands.scaffold import scaffold
    from harness.core.lab import load_lab

    lab = load_lab(args.lab)
    if args.from_solution:
        require_authoring("new --from-solution")
        from harness.commands.mutate import run_mutate
        from harness.commands.scaffold import write_draft
        from harness.sandbox.pool import hush_notice

        hush_notice()  # the mutants drafting it are played, but no evaluation is what `new` reports
        path = write_draft(lab, args.step, force=args.force, region=args.region)
        print(f"wrote {path} (a draft: prune it and read every line); its mutants:", flush=True)
        run_mutate(lab.root, pattern=lab.step(args.step).key, region=args.region)
        return EXIT_PASS
    if args.force:
        raise BadInput("--force goes with --from-solution: stepeval new never overwrites a module otherwise")
    for path in scaffold(lab.step(args.step), lab.root, lab.handle_types):
        print(f"wrote {path}")
    return EXIT_PASS


def cmd_test(args: argparse.Namespace) -> int:
    require_authoring("test")
    from harness.authoring.prestart import prestart

    with prestart(Path(args.lab), args.region) as prestarted:  # the template and moto's root start while we import
        say_moved_names(Path(args.lab))  # with the uses no import shows: evaluation modules, function bodies
        from harness.commands.testrun import run_tests

        return run_tests(
            Path(args.lab), pattern=args.k, as_json=args.json, html=args.html, prestarted=prestarted, region=args.region
        )


def cmd_mutate(args: argparse.Namespace) -> int:
    require_authoring("mutate")
    from harness.authoring.prestart import prestart

    with prestart(Path(args.lab), args.region) as prestarted:  # as `stepeval test`: the template and moto start early
        from harness.commands.mutate import run_mutate

        return run_mutate(
            Path(args.lab), pattern=args.k, as_json=args.json, html=args.html, prestarted=prestarted, region=args.region
        )


def cmd_report(args: argparse.Namespace) -> int:
    require_authoring("report")
    from harness.authoring.prestart import prestart

    with prestart(Path(args.lab), args.region) as prestarted:
        from harness.commands.mutate import run_mutate
        from harness.commands.testrun import run_tests

        where = {"pattern": args.k, "html": args.output, "prestarted": prestarted, "region": args.region}
        if args.no_mutants:
            run_tests(Path(args.lab), **where)
        else:
            run_mutate(Path(args.lab), quiet=True, **where)
    return EXIT_PASS


def cmd_demo(args: argparse.Namespace) -> int:
    require_authoring("demo")
    from harness.commands.demo import run_demo

    return run_demo(as_json=args.json, region=args.region)


def region_name(text: str) -> str:
    """A region name such as eu-west-1 (the emulator's accounts are made there)."""
    from harness.core.paths import REGION

    if not REGION.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an AWS region name such as eu-west-1")
    return text


def add_region_option(command: argparse.ArgumentParser) -> None:
    """--region, as the commands that play a lab on moto take it."""
    command.add_argument(
        "--region", type=region_name, help="the region the lab is played in, on moto (default: us-east-1)"
    )


class OneLineParser(argparse.ArgumentParser):
    """Usage mistakes are bad input like any other: one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"stepeval: {message}\n")


def cmd_serve(args: argparse.Namespace) -> int:
    from harness.service.serve import main as serve_main

    return serve_main(args)


def cmd_sign(args: argparse.Namespace) -> int:
    from harness.commands.sign import run_sign

    return run_sign(args.body, msg_id=args.id, make_secret=args.new_secret)


def add_playthrough_options(command: argparse.ArgumentParser, *, output: str) -> None:
    """--lab, -k, --json and --html, as `test` and `mutate` take them."""
    command.add_argument("--lab", default=".", help="lab directory (default: .)")
    command.add_argument("-k", metavar="PATTERN", help="only steps whose key or a scenario name contains PATTERN")
    command.add_argument("--json", action="store_true", help=f"print the {output} as JSON instead of tables")
    command.add_argument("--html", type=output_file, metavar="FILE", help="also write the lab report (HTML) to FILE")
    add_region_option(command)


def build_parser() -> argparse.ArgumentParser:
    from harness import __version__

    parser = OneLineParser(prog="stepeval", description=__doc__)
    parser.add_argument("--version", action="version", version=f"stepeval {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser)

    run = commands.add_parser("run", help="evaluate one step and print its answer as JSON")
    run.add_argument("step", help="step key, e.g. 01.02 (01_02 works too)")
    run.add_argument("--lab", default=".", help="lab directory holding specs/ and evaluation/ (default: .)")
    run.add_argument("--context", metavar="FILE|-", help='JSON {"resolved": [...], "events": [...]}')
    run.add_argument("--endpoint-url", help="send every AWS call to this emulator (moto server, LocalStack)")
    run.add_argument("--region", help="AWS region (default: profile's, AWS_REGION, else us-east-1)")
    run.add_argument("--profile", help="named AWS profile to dry-run against your own account")
    run.add_argument("--timeout", type=positive_seconds, help="seconds before the step is stopped")
    run.add_argument("--store", help="record the evaluation here: sqlite:///file.db or postgresql://...")
    run.set_defaults(handler=cmd_run)

    check = commands.add_parser("check", help="validate the lab spec and every step module")
    check.add_argument("--lab", default=".", help="lab directory (default: .)")
    check.set_defaults(handler=cmd_check)

    lint = commands.add_parser("lint", help="read every step module statically for mistakes (nothing runs)")
    lint.add_argument("--lab", default=".", help="lab directory (default: .)")
    lint.set_defaults(handler=cmd_lint)

    test = commands.add_parser(
        "test", help="play the lab's scenarios on moto processes of its own (copies, never replays)"
    )
    add_playthrough_options(test, output="results")
    test.set_defaults(handler=cmd_test)

    mutate = commands.add_parser("mutate", help="play mutants of each solve: which mistakes does the evaluator miss?")
    add_playthrough_options(mutate, output="scores, survivors and every mutant")
    mutate.set_defaults(handler=cmd_mutate)

    report = commands.add_parser("report", help="play the lab and its mutants; write the lab report as one HTML file")
    report.add_argument("--lab", default=".", help="lab directory (default: .)")
    report.add_argument(
        "-o", "--output", type=output_file, required=True, metavar="FILE", help="where to write the HTML"
    )
    report.add_argument("-k", metavar="PATTERN", help="only steps whose key or a scenario name contains PATTERN")
    report.add_argument("--no-mutants", action="store_true", help="scenarios only (faster; no mutation results)")
    add_region_option(report)
    report.set_defaults(handler=cmd_report)

    new = commands.add_parser("new", help="write a step module, a solution skeleton and a scenario skeleton")
    new.add_argument("step", help="step key, e.g. 01.02")
    new.add_argument("--lab", default=".", help="lab directory (default: .)")
    new.add_argument(
        "--from-solution",
        action="store_true",
        help="draft the evaluation from the step's reference solution played on moto, then run its mutants",
    )
    new.add_argument("--force", action="store_true", help="with --from-solution: replace an existing evaluation")
    add_region_option(new)
    new.set_defaults(handler=cmd_new)

    demo = commands.add_parser("demo", help="play the two sample labs on moto servers on loopback")
    demo.add_argument("--json", action="store_true", help="print the answers as JSON lines instead of panels")
    add_region_option(demo)
    demo.set_defaults(handler=cmd_demo)

    serve = commands.add_parser("serve", help="answer signed step-completion hooks over HTTP (docs/service.md)")
    serve.add_argument("--lab", help="lab directory (default: STEPEVAL_LAB, else .)")
    serve.add_argument(
        "--labs", help="serve every lab directly under this directory, each known by its spec's project (STEPEVAL_LABS)"
    )
    serve.add_argument("--host", help="address to listen on (default: STEPEVAL_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="TCP port, 0 for any free one (default: STEPEVAL_PORT, else 8080)")
    serve.add_argument(
        "--workers", type=int, help="evaluations at once (default: STEPEVAL_WORKERS, else from memory and cores)"
    )
    serve.add_argument("--queue", type=int, help="evaluations that may wait before 429 (default: as many as workers)")
    serve.add_argument("--deadline", dest="deadline_s", type=float, help="seconds a request may take (default 60)")
    serve.add_argument("--endpoint-url", help="send every AWS call, STS included, to this emulator (moto server)")
    serve.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        default=None,
        help="start even if evaluations cannot be fully confined here (namespaces, uid): never in production",
    )
    serve.add_argument("--store", dest="store_url", help="record store URL: sqlite:///file.db or postgresql://...")
    serve.set_defaults(handler=cmd_serve)

    sign = commands.add_parser(
        "sign", help="the webhook headers for a request body, as curl -H @FILE reads them (docs/service.md)"
    )
    sign.add_argument("body", nargs="?", metavar="BODY", help="the request body file, exactly as sent (- for stdin)")
    sign.add_argument("--id", help="webhook-id (default: a new msg_...; keep the same one when retrying a message)")
    sign.add_argument("--new-secret", action="store_true", help="print a new whsec_... secret instead")
    sign.set_defaults(handler=cmd_sign)

    replay = commands.add_parser("replay", help="re-run the lab's modules on recorded evaluations, offline")
    replay.add_argument("--lab", default=".", help="lab directory (default: .)")
    replay.add_argument("--store", required=True, help="the record store: sqlite:///file.db or postgresql://...")
    replay.add_argument("--step", help="only this step's evaluations (e.g. 01.02)")
    replay.add_argument("--since", help="only evaluations recorded since this date (YYYY-MM-DD, UTC)")
    replay.add_argument(
        "--workers", type=int, choices=range(1, 33), metavar="N", help="evaluations at once (default: one per core)"
    )
    replay.add_argument("--json", action="store_true", help="print the report as JSON")
    replay.set_defaults(handler=cmd_replay)

    stats = commands.add_parser("stats", help="per step: attempts, pass rate, common issues, durations, errors")
    stats.add_argument("--store", required=True, help="the record store: sqlite:///file.db or postgresql://...")
    stats.add_argument("--lab", help="only this lab's evaluations (a lab directory)")
    stats.add_argument("--json", action="store_true", help="print the figures as JSON")
    stats.set_defaults(handler=cmd_stats)
    return parser


def entry() -> NoReturn:
    """The `stepeval` command: `main`, then out at once. By then every command has flushed what it writes and
    closed what it opened (pools, moto, the store); the interpreter's own teardown of the modules loaded (~80 ms
    with boto3, pydantic and the store) would only keep the shell waiting."""
    code = main()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except LabError as exc:
        others = len(dict.fromkeys(exc.problems)) - 1
        more = f" (and {others} more problem{'' if others == 1 else 's'}: run stepeval check)" if others else ""
        first = exc.problems[0].splitlines()[0] if exc.problems[0] else ""
        print(f"stepeval: {first}{more}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BadInput as exc:
        print(f"stepeval: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # what was started has been stopped on the way out: one line, no traceback
        print("stepeval: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
