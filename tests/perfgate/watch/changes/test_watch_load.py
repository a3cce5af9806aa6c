"""The watched series of an asv results directory: order, pooling, direction, what is left out."""

from __future__ import annotations

import json
from pathlib import Path

from pg_results_factory import (
    COLUMNS,
    Bench,
    write_benchmarks_json,
    write_machine_json,
    write_result,
)

from perfgate.watch.changes.load import load_series

TIME = Bench("hot_slice.HotSlice.time_compute", ("path",), (("numpy", "assembled"),))
RATE = Bench("collector.Collector.track_env_steps_per_s", kind="track", unit="steps/s")
HISTORY = [f"{i:x}" * 40 for i in range(1, 6)]  # oldest first: 111..., 222..., ...


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    write_benchmarks_json(root, [TIME, RATE])
    write_machine_json(root)
    return root


def test_one_series_per_case_and_machine_in_first_parent_order(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    for k in (4, 0, 2):  # written out of order
        samples = {TIME.name: [[1.0 + k, 1.1 + k], [2.0 + k, 2.2 + k]], RATE.name: [[10.0 + k]]}
        write_result(root, HISTORY[k], [TIME, RATE], samples)
    write_result(root, "f" * 40, [TIME], {TIME.name: [[9.0], [9.0]]})  # not on the history
    loaded = load_series(root, HISTORY, lambda name: name.endswith("_per_s"))
    assert loaded.skipped == ()
    by_case = {(s.benchmark, s.params): s for s in loaded.series}
    numpy = by_case[(TIME.name, ("numpy",))]
    assert [p.position for p in numpy.points] == [0, 2, 4]
    assert [p.commit for p in numpy.points] == [HISTORY[0], HISTORY[2], HISTORY[4]]
    assert numpy.points[0].samples == (1.0, 1.1) and not numpy.higher_is_better
    assert numpy.machine == "perf-runner"
    assert by_case[(RATE.name, ())].higher_is_better


def test_several_runs_of_one_commit_are_one_point_with_pooled_samples(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    write_result(root, HISTORY[0], [TIME], {TIME.name: [[1.0, 1.2], [2.0, 2.0]]})
    write_result(root, HISTORY[0], [TIME], {TIME.name: [[1.4], [2.0]]}, env="other-env")
    (_, numpy) = load_series(root, HISTORY, lambda _: False).series
    assert numpy.params == ("numpy",)
    assert numpy.points[0].samples == (1.0, 1.2, 1.4) and numpy.points[0].value == 1.2


def test_a_case_with_a_non_positive_value_is_skipped_with_its_reason(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    path = write_result(root, HISTORY[1], [RATE], {RATE.name: [[10.0]]})
    data = json.loads(path.read_text())
    data["results"][RATE.name][0] = [0.0]
    data["results"][RATE.name][COLUMNS.index("samples")] = (
        None  # no samples: the value is the point
    )
    path.write_text(json.dumps(data))
    loaded = load_series(root, HISTORY, lambda _: True)
    assert loaded.series == ()
    (reason,) = loaded.skipped
    assert HISTORY[1] in reason and "> 0" in reason
