"""The kit's reference in docs/user.md is written from the code: it must be what the code says now."""

from __future__ import annotations

from pathlib import Path

from harness.kit import doc

USER_DOC = Path(__file__).resolve().parents[2] / "docs" / "user.md"


def test_the_reference_in_the_docs_is_the_codes() -> None:
    text = USER_DOC.read_text(encoding="utf-8")
    written = text[text.index(doc.BEGIN) : text.index(doc.END) + len(doc.END)] + "\n"
    assert written == doc.markdown(), "docs/user.md drifted from the kit: run `python -m harness.kit.doc docs/user.md`"


def test_every_kind_and_function_says_what_it_checks() -> None:
    reference = doc.markdown()
    assert "(no docstring)" not in reference
    for name in ("`runs(task_definition)`", "`logs_to(group, container=None)`", "`encrypted_with(key)`"):
        assert name in reference
    assert "pending while State is pending (ask again after 30 s)" in reference  # the NAT gateway


def test_rewriting_changes_only_what_is_between_the_markers(tmp_path: Path) -> None:
    page = tmp_path / "user.md"
    page.write_text(f"before\n{doc.BEGIN}\nstale\n{doc.END}\nafter\n", encoding="utf-8")
    assert doc.rewrite(page) is True
    assert page.read_text(encoding="utf-8") == f"before\n{doc.markdown().rstrip()}\nafter\n"
    assert doc.rewrite(page) is False


def test_every_kind_shows_the_shape_of_what_its_requirements_receive() -> None:
    reference = doc.markdown()
    from harness.kit import catalog

    for type_name in catalog.kinds():
        module, name = catalog.reference(type_name)  # type: ignore[misc]
        assert f"A requirement on `{name}` receives " in reference, f"{module}.{name} has no shape under it"
