"""The lab report: one self-contained HTML file (no network when viewed) for authors and reviewers.

The step graph drawn from the spec (which step's outputs feed which step), then each step: its instruction,
its scenarios with their answers (checks expected vs actual), its mutants when `stepeval mutate` ran, and the
time each took. Inline CSS and SVG; a few lines of inline script open every answer before printing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from html import escape
from pathlib import Path

from harness.authoring.mutation import MutantResult, MutationRun
from harness.authoring.playthrough import ScenarioResult
from harness.commands.render import kind_shown
from harness.core.lab import Lab, StepSpec

NODE_W, NODE_H, NODE_GAP, MARGIN = 360, 44, 18, 16
ARC_STEP = 26  # how far right each level of arc reaches

STYLE = """
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 20px 24px 60px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 6px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.muted { color: var(--muted); } .ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
.summary { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0 4px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; background: var(--bg); }
.card b { font-size: 18px; display: block; }
.layout { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 24px; align-items: start; }
@media (max-width: 900px) { .layout { grid-template-columns: minmax(0, 1fr); } }
svg.graph { max-width: 100%; height: auto; }
svg.graph .node rect { fill: #fff; stroke: var(--line); stroke-width: 1.5; rx: 6; }
svg.graph .node.ok rect { stroke: var(--ok); } svg.graph .node.bad rect { stroke: var(--bad); stroke-width: 2.5; }
svg.graph .node text { font-size: 12px; fill: #1f2328; }
svg.graph .node .key { font-weight: 700; }
svg.graph .edge { fill: none; stroke: #8c959f; stroke-width: 1.4; }
svg.graph a:hover rect { fill: var(--bg); }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
table.overview { width: auto; } table.overview td { padding: 4px 14px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, .mono { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code.call { display: block; white-space: pre-wrap; word-break: break-all; background: var(--bg); padding: 4px 6px; }
details { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details > summary { cursor: pointer; padding: 6px 10px; list-style-position: inside; }
details.notok { border-color: var(--bad); } details.notok > summary { background: #ffebe9; }
details > .body { padding: 4px 12px 10px; }
.tag { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; border: 1px solid var(--line); }
.tag.pass, .tag.killed { color: var(--ok); border-color: var(--ok); }
.tag.fail, .tag.survived, .tag.error, .tag.broken { color: var(--bad); border-color: var(--bad); }
.tag.equivalent, .tag.invalid { color: var(--muted); }
.tag.pending { color: #0969da; border-color: #0969da; }
section.step { border-top: 2px solid var(--line); margin-top: 26px; }
@media print {
  main { max-width: none; padding: 0; } section.step { break-inside: avoid-page; }
  details { break-inside: avoid; } details > summary { list-style: none; }
}
"""

SCRIPT = (
    "window.addEventListener('beforeprint', () => document.querySelectorAll('details').forEach(d => d.open = true));"
)


def write_report(
    lab: Lab, path: Path, scenarios: list[ScenarioResult], mutation: MutationRun | None = None, elapsed_s: float = 0.0
) -> Path:
    """Write the report to `path` (parent directories made) and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(lab, scenarios, mutation, elapsed_s), encoding="utf-8")
    return path


def render(
    lab: Lab, scenarios: list[ScenarioResult], mutation: MutationRun | None = None, elapsed_s: float = 0.0
) -> str:
    """The whole report as one HTML document."""
    by_step: dict[str, list[ScenarioResult]] = {}
    for result in scenarios:
        by_step.setdefault(result.step, []).append(result)
    mutants: dict[str, list[MutantResult]] = {}
    for mutant in mutation.mutants if mutation else []:
        mutants.setdefault(mutant.step, []).append(mutant)
    healthy = {
        key: all(r.ok for r in by_step.get(key, [])) and not any(m.outcome == "survived" for m in mutants.get(key, []))
        for key in lab.steps
    }
    title = lab.spec.title or lab.spec.project
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{escape(title)}: stepeval report</title><style>{STYLE}</style></head><body><main>",
        f"<h1>{escape(title)}</h1>",
        f"<div class='muted'>{escape(lab.spec.project)} · {len(lab.steps)} steps · generated "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by stepeval</div>",
        _summary(scenarios, mutation, elapsed_s),
        "<h2>Step graph</h2><p class='muted'>Each step, in order; an arc carries the handles an earlier step "
        "outputs to a later step that takes them as inputs. A red box has a scenario not as expected or a "
        "surviving mutant. Click a step to go to it.</p>",
        f"<div class='layout'>{step_graph(lab, healthy)}{_overview(lab, by_step, mutants, mutation is not None)}</div>",
    ]
    for key, step in lab.steps.items():
        parts.append(_step_section(step, by_step.get(key, []), mutants.get(key), mutation is not None))
    parts.append(f"</main><script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)


def step_graph(lab: Lab, healthy: dict[str, bool] | None = None) -> str:
    """An inline SVG arc diagram: one box per step, top to bottom; an arc from producer to consumer per handle."""
    keys = list(lab.steps)
    producer = {o.name: key for key, step in lab.steps.items() for o in step.step.outputs}
    edges: dict[tuple[int, int], list[str]] = {}
    for index, key in enumerate(keys):
        for handle in lab.steps[key].step.inputs:
            if handle in producer:
                edges.setdefault((keys.index(producer[handle]), index), []).append(handle)
    reach = max((b - a for a, b in edges), default=1)
    width = MARGIN * 2 + NODE_W + ARC_STEP * (reach + 1)
    height = MARGIN * 2 + len(keys) * (NODE_H + NODE_GAP) - NODE_GAP
    out = [
        f"<svg class='graph' role='img' aria-label='step graph' xmlns='http://www.w3.org/2000/svg' "
        f"width='{width}' height='{height}' viewBox='0 0 {width} {height}'>"
    ]
    right = MARGIN + NODE_W
    for (source, target), handles in sorted(edges.items()):
        y1, y2 = _middle(source) - 6, _middle(target) + 6
        bulge = right + ARC_STEP * (target - source)
        out.append(
            f"<path class='edge' data-from='{keys[source]}' data-to='{keys[target]}' "
            f"d='M {right} {y1} C {bulge} {y1}, {bulge} {y2}, {right} {y2}' marker-end='url(#arrow)'>"
            f"<title>{escape(keys[source])} → {escape(keys[target])}: {escape(', '.join(handles))}</title></path>"
        )
    out.append(
        "<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' markerHeight='7' "
        "orient='auto-start-reverse'><path d='M 0 0 L 10 5 L 0 10 z' fill='#8c959f'/></marker></defs>"
    )
    for index, key in enumerate(keys):
        step = lab.steps[key]
        state = "" if healthy is None else (" ok" if healthy.get(key) else " bad")
        top = MARGIN + index * (NODE_H + NODE_GAP)
        outputs = ", ".join(o.name for o in step.step.outputs)
        out.append(
            f"<a href='#step-{_anchor(key)}'><g class='node{state}' data-step='{key}'>"
            f"<rect x='{MARGIN}' y='{top}' width='{NODE_W}' height='{NODE_H}'/>"
            f"<text x='{MARGIN + 10}' y='{top + 18}'><tspan class='key'>{key}</tspan> "
            f"{escape(_clip(step.step.title or '', 42))}</text>"
            f"<text x='{MARGIN + 10}' y='{top + 35}' class='muted' fill='#57606a'>→ {escape(_clip(outputs, 50))}</text>"
            f"<title>{escape(key)}: outputs {escape(outputs)}</title></g></a>"
        )
    out.append("</svg>")
    return "".join(out)


def _overview(
    lab: Lab, by_step: dict[str, list[ScenarioResult]], mutants: dict[str, list[MutantResult]], mutated: bool
) -> str:
    """One row per step: scenarios as expected, the mutation score and survivors, the time its scenarios took."""
    head = "<tr><th>step</th><th>scenarios</th>" + ("<th>mutants</th><th>survivors</th>" if mutated else "")
    rows = [f"<table class='overview'>{head}<th>time</th></tr>"]
    for key in lab.steps:
        results = by_step.get(key, [])
        ok = sum(r.ok for r in results)
        cells = [
            f"<td><a href='#step-{_anchor(key)}'>{key}</a></td>",
            f"<td class='num {'ok' if ok == len(results) else 'bad'}'>{ok} / {len(results)}</td>",
        ]
        if mutated:
            step_mutants = mutants.get(key, [])
            counted = [m for m in step_mutants if m.outcome in ("killed", "survived", "error")]
            killed = sum(m.outcome == "killed" for m in counted)
            survivors = sum(m.outcome == "survived" for m in step_mutants)
            score = f"{killed / len(counted):.0%}" if counted else "n/a"
            cells.append(f"<td class='num'>{score}</td>")
            cells.append(f"<td class='num {'bad' if survivors else 'ok'}'>{survivors}</td>")
        seconds = sum(r.duration_ms for r in results) / 1000
        cells.append(f"<td class='num'>{seconds:.1f} s</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    rows.append("</table>")
    return "".join(rows)


def _middle(index: int) -> float:
    return MARGIN + index * (NODE_H + NODE_GAP) + NODE_H / 2


def _summary(scenarios: list[ScenarioResult], mutation: MutationRun | None, elapsed_s: float) -> str:
    unexpected = sum(not r.ok for r in scenarios)
    cards = [
        ("scenarios", f"{len(scenarios) - unexpected} / {len(scenarios)}", "as expected", unexpected == 0),
    ]
    if mutation is not None:
        lab = mutation.lab()
        score = "n/a" if lab.score is None else f"{lab.score:.0%}"
        detail = f"{lab.killed} killed · {lab.survived} survived · {lab.equivalent} equivalent · {lab.invalid} invalid"
        cards.append(("mutation score", score, detail, not mutation.survivors))
    if elapsed_s:
        cards.append(("time", f"{elapsed_s:.1f} s", "whole run", True))
    shown = "".join(
        f"<div class='card' data-card='{escape(name)}'><span class='muted'>{escape(name)}</span>"
        f"<b class='{'ok' if good else 'bad'}'>{escape(value)}</b><span class='muted'>{escape(detail)}</span></div>"
        for name, value, detail, good in cards
    )
    return f"<div class='summary'>{shown}</div>"


def _step_section(
    step: StepSpec, results: list[ScenarioResult], mutants: list[MutantResult] | None, mutated: bool
) -> str:
    spec = step.step
    parts = [
        f"<section class='step' id='step-{_anchor(step.key)}' data-step='{step.key}'>",
        f"<h2>{step.key} {escape(spec.title or '')}</h2>",
        f"<p>{escape(spec.description or '')}</p>" if spec.description else "",
        "<table class='handles'><tr><th>inputs</th><th>outputs</th></tr>"
        f"<tr><td class='mono'>{escape(', '.join(spec.inputs) or '-')}</td>"
        f"<td class='mono'>{escape(', '.join(f'{o.name} ({o.type})' for o in spec.outputs))}</td></tr></table>",
        f"<h3>Scenarios ({sum(r.ok for r in results)} of {len(results)} as expected)</h3>",
    ]
    parts.extend(_scenario(result) for result in results)
    if not results:
        parts.append("<p class='muted'>Not played in this run.</p>")
    if mutated:
        parts.append(_mutants(mutants or []))
    parts.append("</section>")
    return "\n".join(parts)


def _scenario(result: ScenarioResult) -> str:
    expected = result.expected + (f" ~ /{result.expected_issue}/" if result.expected_issue else "")
    mark = "<span class='ok'>as expected</span>" if result.ok else "<span class='bad'>NOT as expected</span>"
    kind = kind_shown(result) or result.kind
    summary = (
        f"<summary><b>{escape(result.scenario)}</b> <span class='muted'>({kind})</span> · expected "
        f"{escape(expected)} · got <span class='tag {result.got}'>{result.got}</span> · {mark} "
        f"<span class='muted'>· {result.duration_ms:.0f} ms</span></summary>"
    )
    body = [] if result.ok else [f"<p class='bad'>Expected {escape(expected)}, got {escape(result.got)}.</p>"]
    body.append(f"<p>{escape(result.issue or result.detail or '')}</p>")
    answer = result.answer
    if answer is not None:
        if answer.failure_context:
            body.append(f"<p><b>hint:</b> {escape(answer.failure_context.hint_context)}</p>")
        if answer.retry_after_s is not None:
            body.append(
                f"<p><b>pending:</b> AWS is still working on it (not a verdict); ask again in "
                f"{answer.retry_after_s} s.</p>"
            )
        if answer.error:
            body.append(f"<p class='bad'><b>error {answer.error.kind}:</b> {escape(answer.error.detail)}</p>")
        checks = answer.checks
        if checks:
            rows = "".join(
                f"<tr class='{'ok' if c.ok else 'bad'}'><td>{'✓' if c.ok else '✗'}</td>"
                f"<td class='mono'>{escape(c.handle or '')}</td><td>{escape(c.check)}</td>"
                f"<td class='mono'>{escape(_value(c.expected))}</td>"
                f"<td class='mono'>{escape(_value(c.actual))}</td></tr>"
                for c in checks
            )
            body.append(
                "<table class='checks'><tr><th></th><th>handle</th><th>check</th><th>expected</th><th>actual</th></tr>"
                f"{rows}</table>"
            )
        if answer.resolved:
            resolved = ", ".join(f"{h.name} = {h.id}" for h in answer.resolved)
            body.append(f"<p class='muted mono'>resolved: {escape(resolved)}</p>")
    elif result.detail:
        body[-1] = f"<pre class='mono'>{escape(result.detail)}</pre>"
    if result.events:
        events = ", ".join(f"{e.type} {e.id}" for e in result.events)
        body.append(f"<p class='muted mono'>events given: {escape(events)}</p>")
    state = "expected" if result.ok else "notok"
    return (
        f"<details class='scenario {state}' data-scenario='{escape(result.scenario)}'>{summary}"
        f"<div class='body'>{''.join(body)}</div></details>"
    )


def _mutants(mutants: list[MutantResult]) -> str:
    if not mutants:
        return "<h3>Mutants</h3><p class='muted'>None played for this step.</p>"
    counted = [m for m in mutants if m.outcome in ("killed", "survived", "error")]
    killed = sum(m.outcome == "killed" for m in counted)
    score = f"{killed / len(counted):.0%}" if counted else "n/a"
    rows = "".join(_mutant_row(m) for m in _ordered(mutants))
    return (
        f"<h3>Mutants (score {score}: {killed} of {len(counted)} killed)</h3>"
        "<table class='mutants'><tr><th>outcome</th><th>mutant</th><th>what the evaluator said</th>"
        f"<th>ms</th></tr>{rows}</table>"
    )


def _mutant_row(mutant: MutantResult) -> str:
    said = mutant.sentence
    if mutant.reason and mutant.outcome == "equivalent":
        said += f" (marked equivalent: {mutant.reason})"
    return (
        f"<tr class='mutant {mutant.outcome}'><td><span class='tag {mutant.outcome}'>{mutant.outcome}</span></td>"
        f"<td><span class='mono'>{escape(mutant.id)}</span><code class='call'>{escape(mutant.call)}</code></td>"
        f"<td>{escape(said)}</td><td class='num'>{mutant.duration_ms:.0f}</td></tr>"
    )


def _ordered(mutants: Iterable[MutantResult]) -> list[MutantResult]:
    rank = {"survived": 0, "error": 1, "broken": 2, "equivalent": 3, "killed": 4, "invalid": 5}
    return sorted(mutants, key=lambda m: rank.get(m.outcome, 9))


def _value(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)


def _anchor(key: str) -> str:
    return key.replace(".", "-")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
