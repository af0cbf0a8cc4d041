"""The labs a service holds and their versions (harness/service/catalog.py), on a real worker pool: the versions
kept, a rollback taking back the version still held, a dropped version's copy kept while a request holds it and
removed when none does, a renamed lab directory the same version."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.core.errors import BadInput
from harness.core.lab import load_lab
from harness.core.lab_version import lab_version
from harness.sandbox.pool import WorkerPool
from harness.service.catalog import LabCatalog
from harness.service.problems import Problem
from tests.fixtures.service import make_labs

pytestmark = pytest.mark.process  # reloads import the modules in evaluation processes


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(1) as pool:
        pool.start()  # on this thread: the template dies with the thread that started it (its parent-death signal)
        yield pool


def edit(module: Path, marker: str) -> None:
    module.write_text(module.read_text() + f"\n# {marker}\n")


def test_versions_kept_a_rollback_and_a_dropped_copy_in_use(pool: WorkerPool, tmp_path: Path) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs, kept=2)
    try:
        module = labs / "alpha" / "evaluation" / "boto3" / "01_02.py"
        first = catalog.choose("lab-alpha", None)
        assert first.version == lab_version(load_lab(labs / "alpha")) and first.copy.is_dir()
        edit(module, "second")
        assert catalog.reload("test")["changed"] == [f"lab-alpha@{lab_version(load_lab(labs / 'alpha'))}"]
        second = catalog.choose("lab-alpha", None)
        assert [v.version for v in catalog.labs["lab-alpha"].versions] == [second.version, first.version]
        assert catalog.choose("lab-alpha", first.version) is first

        leased = catalog.lease("lab-alpha", first.version)  # a request admitted on it, waiting for a worker
        with catalog.using(first):  # an evaluation on the oldest version while a third one arrives
            edit(module, "third")
            outcome = catalog.reload("test")
            assert outcome["problems"] == [] and len(outcome["changed"]) == 1, outcome
            third = catalog.choose("lab-alpha", None)
            assert [v.version for v in catalog.labs["lab-alpha"].versions] == [third.version, second.version]
            with pytest.raises(Problem) as gone:
                catalog.choose("lab-alpha", first.version)
            assert gone.value.status == 409 and third.version in gone.value.message
            assert first.copy.is_dir()  # still running on it
        assert first.copy.is_dir()  # still held by the admitted request
        catalog.release(leased)
        assert not first.copy.exists()  # gone with the last request on it

        module.write_text(module.read_text().replace("\n# third\n", ""))  # back to the second version's files
        assert catalog.reload("rollback")["changed"] == [f"lab-alpha@{second.version}"]
        assert catalog.choose("lab-alpha", None) is second  # the copy held, not a new one
        assert catalog.choose("lab-beta", None).version == lab_version(load_lab(labs / "beta"))  # untouched
    finally:
        catalog.close()
    assert not catalog.copies.exists()


def test_a_name_is_required_among_several_and_must_be_served(pool: WorkerPool, tmp_path: Path) -> None:
    catalog = LabCatalog(pool, labs_dir=make_labs(tmp_path / "labs"))
    try:
        for name, status, field in ((None, 422, "lab"), ("lab-delta", 422, "lab")):
            with pytest.raises(Problem) as refused:
                catalog.choose(name, None)
            assert (refused.value.status, refused.value.field) == (status, field)
            assert "lab-alpha, lab-beta, lab-gamma" in refused.value.message
    finally:
        catalog.close()


def test_a_directory_without_labs_is_bad_input(pool: WorkerPool, tmp_path: Path) -> None:
    (tmp_path / "empty" / "not-a-lab").mkdir(parents=True)
    with pytest.raises(BadInput, match="no lab could be loaded"):
        LabCatalog(pool, labs_dir=tmp_path / "empty")
    with pytest.raises(BadInput, match="not a directory"):
        LabCatalog(pool, labs_dir=tmp_path / "nowhere")


def copies(catalog: LabCatalog) -> list[str]:
    """The copies held (those set aside, named with a leading dot, are being removed)."""
    return sorted(path.name for path in catalog.copies.iterdir() if not path.name.startswith("."))


def removed(catalog: LabCatalog) -> bool:
    """Whether every copy set aside is gone (their removal runs on a thread of its own)."""
    ends = time.monotonic() + 30
    while any(path.name.startswith(".") for path in catalog.copies.iterdir()) and time.monotonic() < ends:
        time.sleep(0.05)
    return not any(path.name.startswith(".") for path in catalog.copies.iterdir())


def test_a_renamed_lab_directory_with_the_same_files_is_the_same_version(pool: WorkerPool, tmp_path: Path) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs, kept=2)
    try:
        module = labs / "alpha" / "evaluation" / "boto3" / "01_02.py"
        first = catalog.choose("lab-alpha", None)
        edit(module, "second")
        catalog.reload("test")
        second = catalog.choose("lab-alpha", None)
        on_disk = copies(catalog)

        (labs / "alpha").rename(labs / "alpha-v2")  # the integrator's rm + ln -s: the same files, another name
        outcome = catalog.reload("renamed")
        assert (outcome["changed"], outcome["problems"]) == ([], [])
        described = {lab["lab"]: lab for lab in catalog.describe()}["lab-alpha"]
        assert described["versions"] == [second.version, first.version]  # each once: the one before still held
        assert described["directory"] == str(labs / "alpha-v2") and described["reload_problem"] is None
        assert catalog.choose("lab-alpha", first.version) is first
        assert copies(catalog) == on_disk  # no second copy of a version held

        (labs / "alpha-v2").rename(labs / "alpha")  # and back, the files edited back to the first version
        module.write_text(module.read_text().replace("\n# second\n", ""))
        assert catalog.reload("rollback")["changed"] == [f"lab-alpha@{first.version}"]
        assert [v.version for v in catalog.labs["lab-alpha"].versions] == [first.version, second.version]
    finally:
        catalog.close()


def test_copies_of_versions_that_failed_to_load_or_were_dropped_are_removed(pool: WorkerPool, tmp_path: Path) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs, kept=2)
    try:
        served = copies(catalog)
        assert len(served) == 3  # one per lab
        module = labs / "beta" / "evaluation" / "boto3" / "01_02.py"
        module.write_text("import no_such_module_anywhere\n")
        outcome = catalog.reload("broken")
        assert outcome["changed"] == [] and "no_such_module_anywhere" in outcome["problems"][0]
        assert copies(catalog) == served  # the version that did not load left nothing behind

        alpha = labs / "alpha" / "evaluation" / "boto3" / "01_02.py"
        for marker in ("second", "third", "fourth"):
            edit(alpha, marker)
            assert len(catalog.reload(marker)["changed"]) == 1
        held = {f"alpha-{v.version}" for v in catalog.labs["lab-alpha"].versions}
        assert len(held) == 2 and set(copies(catalog)) == held | {name for name in served if "alpha" not in name}
    finally:
        catalog.close()


def test_a_lab_whose_project_becomes_another_labs_does_not_take_it_over(pool: WorkerPool, tmp_path: Path) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs)
    try:
        alpha, beta, gamma = (catalog.choose(f"lab-{name}", None) for name in ("alpha", "beta", "gamma"))
        spec = labs / "alpha" / "specs" / "service-tests.yaml"  # alpha's directory sorts before beta's
        spec.write_text(spec.read_text().replace("project: lab-alpha", "project: lab-beta"))
        for edited in ("the same files as beta's", "files of its own"):
            outcome = catalog.reload(edited)
            assert outcome["changed"] == [], (edited, outcome)
            assert catalog.choose("lab-beta", None) is beta, edited  # still judged by beta's own files
            assert [v.version for v in catalog.labs["lab-beta"].versions] == [beta.version]
            assert catalog.labs["lab-beta"].reload_problem is None and beta.source == labs / "beta"
            assert catalog.choose("lab-alpha", None) is alpha  # alpha keeps the version it had, said why
            said = f"{labs / 'alpha'}: project 'lab-beta' is already served from {labs / 'beta'}"
            assert catalog.labs["lab-alpha"].reload_problem == said and catalog.problems == [said]
            assert copies(catalog) == sorted(p.name for p in (alpha.copy, beta.copy, gamma.copy)) and removed(catalog)
            edit(labs / "alpha" / "evaluation" / "boto3" / "01_02.py", "alpha's own")
    finally:
        catalog.close()


def test_a_link_out_of_the_lab_is_never_copied_where_evaluations_read(
    pool: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPEVAL_TEST_SECRET", "service-only-secret")  # in the environment /proc/self/environ shows
    labs = make_labs(tmp_path / "labs")
    (labs / "beta" / "evaluation" / "boto3" / "env.txt").symlink_to("/proc/self/environ")
    (labs / "gamma" / "evaluation" / "boto3" / "inside.py").symlink_to("01_02.py")  # inside the lab: its own file
    catalog = LabCatalog(pool, labs_dir=labs)
    try:
        assert sorted(catalog.labs) == ["lab-alpha", "lab-gamma"]
        [problem] = catalog.problems
        assert problem.startswith(f"{labs / 'beta' / 'evaluation' / 'boto3' / 'env.txt'}: a link to /proc/"), problem
        assert "outside the lab's directory" in problem
        alpha = catalog.choose("lab-alpha", None)
        (labs / "alpha" / "specs" / "notes.txt").symlink_to("/proc/self/environ")
        catalog.reload("test")
        assert catalog.choose("lab-alpha", None) is alpha  # keeps the version it had, said why
        assert "specs/notes.txt: a link to /proc/" in (catalog.labs["lab-alpha"].reload_problem or "")
        copied = [path.read_bytes() for path in catalog.copies.rglob("*") if path.is_file()]
        assert copied and not any(b"service-only-secret" in content for content in copied)
    finally:
        catalog.close()


def test_a_copy_of_many_files_is_not_removed_on_the_thread_that_answers(
    pool: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs, kept=2)
    try:
        first = catalog.choose("lab-alpha", None)
        leased = catalog.lease("lab-alpha", first.version)  # a request admitted on the first version
        for marker in ("second", "third"):  # the first version dropped while the request holds it
            edit(labs / "alpha" / "evaluation" / "boto3" / "01_02.py", marker)
            catalog.reload("test")
        assert first.dropped and first.copy.is_dir()

        gate, removing = threading.Event(), shutil.rmtree  # a removal as slow as the operator's disk makes it
        monkeypatch.setattr(shutil, "rmtree", lambda *a, **k: (gate.wait(30), removing(*a, **k)))
        answering = threading.Thread(target=catalog.release, args=(leased,))  # as the event loop calls it
        answering.start()
        answering.join(10)
        returned = not answering.is_alive()
        gate.set()
        answering.join()
        assert returned, "release waited for the copy's removal"
        assert not first.copy.exists() and removed(catalog)
    finally:
        catalog.close()


def test_a_new_lab_whose_module_does_not_import_is_not_served_until_it_does(pool: WorkerPool, tmp_path: Path) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs)
    try:
        delta = shutil.copytree(labs / "beta", labs / "delta")
        spec = delta / "specs" / "service-tests.yaml"
        spec.write_text(spec.read_text().replace("project: lab-beta", "project: lab-delta"))
        module = delta / "evaluation" / "boto3" / "01_02.py"
        working = module.read_text()
        module.write_text("this is not python(\n")
        outcome = catalog.reload("test")
        assert outcome["changed"] == [] and "lab-delta" not in catalog.labs, outcome
        [problem] = outcome["problems"]
        assert problem.startswith(f"{delta}: version ") and f"{module}:1: step 01.02: SyntaxError" in problem, problem
        assert catalog.unserved == {delta: problem} and catalog.degraded() == []  # said; readiness left alone
        assert removed(catalog) and len(copies(catalog)) == 3  # its copy gone
        module.write_text(working)
        assert catalog.reload("fixed")["changed"] == [f"lab-delta@{catalog.choose('lab-delta', None).version}"]
    finally:
        catalog.close()


def test_a_directory_that_comes_to_hold_another_project_says_so_of_the_lab_it_held(
    pool: WorkerPool, tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    catalog = LabCatalog(pool, labs_dir=labs)
    try:
        alpha = catalog.choose("lab-alpha", None)
        spec = labs / "alpha" / "specs" / "service-tests.yaml"
        spec.write_text(spec.read_text().replace("project: lab-alpha", "project: lab-omega"))
        outcome = catalog.reload("renamed")
        assert outcome["changed"] == [f"lab-omega@{catalog.choose('lab-omega', None).version}"], outcome
        assert catalog.choose("lab-alpha", None) is alpha  # learners mid-lab keep it, said why
        said = f"{labs / 'alpha'}: now holds project 'lab-omega': still serving lab-alpha's last version"
        assert catalog.labs["lab-alpha"].reload_problem == said and outcome["problems"] == [said]
    finally:
        catalog.close()
