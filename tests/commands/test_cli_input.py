"""`stepeval` as a real subprocess: bad input exits 2 with one line on stderr, `check` lists every problem."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core.contract import Answer
from tests.conftest import ANSWER_KEYS, LABS, STEPEVAL
from tests.fixtures.modes import without_mode_notice

pytestmark = pytest.mark.process

SEED_LAB = LABS / "seed_examples"
UNREACHABLE = "http://127.0.0.1:9"  # never called: bad input is refused before any AWS call


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


def stepeval(*args: str | Path, stdin: str | None = None) -> Run:
    """Run the console script with this process's environment (conftest set dummy AWS variables)."""
    done = subprocess.run(
        [str(STEPEVAL), *map(str, args)],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def assert_bad_input(run: Run, *fragments: str) -> str:
    """Exit 2, empty stdout, one line on stderr naming the problem, and no traceback anywhere."""
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    assert run.code == 2, run
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    line = lines[0]
    assert line.startswith("stepeval: ")
    for fragment in fragments:
        assert fragment in line, line
    return line


def run_step(step: str, *extra: str | Path, lab: Path = SEED_LAB, stdin: str | None = None) -> Run:
    return stepeval("run", step, "--lab", lab, "--endpoint-url", UNREACHABLE, *extra, stdin=stdin)


def context_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "context.json"
    path.write_text(text, encoding="utf-8")
    return path


# --- run: bad input -----------------------------------------------------------------------------------------


def test_unknown_step() -> None:
    assert_bad_input(run_step("09.09"), "no step 09.09 in this lab", "01.01, 01.02")


@pytest.mark.parametrize("key", ["1.2", "../etc/passwd", "01.02.py", "01/02"])
def test_step_key_not_nn_nn(key: str) -> None:
    assert_bad_input(run_step(key), f"step key {key!r} is not of the form NN.NN")


def test_context_file_missing(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert_bad_input(run_step("01.01", "--context", missing), f"--context {missing}: cannot read:")


def test_context_is_a_directory(tmp_path: Path) -> None:
    assert_bad_input(run_step("01.01", "--context", tmp_path), f"--context {tmp_path}: cannot read:")


def test_context_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"resolved": ["\xff"]}')
    assert_bad_input(run_step("01.01", "--context", path), f"--context {path}: cannot read:")


def test_context_malformed_json(tmp_path: Path) -> None:
    path = context_file(tmp_path, '{"resolved": [')
    assert_bad_input(run_step("01.01", "--context", path), f"--context {path}: not valid JSON:")


def test_context_malformed_json_on_stdin() -> None:
    assert_bad_input(run_step("01.01", "--context", "-", stdin="{nope"), "--context stdin: not valid JSON:")


def test_context_is_a_list(tmp_path: Path) -> None:
    path = context_file(tmp_path, "[]")
    assert_bad_input(
        run_step("01.01", "--context", path),
        f"--context {path}: the context must be a JSON object with 'resolved' and 'events'",
    )


@pytest.mark.parametrize(
    ("context", "fragment"),
    [
        ({"resolved": {"01_01_bucket": "b"}}, ": resolved: Input should be a valid list"),
        ({"events": [{"type": "AWS::S3::Bucket", "id": 7}]}, ": events[0].id: Input should be a valid string"),
        ({"events": [], "spec": {}}, ": spec: unknown key"),
        ({"events": [{"type": "bad", "id": "x"}]}, ": events[0].type: 'bad' is not of the form AWS::Service::Resource"),
        (
            {"resolved": [{"name": "09_09_vpc", "type": "AWS::EC2::VPC", "id": "vpc-1"}]},
            ": resolved[0].name: '09_09_vpc' is not a handle of this lab",
        ),
        (
            {"resolved": [{"name": "01_01_bucket", "type": "AWS::EC2::VPC", "id": "b"}]},
            ": resolved[0].type: 01_01_bucket is a AWS::S3::Bucket, not AWS::EC2::VPC",
        ),
    ],
)
def test_context_wrong_shape(tmp_path: Path, context: dict, fragment: str) -> None:
    path = context_file(tmp_path, json.dumps(context))
    assert_bad_input(run_step("01.02", "--context", path), f"--context {path}{fragment}")


@pytest.mark.parametrize("url", ["ftp://x", "not a url", "http://"])
def test_endpoint_url_not_http(url: str) -> None:
    run = stepeval("run", "01.01", "--lab", SEED_LAB, "--endpoint-url", url)
    assert_bad_input(run, f"--endpoint-url {url!r} is not an http(s) URL")


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("0", "0 seconds: must be more than 0 and at most 900"),
        ("-1", "-1 seconds: must be more than 0 and at most 900"),
        ("abc", "'abc' is not a number of seconds"),
        ("901", "901 seconds: must be more than 0 and at most 900"),
    ],
)
def test_timeout_out_of_range_exits_2_without_traceback(value: str, fragment: str) -> None:
    run = run_step("01.01", "--timeout", value)
    assert run.code == 2
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines()[-1].endswith(f"argument --timeout: {fragment}")


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
def test_timeout_out_of_range_is_one_line(value: str) -> None:
    assert_bad_input(run_step("01.01", "--timeout", value), "--timeout")


def test_broken_spec(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "broken.yaml").write_text(
        textwrap.dedent(
            """\
            project: broken
            objectives:
              - id: "01"
                steps:
                  - {id: "01", inputs: [ghost], outputs: [{name: a, type: AWS::S3::Bucket}]}
                  - {id: "02", inputs: [phantom], outputs: [{name: b, type: AWS::S3::Bucket}]}
            """
        )
    )
    line = assert_bad_input(run_step("01.01", lab=tmp_path), "broken.yaml: step 01.01: inputs: 'ghost'")
    assert line.endswith("(and 1 more problem: run stepeval check)")


def test_a_solution_that_does_not_import_is_one_line_and_its_consequences_are_not_counted(tmp_path: Path) -> None:
    """`stepeval test` names the solution's line once; the step it leaves without a solve is not another problem."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "one.yaml").write_text(PLANTED_SPEC.split('      - {id: "02"')[0])
    assert stepeval("new", "01.01", "--lab", tmp_path).code == 0
    solution = tmp_path / "solution" / "boto3" / "01_01.py"
    solution.write_text("import os\nos.no_such_name\n" + solution.read_text())
    line = assert_bad_input(stepeval("test", "--lab", tmp_path), f"{solution}:2: step 01.01: import failed: ")
    assert line.endswith("AttributeError: module 'os' has no attribute 'no_such_name'")
    assert stepeval("check", "--lab", tmp_path).stdout.count("import failed") == 1


def test_spec_that_is_not_yaml(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "broken.yaml").write_text("project: [unclosed\n  - x: {\n")
    assert_bad_input(run_step("01.01", lab=tmp_path), "broken.yaml:2:6: not valid YAML:")


def test_lab_dir_that_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert_bad_input(run_step("01.01", lab=missing), f"{missing}: no such lab directory")


def test_lab_dir_without_specs(tmp_path: Path) -> None:
    assert_bad_input(run_step("01.01", lab=tmp_path), f"{tmp_path}: no specs/ directory")


# --- run: good input ------------------------------------------------------------------------------------------


def test_context_from_stdin_runs_the_step(moto_url: str) -> None:
    run = stepeval(
        "run",
        "01.01",
        "--lab",
        SEED_LAB,
        "--endpoint-url",
        moto_url,
        "--context",
        "-",
        stdin=json.dumps({"resolved": [], "events": []}),
    )
    assert "Traceback" not in run.stdout + run.stderr
    assert run.code == 1, run
    answer = json.loads(run.stdout)  # exactly one JSON document, nothing else on stdout
    assert isinstance(answer, dict)
    # the seed keys plus the harness's own; exactly the Answer model's fields (others may be added over time)
    assert set(answer) >= ANSWER_KEYS
    assert set(answer) == set(Answer.model_fields)
    assert answer["step"] == "01.01"
    assert answer["status"] == "fail" and answer["success"] is False
    assert answer["error"] is None
    assert answer["failure_context"]["step"] == "01.01"
    assert answer["validated"] == [
        {"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}
    ]
    assert answer["resolved"] == []
    assert answer["duration_ms"] > 0


# --- check -------------------------------------------------------------------------------------------------------


def test_check_seed_lab_is_clean() -> None:
    run = stepeval("check", "--lab", SEED_LAB)
    assert run.code == 0, run
    assert run.stdout == ""
    assert without_mode_notice(run.stderr) == "2 steps, 2 modules: all good"


def test_check_imports_its_own_harness_whatever_the_working_directory(tmp_path: Path) -> None:
    """The template is this stepeval's: a `harness` package in the directory the command runs from (another
    checkout, a learner's repository) is never what its processes import."""
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "__init__.py").write_text("raise SystemExit('the working directory harness')\n")
    done = subprocess.run(
        [str(STEPEVAL), "check", "--lab", str(SEED_LAB)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done
    assert without_mode_notice(done.stderr) == "2 steps, 2 modules: all good"


PLANTED_SPEC = """\
project: planted
objectives:
  - id: "01"
    steps:
""" + "".join(f'      - {{id: "{n:02d}", outputs: [{{name: h{n}, type: AWS::S3::Bucket}}]}}\n' for n in range(1, 7))

GOOD_RUN = "async def run(session, context, logger):\n    return {}\n"
PLANTED_MODULES = {
    "01_01.py": GOOD_RUN,  # fine
    # 01_02.py: missing
    "01_03.py": "async def run(session, context, logger)\n    return {}\n",  # syntax error
    "01_04.py": "def run(session, context, logger):\n    return {}\n",  # not async
    "01_05.py": "async def run(session, ctx):\n    return {}\n",  # wrong signature
    "01_06.py": 'STEP = "01.06"\n',  # no run
    "01_09.py": GOOD_RUN,  # no such step
    "helper.py": "X = 1\n",  # not named after a step
}
# (file, step, what) for each planted problem
PLANTED_PROBLEMS = [
    ("01_02.py", "step 01.02", "module missing"),
    ("01_03.py", "step 01.03", "SyntaxError"),
    ("01_04.py", "step 01.04", "run is not an async def"),
    ("01_05.py", "step 01.05", "run(session, ctx) should be run(session, context, logger)"),
    ("01_06.py", "step 01.06", "defines no run()"),
    ("01_09.py", "no step 01.09", "in planted.yaml"),
    ("helper.py", "", "not named after a step (expected NN_NN.py)"),
]


@pytest.fixture(scope="module")
def planted_check(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    root = tmp_path_factory.mktemp("planted")
    (root / "specs").mkdir()
    (root / "specs" / "planted.yaml").write_text(PLANTED_SPEC)
    modules = root / "evaluation" / "boto3"
    modules.mkdir(parents=True)
    for name, text in PLANTED_MODULES.items():
        (modules / name).write_text(text)
    (modules / "__init__.py").write_text("")  # underscored files are not step modules
    return modules.resolve(), stepeval("check", "--lab", root)


def test_check_reports_every_planted_problem(planted_check: tuple[Path, Run]) -> None:
    modules, run = planted_check
    assert run.code == 1, run
    lines = run.stdout.splitlines()
    for file, step, what in PLANTED_PROBLEMS:
        matching = [line for line in lines if str(modules / file) in line and step in line and what in line]
        assert len(matching) == 1, (file, step, what, lines)
    assert not any("01_01.py" in line for line in lines)
    assert not any("__init__.py" in line for line in lines)
    assert without_mode_notice(run.stderr) == "6 steps, 7 modules: 7 problems"


def test_check_names_a_module_s_problem_as_file_line_step_as_lint_does(planted_check: tuple[Path, Run]) -> None:
    modules, run = planted_check
    assert f"{modules / '01_03.py'}:1: step 01.03: SyntaxError: " in run.stdout


def test_a_module_failing_on_import_is_named_at_its_line_in_the_traceback(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "one.yaml").write_text(PLANTED_SPEC.split('      - {id: "02"')[0])
    modules = tmp_path / "evaluation" / "boto3"
    modules.mkdir(parents=True)
    (modules / "01_01.py").write_text("import os\n\nos.no_such_name\n" + GOOD_RUN)
    run = stepeval("check", "--lab", tmp_path)
    assert run.code == 1, run
    assert run.stdout.startswith(f"{(modules / '01_01.py').resolve()}:3: step 01.01: import failed: AttributeError: ")


def test_check_prints_one_line_per_problem(planted_check: tuple[Path, Run]) -> None:
    _, run = planted_check
    assert "Traceback" not in run.stdout
    assert len(run.stdout.splitlines()) == len(PLANTED_PROBLEMS)


def test_check_lists_every_spec_problem(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "two.yaml").write_text(
        'project: two\nobjectives:\n  - id: "01"\n    steps:\n'
        '      - {id: "01", inputs: [ghost], outputs: [{name: a, type: AWS::S3::Bucket}]}\n'
        '      - {id: "02", outputs: [{name: a, type: AWS::S3::Bucket}]}\n'
    )
    run = stepeval("check", "--lab", tmp_path)
    assert run.code == 1, run
    spec = tmp_path.resolve() / "specs" / "two.yaml"
    assert run.stdout.splitlines() == [
        f"{spec}: step 01.01: inputs: 'ghost' is not an output of an earlier step",
        f"{spec}: step 01.02: outputs: duplicate handle name 'a'",
    ]
    assert run.stderr.strip() == "2 problems in the spec"


@pytest.mark.parametrize("command", ["check", "lint"])
def test_a_lab_that_does_not_exist_is_bad_input(tmp_path: Path, command: str) -> None:
    missing = (tmp_path / "nowhere").resolve()
    assert_bad_input(stepeval(command, "--lab", missing), f"{missing}: no such lab directory")


def test_a_spec_file_given_as_the_lab_is_answered_with_its_lab_directory(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    spec = (tmp_path / "specs" / "lab.yaml").resolve()
    spec.write_text("project: x\n")
    assert_bad_input(
        stepeval("check", "--lab", spec), f"{spec}: is a file: give the lab's directory, {tmp_path.resolve()} "
    )


def test_check_a_spec_that_is_not_yaml_names_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "lab.yaml").write_text('project: x\nobjectives:\n  - id: "01"\n    steps: [\n')
    line = assert_bad_input(stepeval("check", "--lab", tmp_path), "lab.yaml:5:1: not valid YAML: expected the node")
    short = line.replace(str(tmp_path), "")  # the message's own length, wherever the run's temporary files are
    assert len(short) < 160 and "<unicode string>" not in line and "^" not in line, line


def test_check_a_spec_that_is_not_a_mapping_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "lab.yaml").write_text("- just\n- a list\n")
    assert_bad_input(stepeval("check", "--lab", tmp_path), "lab.yaml: the spec must be a mapping")


# --- -k: a pattern that selects nothing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [("test",), ("mutate",), ("report", "-o", "/dev/null"), ("test", "--json")], ids=" ".join
)
def test_k_that_selects_nothing_exits_2_naming_it(command: tuple[str, ...]) -> None:
    run = stepeval(*command, "--lab", LABS / "scenario_checks", "-k", "01_09")
    played = "mutant" if command[0] in ("mutate", "report") else "scenario"  # report plays the mutants too
    assert_bad_input(run, f"-k '01_09' selects no {played} in", "no step key (01.01, 01.02", "scenario name")


# --- files a command writes: checked before anything is played -----------------------------------------------------


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    """A regular file: nothing can be written under it."""
    path = tmp_path / "a-file"
    path.write_text("")
    return path


@pytest.mark.parametrize(
    "flag", [("test", "--html"), ("mutate", "--html"), ("test", "--json", "--html"), ("report", "-o")], ids=" ".join
)
def test_an_output_under_a_regular_file_exits_2_before_playing(flag: tuple[str, ...], a_file: Path) -> None:
    target = a_file / "dir" / "x.html"
    line = assert_bad_input(stepeval(*flag, str(target), "--lab", LABS / "scenario_checks"))
    assert f"cannot write {target}: {a_file} is not a directory" in line, line


def test_an_output_that_is_a_directory_exits_2(tmp_path: Path) -> None:
    line = assert_bad_input(stepeval("report", "-o", tmp_path, "--lab", LABS / "scenario_checks"))
    assert f"cannot write {tmp_path}: it is a directory" in line, line


def test_missing_directories_of_an_output_are_made(tmp_path: Path) -> None:
    """A path under directories that do not exist yet is fine: the report makes them (and nothing is refused)."""
    target = tmp_path / "reports" / "today" / "x.html"
    run = stepeval("report", "-o", target, "--lab", LABS / "scenario_checks", "-k", "01_09")
    assert_bad_input(run, "-k '01_09' selects no mutant")  # got past the output check, to the lab's selection


# --- --help says what the commands do --------------------------------------------------------------------------------


def test_help_names_every_exit_code_and_no_developer_notes() -> None:
    from harness.commands import demo
    from harness.commands.cli import EXIT_BAD_INPUT, EXIT_BY_STATUS, EXIT_INTERRUPTED

    done = subprocess.run([str(STEPEVAL), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # argparse wraps to the terminal's width
    for status, code in EXIT_BY_STATUS.items():
        assert f"{code} {status}" in text, text
    assert f"{EXIT_BAD_INPUT} bad input" in text and f"{EXIT_INTERRUPTED} interrupted" in text, text
    assert "Heavy imports" not in text and "boto3" not in text
    assert "demo play the two sample labs" in text and "the two sample labs" in (demo.__doc__ or "")
