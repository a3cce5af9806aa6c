"""perfgate.sim.attribution.flame: the differential flame graph (golden SVG), and in a
real browser (slow: headless Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from attr_profiles import KERNELS, dump
from golden_check import check_golden

from perfgate.sim.attribution.flame import render, unfold
from perfgate.sim.attribution.table import FunctionsTable, build

GOLDEN = Path(__file__).parents[2] / "golden" / "attribution"


def _tables() -> tuple[FunctionsTable, FunctionsTable]:
    base = build([dump(1_000_000)], (1,), KERNELS)
    head = build([dump(1_000_000, reduce_ir=124_000)], (1,), KERNELS)
    return base, head


def test_the_tree_is_unfolded_from_the_call_graph() -> None:
    """The interpreter on top, the dispatcher and the kernel under it, the reduction's
    chain beside them; every frame fits in its parent."""
    _, head = _tables()
    tree = unfold(head, "instructions")
    top = tree.children["_PyEval_EvalFrameDefault"]
    assert set(top.children) == {"Dispatcher_call", "ufunc_reduce"}
    kernel = top.children["Dispatcher_call"].children["motion_kernel"]
    assert kernel.value == pytest.approx(1_000_000)
    reduction = top.children["ufunc_reduce"].children["reduce_loop"].children
    assert reduction["FLOAT_pairwise_sum"].value == pytest.approx(124_000)
    assert sum(c.value for c in top.children.values()) <= top.value


def test_the_flame_graph_svg_is_the_reviewed_one() -> None:
    """Frames as wide as the head's cost, red where it grew (the reduction: new), grey
    where it did not (the kernel)."""
    base, head = _tables()
    svg = render(base, head, "instructions")
    check_golden(GOLDEN / "flame_reduction.svg", svg)
    kernel = re.search(r"<title>motion_kernel: [^<]*</title><rect [^>]*fill=\"([^\"]+)\"", svg)
    new = re.search(r"<title>FLOAT_pairwise_sum: [^<]*</title><rect [^>]*fill=\"([^\"]+)\"", svg)
    assert kernel is not None and kernel.group(1) == "rgb(210,210,210)"
    assert new is not None and new.group(1) == "rgb(235,50,50)"


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_flame_graph_renders_in_chromium(tmp_path: Path) -> None:
    """Every frame is drawn inside the SVG's box, the widest one the full width, and the
    kernel's label is shown (wide enough to carry it)."""
    import browser

    base, head = _tables()
    page = tmp_path / "flame.html"
    page.write_text(
        f"<!doctype html><body style='margin:0'>{render(base, head, 'instructions')}</body>"
    )
    with browser.session(1280, 800) as chromium:
        chromium.open(page.as_uri())
        chromium.screenshot(browser.screenshot_dir(tmp_path) / "flame.png")
        boxes = chromium.run(
            "const s = document.querySelector('svg.flame').getBoundingClientRect();"
            "const r = Array.from(document.querySelectorAll('svg.flame rect')).map(e => {"
            "  const b = e.getBoundingClientRect(); return [b.left, b.right, b.width]; });"
            "const t = Array.from(document.querySelectorAll('svg.flame g text'))"
            "  .map(e => e.textContent);"
            "return {svg: [s.left, s.right], rects: r, texts: t};"
        )
    left, right = boxes["svg"]
    assert boxes["rects"] and all(left <= a and b <= right + 0.5 for a, b, _ in boxes["rects"])
    assert max(w for _, _, w in boxes["rects"]) >= right - left - 1
    assert "motion_kernel" in boxes["texts"]
