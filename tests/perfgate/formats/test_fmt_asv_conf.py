"""perfgate.formats.asv_conf: per-round configurations."""

from __future__ import annotations

import json
from pathlib import Path

from perfgate.formats.asv_conf import read_asv_conf, write_round_config


def test_round_config(tmp_path: Path) -> None:
    """Per-round configs keep the template and redirect results, env and benchmarks."""
    template = tmp_path / "asv.conf.json"
    template.write_text('// comment\n{"version": 1, "project": "p", "results_dir": "x"}\n')
    path = write_round_config(
        read_asv_conf(template), tmp_path / "r0", tmp_path / "bench", tmp_path
    )
    conf = json.loads(path.read_text())
    assert conf["project"] == "p"
    assert conf["results_dir"] == str((tmp_path / "r0").resolve())
    assert conf["benchmark_dir"] == str((tmp_path / "bench").resolve())
