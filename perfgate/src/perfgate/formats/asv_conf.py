"""``asv.conf.json``: the only reader (asv allows ``//`` comment lines) and the configs
perfgate derives from it (a private one per measured round, one for ``asv publish``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from perfgate.errors import UserError


def read_asv_conf(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, ``//`` comment lines removed; problems name the file."""
    if not path.is_file():
        raise UserError(f"{path}: asv configuration not found")
    try:
        text = path.read_text()
    except OSError as exc:
        raise UserError(f"{path}: cannot read the asv configuration ({exc})") from None
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    try:
        data = json.loads("\n".join(lines))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: invalid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object")
    return data


def benchmark_dir(conf: Mapping[str, Any], repo: Path) -> Path:
    """The suites' folder the configuration names (asv's default ``benchmarks``)."""
    return repo / str(conf.get("benchmark_dir", "benchmarks"))


def write_round_config(
    template: Mapping[str, Any], results_dir: Path, benchmark_dir: Path, repo: Path
) -> Path:
    """Write an asv.conf.json for one round: the template with private results/env dirs."""
    conf = dict(template)
    conf["repo"] = str(repo.resolve())
    conf["results_dir"] = str(results_dir.resolve())
    conf["html_dir"] = str((results_dir / "html").resolve())
    conf["env_dir"] = str((results_dir / "env").resolve())
    conf["benchmark_dir"] = str(benchmark_dir.resolve())
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / "asv.conf.json"
    path.write_text(json.dumps(conf, indent=2))
    return path


def publish_config(template: Mapping[str, Any], repo: Path, results: Path, html: Path) -> dict:
    """The asv config for publishing: paths made absolute, everything else kept."""
    conf = dict(template)
    conf["repo"] = str(repo.resolve())
    conf["results_dir"] = str(results.resolve())
    conf["html_dir"] = str(html.resolve())
    bench = conf.get("benchmark_dir", "benchmarks")
    conf["benchmark_dir"] = str((repo / str(bench)).resolve())
    return conf
