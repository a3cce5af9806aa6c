"""perfgate.report.render: markdown/HTML reports, escaping, golden files.

Regenerate the golden files with ``pytest --update-golden tests/perfgate/test_pg_render.py``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from golden_check import check_golden

from perfgate.config_files import load_config
from perfgate.gate.decide import decide
from perfgate.model import (
    CaseComparison,
    CaseKey,
    EnvironmentCheck,
    Measurement,
    ParityResult,
    ParityStatus,
)
from perfgate.report.render import (
    Report,
    fmt_ci,
    fmt_p,
    fmt_pct,
    fmt_ratio,
    fmt_speedup,
    fmt_time,
    md_escape,
    render_html,
    render_markdown,
    verdict_json,
)
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.compile_times import compile_times
from perfgate.wall.compare.measurements import split_by_param
from perfgate.wall.compare.runs import compare_runs, compare_variants
from perfgate.wall.compare.scaling import thread_scaling

HERE = Path(__file__).parent.parent  # tests/perfgate: golden/ and data/
GOLDEN = HERE / "golden"
CONFIG = dataclasses.replace(
    load_config(HERE / "data" / "pyproject-perfgate.toml"),
    confirm=False,
    resamples=500,
    source="ref",
)
ENV = {"machine": "perf-runner", "cpu": "AMD EPYC 9654", "threading_layer": "omp"}
EVIL = "a|b<script>alert(1)</script>"


def _m(k: CaseKey, median: float, seed: int, cv: float = 0.02) -> Measurement:
    rng = np.random.default_rng(seed)
    return Measurement(k, tuple(float(x) for x in median * np.exp(rng.normal(0, cv, 10))))


def _sides() -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
    base: dict[CaseKey, Measurement] = {}
    head: dict[CaseKey, Measurement] = {}
    seed = 0
    for path, t1 in (("numpy", 40e-3), ("handwritten", 4e-3), ("assembled", 5e-3)):
        for threads, speedup in ((1, 1.0), (32, 16.0), (64, 24.0)):
            k = CaseKey(
                "hot_slice.HotSlice.time_compute",
                (("path", path), ("num_envs", "8192"), ("threads", str(threads))),
            )
            slower = 1.15 if path == "assembled" and threads == 64 else 1.0
            faster = 0.8 if path == "numpy" and threads == 1 else 1.0
            base[k] = _m(k, t1 / speedup, seed := seed + 1)
            head[k] = _m(k, t1 / speedup * slower * faster, seed := seed + 1)
    fail = CaseKey("hot_slice.HotSlice.time_fail", (("path", "assembled"),))
    base[fail] = _m(fail, 1e-3, 99)
    head[fail] = Measurement(fail, (), failed=True)
    comp = CaseKey("compile_time.CompileTime.track_first_call", (("path", "assembled"),))
    base[comp], head[comp] = Measurement(comp, (2.5,)), Measurement(comp, (3.1,))
    evil = CaseKey(EVIL, (("p", "x`y\nz|w"),))
    head[evil] = _m(evil, 1e-6, 7)
    return base, head


def build_report(
    command: str = "perfgate compare .asv/results --base 1111 --head aaaa",
) -> Report:
    """A report covering every section, built only from fixed seeds."""
    base, head = _sides()
    rows = compare_runs(base, head, CONFIG)
    variants = compare_variants(head, CONFIG)
    assert CONFIG.scaling is not None
    scaling = thread_scaling(base, head, CONFIG.scaling)
    pair = CONFIG.baselines[0]
    v_scaling = thread_scaling(
        split_by_param(head, "path", pair.baseline),
        split_by_param(head, "path", pair.variant),
        CONFIG.scaling,
        (pair.baseline, pair.variant),
    )
    parity = ParityResult(ParityStatus.PASSED, "make test-all", "212 passed")
    env = EnvironmentCheck(ENV, ENV)
    decision = decide(rows, variants, CONFIG, parity=parity, environment=env)
    return Report(
        decision=decision,
        config=CONFIG,
        base="1111111122222222333333334444444455555555",
        head="aaaaaaaabbbbbbbbccccccccddddddddeeeeeeee",
        machine="perf-runner",
        command=command,
        rows=rows,
        variants=variants,
        scaling=scaling,
        variant_scaling=v_scaling,
        compile_rows=compile_times(base, head, CONFIG),
        parity=parity,
        environment=env,
    )


def _check_golden(name: str, text: str) -> None:
    check_golden(GOLDEN / name, text)


def test_golden_markdown() -> None:
    """The PR comment matches the golden file."""
    _check_golden("report.md", render_markdown(build_report()))


def test_golden_html() -> None:
    """The HTML report matches the golden file."""
    _check_golden("report.html", render_html(build_report()))


def test_markdown_layout() -> None:
    """Marker first, verdict line first visible, regressions before improvements before the
    collapsed rest, and every section present."""
    md = render_markdown(build_report())
    lines = md.splitlines()
    assert lines[0] == "<!-- perfgate-report -->"
    assert lines[1].startswith("### ❌ perfgate REGRESSION")
    order = [
        md.index(s)
        for s in (
            "#### Regressions",
            "#### Improvements",
            "<details>",
            "#### Variant vs baseline",
            "#### Thread scaling",
            "#### Compile times",
            "#### Parity",
            "#### Environment",
            "```sh",
        )
    ]
    assert order == sorted(order)
    regress = md[md.index("#### Regressions") : md.index("#### Improvements")]
    assert "threads=64" in regress and "assembled" in regress
    assert "failed or timed out on head" in md


def _cells(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_markdown_escapes_names() -> None:
    """A benchmark named a|b<script> and a param with a backtick/newline/pipe stay inside
    their cells and inject no HTML."""
    md = render_markdown(build_report(command="perfgate compare x --bench 'a```b'"))
    outside_code = re.sub(r"^(`{3,})[a-z]*\n.*?^\1$", "", md, flags=re.S | re.M)
    assert "<script>" not in outside_code and "&lt;script&gt;" in outside_code
    chart = md[md.index("```diff\n") : md.index("\n```\n", md.index("```diff\n"))]
    assert "a|b<script>alert(1)</script> / x`y z|w" in chart  # one line, inside its fence
    lines = md.splitlines()
    evil_at = next(i for i, ln in enumerate(lines) if "alert(1)" in ln and ln.startswith("|"))
    header_at = max(i for i in range(evil_at) if lines[i].startswith("| benchmark"))
    evil_line = lines[evil_at]
    assert _cells(evil_line) == _cells(lines[header_at])
    assert "x\\`y z\\|w" in evil_line
    assert "````sh\nperfgate compare x --bench 'a```b'\n````" in md


def test_html_svg_is_well_formed() -> None:
    """Every inline SVG chart parses as XML and the CI chart has one bar per shown ratio."""
    html = render_html(build_report())
    svgs = re.findall(r"<svg .*?</svg>", html, flags=re.S)
    assert len(svgs) == 1 + 4  # ratio chart + one per scaling row
    for svg in svgs:
        ElementTree.fromstring(svg)
    report = build_report()
    with_ratio = [r for r in report.rows if r.ratio] + [
        v.row for v in report.variants if v.row.ratio
    ]
    assert svgs[0].count("<circle") == len(with_ratio)  # every compared case with a ratio
    assert svgs[0].count('class="case ') == len(report.rows) + len(report.variants)


def test_html_escapes_names() -> None:
    """The HTML report autoescapes names (no raw <script>)."""
    html = render_html(build_report())
    assert "<script>" not in html and "a|b&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("a|b", "a\\|b"),
        ("`x`", "\\`x\\`"),
        ("<b>&", "&lt;b&gt;&amp;"),
        ("a\nb\r\nc", "a b c"),
        ("[l](u)", "\\[l\\](u)"),
        ("@octocat @org/team", "@\u2060octocat @\u2060org/team"),  # shown, never notified
        (None, ""),
    ],
)
def test_md_escape_units(raw: object, escaped: str) -> None:
    """Each markdown special character is neutralised."""
    assert md_escape(raw) == escaped


def test_verdict_json_mirrors_decision() -> None:
    """verdict.json carries the verdict, exit code, reasons and every row."""
    report = build_report()
    data = verdict_json(report)
    assert data["verdict"] == "regression" and data["exit_code"] == 1
    assert len(data["cases"]) == len(report.rows)
    assert {c["verdict"] for c in data["cases"]} >= {
        CaseVerdict.REGRESSED.value,
        CaseVerdict.FAILED.value,
    }


@pytest.mark.parametrize(
    ("fn", "args", "text"),
    [
        (fmt_time, (0.9996,), "1 s"),
        (fmt_time, (0.0009996,), "1 ms"),
        (fmt_time, (2.5e-9,), "2.5 ns"),
        (fmt_ratio, (4e-4,), "0.0004"),
        (fmt_ratio, (1.2345,), "1.234"),
        (fmt_ci, (1.0, math.inf), "1.000–∞"),
        (fmt_ci, (math.nan, 1.0), "–"),
        (fmt_p, (math.nan,), "–"),
        (fmt_pct, (math.inf,), "–"),
        (fmt_speedup, (math.nan,), "–"),
    ],
)
def test_number_formats_at_the_edges(fn, args: tuple[float, ...], text: str) -> None:  # type: ignore[no-untyped-def]
    """Scales are chosen after rounding; non-finite values never print as nan or inf%."""
    assert fn(*args) == text


def test_a_regression_that_does_not_block_says_so() -> None:
    """A stable regression in a family outside ``blocking`` under a PASS headline: the
    summary counts it apart and its row says it is reported only (markdown and HTML)."""
    cfg = dataclasses.replace(CONFIG, baselines=(), scaling=None)
    hot = CaseKey("hot_slice.HotSlice.time_compute", (("path", "numpy"),))
    other = CaseKey("collector.Collector.time_run", (("path", "numpy"),))
    base = {hot: _m(hot, 1e-3, 1), other: _m(other, 1.0, 3)}
    head = {hot: _m(hot, 1e-3, 2), other: _m(other, 1.5, 4)}
    rows = compare_runs(base, head, cfg)
    assert not next(r for r in rows if r.key == other).blocking
    parity = ParityResult(ParityStatus.PASSED, "make test-all", "ok")
    decision = decide(rows, [], cfg, parity=parity)
    report = Report(decision, cfg, "1" * 40, "a" * 40, "m", "x", rows=rows, parity=parity)
    markdown = render_markdown(report)
    assert "PASS" in markdown and "1 regression(s) (1 in benchmarks that do not block)" in markdown
    row = next(ln for ln in markdown.splitlines() if ln.startswith("| collector.Collector"))
    assert "reported only: this benchmark does not block" in row
    assert "reported only: this benchmark does not block" in render_html(report)


def test_a_confirmed_regression_heads_the_report_above_undecided_cases() -> None:
    """Issue 18 item 8: REGRESSION is the headline and the first reason; the case that
    could not be decided is listed below it (the report used to say ERROR)."""
    cfg = dataclasses.replace(CONFIG, baselines=(), scaling=None)
    slow = CaseKey("hot_slice.HotSlice.time_compute", (("threads", "2"),))
    undecided = CaseKey("hot_slice.HotSlice.time_compute", (("threads", "1"),))
    rows = [
        CaseComparison(
            slow, CaseVerdict.REGRESSED, 0.03, True, ratio=1.077, ci_low=1.063, ci_high=1.091
        ),
        CaseComparison(
            undecided,
            CaseVerdict.INCONCLUSIVE,
            0.03,
            True,
            note="flagged slower; the re-run disagrees",
        ),
    ]
    parity = ParityResult(ParityStatus.PASSED, "make test-all", "ok")
    decision = decide(rows, [], cfg, parity=parity)
    report = Report(decision, cfg, "1" * 40, "a" * 40, "m", "x", rows=rows, parity=parity)
    markdown = render_markdown(report)
    assert "perfgate REGRESSION: merge blocked" in markdown.splitlines()[1]
    lines = markdown.splitlines()
    reasons = [ln for ln in lines[lines.index("**Blocked by:**") :] if ln.startswith("- ")]
    assert reasons[0].startswith("- REGRESSION:") and "threads=2" in reasons[0]
    assert reasons[1].startswith("- ERROR:") and "re-run disagrees" in reasons[1]
    assert verdict_json(report)["exit_code"] == 1
