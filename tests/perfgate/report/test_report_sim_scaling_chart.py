"""perfgate.report.sim_scaling_chart: the simulated scaling family's E(T) rows grouped by
case without T and drawn against the thread count, base vs head (golden markdown and HTML
sections). Regenerate the golden files with ``pytest --update-golden`` on this file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from golden_check import check_golden

from perfgate.config import parse_config
from perfgate.gate.decide import decide
from perfgate.model import CaseComparison, CaseKey, Measurement
from perfgate.report.render import Report, render_html, render_markdown
from perfgate.report.sim_scaling_chart import (
    HEIGHT,
    PAD,
    WIDTH,
    EfficiencyPoint,
    efficiency_chart,
    sim_scaling_groups,
    worst_verdict,
)
from perfgate.sim.scaling.compare import compare_sim_scaling
from perfgate.verdict import CaseVerdict

GOLDEN = Path(__file__).parent.parent / "golden"
FAMILY = "sim_scaling.SimScaling"
CONFIG = parse_config(
    {
        "blocking": ["^sim_scaling\\."],
        "sim": {"bench": ["^sim_scaling\\."], "tolerance": 0.001},
        "thresholds": {"^sim_scaling\\.": 0.05},
    }
)
R, I, U, X = (
    CaseVerdict.REGRESSED,
    CaseVerdict.IMPROVED,
    CaseVerdict.UNCHANGED,
    CaseVerdict.INVALID,
)


def _params(task: str, path: str, threads: int) -> tuple[tuple[str, str], ...]:
    return (("task", task), ("path", path), ("num_envs", "8192"), ("threads", str(threads)))


def _row(
    case: tuple[str, str, int], base: float, head: float, verdict: CaseVerdict,
    figure: str = "instructions", blocking: bool = True, benchmark: str = "track_efficiency",
) -> CaseComparison:  # fmt: skip
    """An E(T) row as compare_sim_scaling gives it: its medians in the deciding weighting
    (``figure``), or the cycles' raw medians and no figure when it was refused."""
    ratio = base / head if figure else None
    return CaseComparison(
        CaseKey(f"{FAMILY}.{benchmark}", _params(*case)), verdict, 0.05, blocking,
        n_base=2, n_head=1, base_median=base, head_median=head, ratio=ratio, ci_low=ratio,
        ci_high=ratio, unit="efficiency", instrument="sim", figure=figure,
    )  # fmt: skip


ROWS = [
    # G1 assembled: every T regressed, decided on instructions (rows in no particular order)
    _row(("g1", "assembled", 64), 0.14, 0.12, R),
    _row(("g1", "assembled", 8), 0.79, 0.69, R),
    _row(("g1", "assembled", 32), 0.30, 0.24, R),
    # its serial-share rows are no E(T) points
    _row(("g1", "assembled", 32), 0.024, 0.05, R, benchmark="track_serial_share"),
    # G1 numpy: T=32 refused (no point), the others decided on different weightings
    _row(("g1", "numpy", 8), 0.95, 0.95, U, figure="cycles"),
    _row(("g1", "numpy", 32), 0.61, 0.50, X, figure=""),
    _row(("g1", "numpy", 64), 0.50, 0.60, I),
    # motion tracking assembled: a drop the projected time explains (reported only)
    _row(("motion_tracking", "assembled", 32), 0.40, 0.30, R, blocking=False),
    _row(("motion_tracking", "assembled", 64), 0.20, 0.19, U),
    # motion tracking numpy: refused at every T
    _row(("motion_tracking", "numpy", 8), 0.9, 0.8, X, figure=""),
]


def test_rows_are_grouped_by_case_without_threads_in_thread_order() -> None:
    """Four groups in natural order; each keeps the decided points, base and head in the
    weighting that decided them, and the worst verdict of its E(T) rows."""
    groups = sim_scaling_groups(ROWS, CONFIG)
    assert [g.case.label() for g in groups] == [
        f"{FAMILY}(task=g1, path=assembled, num_envs=8192)",
        f"{FAMILY}(task=g1, path=numpy, num_envs=8192)",
        f"{FAMILY}(task=motion_tracking, path=assembled, num_envs=8192)",
        f"{FAMILY}(task=motion_tracking, path=numpy, num_envs=8192)",
    ]
    g1, numpy, motion, refused = groups
    assert g1.points == (
        EfficiencyPoint(8, 0.79, 0.69, "instructions"),
        EfficiencyPoint(32, 0.30, 0.24, "instructions"),
        EfficiencyPoint(64, 0.14, 0.12, "instructions"),
    )
    assert (g1.verdict, g1.blocking, g1.weighting) == (R, True, "instructions")
    assert [p.threads for p in numpy.points] == [8, 64] and numpy.verdict is X
    assert numpy.weighting == "cycles at 8; instructions at 64"
    assert motion.verdict_text == "regressed, reported only"
    assert refused.points == () and refused.weighting == ""


def test_the_markdown_line_gives_each_side_at_every_decided_thread_count() -> None:
    g1, _, _, refused = sim_scaling_groups(ROWS, CONFIG)
    assert g1.line == "E(T) at 8/32/64 threads: base 0.790/0.300/0.140, head 0.690/0.240/0.120"
    assert refused.line == "E(T) not decided at any thread count"


def test_rows_of_other_instruments_and_families_are_not_grouped() -> None:
    wall = _row(("g1", "assembled", 8), 0.79, 0.69, R)
    outside = parse_config({"sim": {"bench": ["^sim_hot\\."]}})
    assert sim_scaling_groups([replace(wall, instrument="wall")], CONFIG) == []
    assert sim_scaling_groups(ROWS, outside) == []


def test_the_worst_verdict_puts_a_blocking_kind_first() -> None:
    assert worst_verdict([U, I, X, R]) is R
    assert worst_verdict([U, I, X]) is X
    assert worst_verdict([U, I]) is I
    assert worst_verdict([]) is U


def test_the_chart_puts_threads_on_a_log2_axis_and_efficiency_from_1_on_top() -> None:
    """8, 32, 64 threads at log2 3, 5, 6; E(T) = 1 at the top, 0 at the bottom."""
    g1, _, _, refused = sim_scaling_groups(ROWS, CONFIG)
    chart = efficiency_chart(g1)
    assert chart is not None and efficiency_chart(refused) is None
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    assert [x for x, _ in chart.xticks] == [PAD, round(PAD + 2 / 3 * plot_w, 1), WIDTH - PAD]
    assert [t for _, t in chart.xticks] == ["8", "32", "64"]
    assert chart.yticks == ((HEIGHT - PAD, "0"), (PAD + plot_h / 2, "0.5"), (PAD, "1"))
    base, head = chart.series
    assert (base.label, head.label) == ("base", "head")
    assert base.dots[0] == (PAD, round(PAD + (1 - 0.79) * plot_h, 1))
    assert head.points.split()[-1] == f"{WIDTH - PAD:.1f},{PAD + (1 - 0.12) * plot_h:.1f}"
    assert chart.weighting == "instructions" and chart.css == "regressed"


def test_the_rows_of_compare_sim_scaling_are_grouped() -> None:
    """End to end from the family's counts: one group, E(T) of the weighting that decided."""

    def side(efficiency: dict[int, float]) -> dict[CaseKey, Measurement]:
        out = {}
        for threads, e in efficiency.items():
            for name in ("track_efficiency", "track_efficiency_instructions"):
                key = CaseKey(f"{FAMILY}.{name}", _params("g1", "assembled", threads))
                out[key] = Measurement(key, (e,))
        return out

    base = side({8: 0.79, 32: 0.30, 64: 0.14})
    rows = compare_sim_scaling(base, side({8: 0.69, 32: 0.24, 64: 0.12}), base, CONFIG)
    (group,) = sim_scaling_groups(rows, CONFIG)
    assert [(p.threads, p.base, p.head) for p in group.points] == [
        (8, 0.79, 0.69), (32, 0.30, 0.24), (64, 0.14, 0.12),
    ]  # fmt: skip
    assert group.verdict is R and group.weighting == "instructions"


def _report() -> Report:
    return Report(
        decision=decide(ROWS, [], CONFIG), config=CONFIG, base="1" * 40, head="a" * 40,
        machine="m", command="perfgate gate", rows=ROWS,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("suffix", "render", "start", "end"),
    [
        ("md", render_markdown, "#### Simulated thread scaling", "####"),
        ("html", render_html, "<h2>Simulated thread scaling", "<h2>"),
    ],
)
def test_golden_sim_scaling_section(
    suffix: str, render: Callable[[Report], str], start: str, end: str
) -> None:
    """The report draws E(T) base vs head for every group it decided (markdown: one line a
    group; HTML: one SVG chart a group with a decided point)."""
    text = render(_report())
    at = text.index(start)
    check_golden(GOLDEN / f"sim_scaling_section.{suffix}", text[at : text.index(end, at + 4)])
