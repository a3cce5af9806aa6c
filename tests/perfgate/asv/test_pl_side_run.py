"""perfgate.asv.side_run.run_sides_together: the concurrent asv runs of the sim family."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.asv import runner as asv_runner
from perfgate.asv.side_run import GateError, run_sides_together, side_invocation
from perfgate.config import parse_config
from perfgate.settings import GateSettings


class _Captured(Exception):
    """Raised by the fake asv launcher once it has seen the invocations."""


def test_runs_together_are_unpinned_and_get_their_own_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate's pinning prefix (one measuring core here) is not applied to runs that run
    at once: pinned, three runs would share one core. A run named in ``run_env`` gets its
    variables on top of the run's own; the others do not."""
    seen: list[asv_runner.AsvInvocation] = []

    def launch(invs, environ):  # type: ignore[no-untyped-def]
        seen.extend(invs)
        raise _Captured

    monkeypatch.setattr(asv_runner, "run_asv_together", launch)
    (tmp_path / "benchmarks").mkdir()
    settings = GateSettings(
        repo=tmp_path, base="a" * 40, head="b" * 40, base_source=tmp_path,
        head_source=tmp_path, config=parse_config({}), asv_conf={"version": 1},
        benchmark_dir=tmp_path / "benchmarks", machine="m", bench=(), run_dir=tmp_path,
        budget_s=60.0, env={"RUN": "1"}, prefix=("taskset", "-c", "1"),
    )  # fmt: skip
    runs = [("base", tmp_path / "one"), ("base", tmp_path / "two")]
    with pytest.raises(_Captured):
        run_sides_together(settings, runs, ["^x"], {"two": {"EXTRA": "2"}})
    assert [inv.prefix for inv in seen] == [(), ()]
    assert seen[0].env.get("RUN") == "1" and "EXTRA" not in seen[0].env
    assert seen[1].env.get("RUN") == "1" and seen[1].env.get("EXTRA") == "2"


def test_a_side_not_exported_is_refused_before_asv_runs(tmp_path: Path) -> None:
    """A caller that forgot `perfgate.gate.sides.prepare`: asv would put a missing folder
    on the path, import whatever is installed and measure that for both sides (a pass).
    The invocation is refused instead, naming the side and the folder."""
    settings = GateSettings(
        repo=tmp_path, base="a" * 40, head="b" * 40, base_source=tmp_path / "exports" / "a",
        head_source=tmp_path, config=parse_config({}), asv_conf={"version": 1},
        benchmark_dir=tmp_path / "benchmarks", machine="m", bench=(), run_dir=tmp_path,
        budget_s=60.0, env={},
    )  # fmt: skip
    with pytest.raises(GateError, match=r"the base export .*exports/a does not exist"):
        side_invocation(settings, "base", tmp_path / "round", ("x",))
    assert side_invocation(settings, "head", tmp_path / "round", ("x",)).source == tmp_path
