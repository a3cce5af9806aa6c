"""perfgate.report.attribution: the report's "where it moved" section of the sim cases
beyond their threshold (golden markdown and HTML; escaped names; absent for an A/A run).

Regenerate the golden files with ``pytest --update-golden`` on this file."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import pytest
from golden_check import check_golden

from perfgate.config_files import load_config
from perfgate.gate.decide import decide
from perfgate.gate.publish import replace_reports
from perfgate.model import CaseComparison, CaseKey
from perfgate.report.attribution import artifact_files
from perfgate.report.render import Report, render_html, render_markdown
from perfgate.sim.attribution.case import parse_case
from perfgate.sim.attribution.findings import CaseAttribution, attribute_rows
from perfgate.sim.attribution.sides import KeptSide
from perfgate.sim.attribution.table import FunctionsTable
from perfgate.sim.cost import EVENT_NAMES
from perfgate.verdict import CaseVerdict

HERE = Path(__file__).parent.parent  # tests/perfgate: golden/ and data/
GOLDEN = HERE / "golden"
CONFIG = dataclasses.replace(
    load_config(HERE / "data" / "pyproject-perfgate.toml"), confirm=False, source="ref"
)
FAMILY = "sim_hot.SimHot"
ASM = "\t.type\tk,@function\nk:\n\tvaddpd\t%ymm0, %ymm1, %ymm1\n\tjne\t.L1\n\tretq\n"
ASM_ALLOC = "\t.type\tk,@function\nk:\n\tcallq\t*%rcx\n\tvaddsd\t%xmm0, %xmm1, %xmm1\n\tretq\n"


def _costs(ir: float) -> tuple[float, ...]:
    return (ir,) + (0.0,) * (len(EVENT_NAMES) - 1)


def _table(own: dict[str, float], kernels: frozenset[str] = frozenset()) -> FunctionsTable:
    costs = {label: _costs(ir) for label, ir in own.items()}
    calls = {("Dispatcher_call", label): (1.0, _costs(ir)) for label, ir in own.items()}
    return FunctionsTable(EVENT_NAMES, costs, dict(costs), calls, kernels)


def _key(path: str) -> CaseKey:
    return CaseKey(f"{FAMILY}.track_cycles", (("task", "g1"), ("path", path)))


def _row(path: str, verdict: CaseVerdict = CaseVerdict.REGRESSED) -> CaseComparison:
    return CaseComparison(
        _key(path), verdict, 0.01, True, ratio=1.03, base_median=1e7, head_median=1.03e7,
        n_base=2, n_head=1, unit="cycles", instrument="sim", figure="instructions",
    )  # fmt: skip


def _attributions(kernel_label: str = "motion_kernel (parfor loop)") -> list[CaseAttribution]:
    """Three cases beyond the threshold: work added inside a kernel (its code allocating),
    work added around another kernel (whose code is the same), and a case the head kept no
    table of."""
    motion, hand = frozenset({kernel_label}), frozenset({"hand_kernel"})
    base = {
        "assembled": _table({kernel_label: 1e7, "main": 5e3}, motion),
        "handwritten": _table({"hand_kernel": 1e7, "main": 5e3}, hand),
        "numpy": _table({"main": 1e7}),
    }
    head = {
        "assembled": _table({kernel_label: 1.03e7, "main": 5e3, "memset": 1.6e4}, motion),
        "handwritten": _table(
            {"hand_kernel": 1e7, "main": 5e3, "FLOAT_pairwise_sum": 1.24e5}, hand
        ),
    }
    code = {"motion_kernel": (ASM, ""), "hand_kernel": (ASM, "")}
    kept_base = KeptSide({FAMILY: {f"g1-{p}": t for p, t in base.items()}}, {FAMILY: code})
    code = {**code, "motion_kernel": (ASM_ALLOC, "")}
    kept_head = KeptSide({FAMILY: {f"g1-{p}": t for p, t in head.items()}}, {FAMILY: code})
    rows = [_row("assembled"), _row("handwritten"), _row("numpy")]
    return attribute_rows(rows, kept_base, kept_head, 0.001)


def _report(found: list[CaseAttribution]) -> Report:
    rows = [_row(p) for p in ("assembled", "handwritten", "numpy")]
    decision = decide(rows, [], CONFIG)
    return Report(
        decision=decision, config=CONFIG, base="1" * 40, head="a" * 40, machine="m",
        command="perfgate gate", rows=rows, attribution=found,
    )  # fmt: skip


def _section(text: str, start: str, end: str) -> str:
    """The part of ``text`` from ``start`` to the next ``end`` after it."""
    first = text.index(start)
    return text[first : text.index(end, first + len(start))]


def test_golden_markdown_section() -> None:
    """Each case names the function or kernel that moved most first; the kernel change
    shows both sides' code summaries; the case without a table says so."""
    text = render_markdown(_report(_attributions()))
    section = _section(text, "#### Where it moved", "#### Improvements")
    check_golden(GOLDEN / "attribution_section.md", section)
    first = section.split("**▲ slower sim\\_hot.SimHot(task=g1, path=assembled)**: ")[1]
    assert first.startswith("**motion\\_kernel** (Numba kernel) moved most")


def test_golden_html_section() -> None:
    text = render_html(_report(_attributions()))
    check_golden(GOLDEN / "attribution_section.html", _section(text, "<h2>Where it moved", "<h2>"))


def test_an_a_a_report_has_no_section() -> None:
    """No case beyond its threshold: no attribution, no section."""
    report = dataclasses.replace(_report([]), rows=[_row("assembled", CaseVerdict.UNCHANGED)])
    assert "Where it moved" not in render_markdown(report)
    assert "Where it moved" not in render_html(report)


def test_function_names_from_the_head_are_escaped() -> None:
    """A function's name is the head's text: it cannot break the table, open code spans,
    inject HTML or mention anyone."""
    evil = "k|`x`<script>@team"
    text = render_markdown(_report(_attributions(evil)))
    assert "<script>" not in text and "@team" not in text
    assert "k\\|\\`x\\`&lt;script&gt;@\u2060team" in text
    assert "<script>" not in render_html(_report(_attributions(evil)))


def test_golden_first_screen_names_where_each_case_moved() -> None:
    """The first screen, under what blocked, names per case the function or kernel that
    moved most (and a kernel's code change); a case without a table is left to the section."""
    report = _report(_attributions())
    markdown = _section(render_markdown(report), "**Where it moved (sim):**", "**Could see:**")
    html = _section(render_html(report), '<div id="where">', '<p id="seen">')
    check_golden(GOLDEN / "attribution_glance.md", markdown)
    check_golden(GOLDEN / "attribution_glance.html", html)
    assert "numpy" not in markdown


def test_the_html_report_draws_each_cases_flame_graph_and_names_its_files() -> None:
    """Each attributed case with tables gets its differential flame graph inline (the SVG,
    not escaped text) and links to its files next to the report; the files are what the
    publisher writes: the flame graph and the diffs of a kernel whose code changed."""
    found = _attributions()
    html = render_html(_report(found))
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="flame"') == 2
    files = artifact_files(found)
    assert set(files) == {
        "attribution/01-g1-assembled/flame.svg",
        "attribution/01-g1-assembled/motion_kernel.s.diff",
        "attribution/02-g1-handwritten/flame.svg",
    }
    assert '<a href="attribution/01-g1-assembled/motion_kernel.s.diff">' in html
    assert "Files next to this report: attribution/01-g1-assembled/flame.svg" in (
        render_markdown(_report(found)).replace("\\", "")
    )


def test_the_publisher_writes_the_cases_files_and_moves_them_aside_with_the_report(
    tmp_path: Path,
) -> None:
    """``replace_reports`` writes each attributed case's files under ``attribution/`` beside
    the report; the next report moves them to ``previous/<time>/`` with the report files, so
    nothing is overwritten and no stale flame graph sits beside a newer report."""
    found = _attributions()
    report = _report(found)
    replace_reports(tmp_path, report, render_markdown(report))
    flame = tmp_path / "attribution" / "01-g1-assembled" / "flame.svg"
    assert flame.read_text().startswith("<svg")
    assert (tmp_path / "attribution" / "01-g1-assembled" / "motion_kernel.s.diff").is_file()
    replace_reports(tmp_path, report, render_markdown(report))
    (previous,) = (tmp_path / "previous").iterdir()
    assert (previous / "attribution" / "01-g1-assembled" / "flame.svg").is_file()
    assert flame.is_file() and (previous / "report.md").is_file()


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_reports_flame_graphs_render_in_chromium(tmp_path: Path) -> None:
    """The HTML report as written, opened in headless Chromium with its flame graphs'
    details open: each graph is drawn (frames of positive width inside its box)."""
    import browser

    found = _attributions()
    page = tmp_path / "report.html"
    page.write_text(render_html(_report(found)))
    with browser.session(1280, 800) as chromium:
        chromium.open(page.as_uri())
        graphs = chromium.run(
            "document.querySelectorAll('details').forEach(d => d.open = true);"
            "return Array.from(document.querySelectorAll('svg.flame')).map(s => {"
            "  const b = s.getBoundingClientRect();"
            "  const r = Array.from(s.querySelectorAll('rect'))"
            "    .map(e => e.getBoundingClientRect().width);"
            "  return {width: b.width, rects: r}; });"
        )
        chromium.screenshot(browser.screenshot_dir(tmp_path) / "report-flames.png")
    assert len(graphs) == 2
    for graph in graphs:
        assert graph["width"] > 0 and graph["rects"]
        assert max(graph["rects"]) > 0 and max(graph["rects"]) <= graph["width"] + 0.5


def test_a_wall_clock_regression_from_its_sim_twin_is_marked_as_such() -> None:
    """An attribution made for a wall-clock regression from its sim twin's counts says so,
    in the section and on the first screen, naming the wall case."""
    wall = CaseKey("hot.T.time_compute", (("task", "g1"), ("path", "handwritten")))
    found = [dataclasses.replace(_attributions()[1], twin_of=wall)]
    text = render_markdown(_report(found)).replace("\\", "")
    marked = "the wall clock's regression of hot.T.time_compute(task=g1, path=handwritten)"
    assert text.count(marked) == 2
    assert marked in render_html(_report(found))


def test_each_attributed_case_shows_the_explain_command_that_takes_its_name() -> None:
    """Issue 48, 5: the command printed beside a case's table is one ``perfgate explain``
    accepts: the case as the report names it, the run's commits, the table's figure."""
    section = _section(render_markdown(_report(_attributions())), "#### Where it moved", "####")
    commands = [line for line in section.splitlines() if line.startswith("perfgate explain")]
    assert len(commands) == 3
    argv = shlex.split(commands[0])
    case = parse_case(argv[6])
    assert (case.module, case.family, case.named) == (
        "sim_hot", "SimHot", (("task", "g1"), ("path", "assembled")),
    )  # fmt: skip
    assert argv[argv.index("--figure") + 1] == "instructions"
