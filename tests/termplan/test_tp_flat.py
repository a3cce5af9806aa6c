"""Flat form of per-env accesses: columns, rewritten lines, the views a body needs."""

from __future__ import annotations

from dataclasses import replace

import pytest
import tp_toy

from termplan.errors import TermPlanError
from termplan.flat import column, flat_line, flat_views
from termplan.plan import ResolvedPlan
from termplan.spec import InputSpec


@pytest.mark.parametrize(
    ("shape", "parts", "expected"),
    [
        ((29,), ["j"], "j"),
        ((98,), ["6 + j"], "6 + j"),
        ((3,), ["2"], "2"),
        ((14, 3), ["b", "0"], "3 * b"),
        ((14, 3), ["b", "2"], "3 * b + 2"),
        ((14, 4), ["7", "3"], "31"),
        ((14, 3), ["b + 1", "k"], "3 * (b + 1) + k"),
        ((2, 3, 4), ["1", "c", "3"], "4 * c + 15"),
    ],
)
def test_column_is_the_row_major_offset(
    shape: tuple[int, ...], parts: list[str], expected: str
) -> None:
    assert column(shape, parts) == expected


def test_column_checks_the_index_count() -> None:
    with pytest.raises(TermPlanError, match=r"index \[b\]: expected 2 per-env indices"):
        column((14, 3), ["b"])


@pytest.mark.parametrize(
    ("parts", "bad"), [(["b", "-1"], "-1"), (["b", "3"], "3"), (["14", "0"], "14")]
)
def test_column_refuses_literal_indices_outside_the_axis(parts: list[str], bad: str) -> None:
    """A flat index does not wrap like NumPy's ``a[i, -1]``: it would read the previous
    env's row (or before the array for env 0), so a literal must lie inside its axis."""
    with pytest.raises(TermPlanError, match=rf"index {bad} of an axis of size \d+: expected 0"):
        column((14, 3), parts)


def _plan_with_bodies() -> ResolvedPlan:
    plan = tp_toy.make_plan()
    return replace(plan, inputs=(*plan.inputs, InputSpec("body_pos", (14, 3), "float32")))


def test_flat_line_rewrites_inputs_outputs_and_scalars() -> None:
    plan = _plan_with_bodies()
    width = dict(plan.groups)["obs"]
    line = "out_obs[i, 2 + j] = in_q[i, j] + in_body_pos[i, b, 2] * float(in_height[i])"
    assert flat_line(plan, line) == (
        f"o_obs[lane_index(i, {width}, 2 + j)] = f_q[lane_index(i, 4, j)]"
        " + f_body_pos[lane_index(i, 42, 3 * b + 2)] * float(in_height[np.uint64(i)])"
    )


def test_flat_line_leaves_other_indexing_alone() -> None:
    plan = tp_toy.make_plan()
    line = "x = C_W[j] + scratch[tid, 0, lane] + out_logs[0]"
    assert flat_line(plan, line) == line


def test_flat_line_rejects_an_unknown_array() -> None:
    with pytest.raises(TermPlanError, match="in_nope: not an input"):
        flat_line(tp_toy.make_plan(), "x = in_nope[i, 0]")


def test_flat_views_lists_what_the_lines_use_in_plan_order() -> None:
    plan = _plan_with_bodies()
    lines = [flat_line(plan, "out_obs[i, 0] = in_body_pos[i, 1, 0] + in_q[i, 0]")]
    assert flat_views(plan, lines) == [
        "f_q = in_q.reshape(in_q.size)",
        "f_body_pos = in_body_pos.reshape(in_body_pos.size)",
        "o_obs = out_obs.reshape(out_obs.size)",
    ]
