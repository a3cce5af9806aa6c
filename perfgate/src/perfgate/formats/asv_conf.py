"""``asv.conf.json``: where a project keeps it (`find_asv_conf`, the one place every command
looks), the only reader (as asv reads it: JSON5) and the configs perfgate derives
from it (a private one per measured round, one for ``asv publish``).

asv resolves the paths of its configuration (``benchmark_dir``, ``results_dir``, ``repo``)
against the folder the file is in, not the repository root: a project whose asv.conf.json
sits in ``benchmarks/`` (numpy's and scipy's layout) keeps its suites in
``benchmarks/benchmarks``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import json5

from perfgate.errors import UserError


def read_asv_conf(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, read as asv 0.6 reads it (JSON5: comments, trailing
    commas); problems name the file."""
    if not path.is_file():
        raise UserError(f"{path}: asv configuration not found")
    try:
        text = path.read_text()
    except OSError as exc:
        raise UserError(f"{path}: cannot read the asv configuration ({exc})") from None
    try:
        data = json5.loads(text)
    except ValueError as exc:
        raise UserError(f"{path}: invalid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object")
    return data


#: Where asv projects keep their configuration, relative to the repository root, in the
#: order they are looked for when none is named (asv itself accepts either extension).
CONF_PLACES = (
    "asv.conf.json",
    "asv.conf.jsonc",
    "benchmarks/asv.conf.json",
    "benchmarks/asv.conf.jsonc",
)


def find_asv_conf(root: Path, named: str | Path | None = None) -> Path:
    """The project's asv configuration: ``named`` (``asv_config`` of ``[tool.perfgate]`` or a
    command's ``--asv-config``; relative to ``root``), else the one file of `CONF_PLACES`.

    None found, or several (which one asv would use depends on where it is started), is an
    error naming the places and how to name one.
    """
    if named is not None:
        path = root / named
        if not path.is_file():
            raise UserError(f"{path}: asv configuration not found (asv_config / --asv-config)")
        return path
    found = [root / place for place in CONF_PLACES if (root / place).is_file()]
    if len(found) == 1:
        return found[0]
    how = "name it with asv_config in [tool.perfgate] or --asv-config"
    if not found:
        places = ", ".join(CONF_PLACES)
        raise UserError(f"{root}: no asv configuration ({places}); {how}")
    names = ", ".join(str(p.relative_to(root)) for p in found)
    raise UserError(f"{root}: several asv configurations ({names}); {how}")


@dataclass(frozen=True)
class AsvProject:
    """A project's asv configuration: the file and what it says, paths resolved as asv
    resolves them (against the file's folder)."""

    path: Path
    conf: Mapping[str, Any]

    @property
    def folder(self) -> Path:
        """The folder the file is in: asv's paths are relative to it."""
        return self.path.parent

    @property
    def benchmark_dir(self) -> Path:
        """The suites' folder (asv's default ``benchmarks``)."""
        return benchmark_dir(self.conf, self.folder)

    @property
    def results_dir(self) -> Path:
        """The results folder (asv's default ``results``)."""
        return self.folder / str(self.conf.get("results_dir", "results"))

    @property
    def repo_subdir(self) -> str:
        """The folder of the repository asv builds the project from ("" the root)."""
        return repo_subdir(self.conf)


def read_project(root: Path, named: str | Path | None = None) -> AsvProject:
    """`find_asv_conf` and `read_asv_conf` in one: the project's asv configuration."""
    path = find_asv_conf(root, named)
    return AsvProject(path, read_asv_conf(path))


def repo_subdir(conf: Mapping[str, Any]) -> str:
    """The folder of the repository asv builds the project from ("" the root)."""
    return str(conf.get("repo_subdir", "") or "")


def benchmark_dir(conf: Mapping[str, Any], folder: Path) -> Path:
    """The suites' folder the configuration names (asv's default ``benchmarks``), relative
    to ``folder``, the configuration's own folder."""
    return folder / str(conf.get("benchmark_dir", "benchmarks"))


def write_round_config(
    template: Mapping[str, Any], results_dir: Path, benchmark_dir: Path, repo: Path, sha: str
) -> Path:
    """Write an asv.conf.json for one round of commit ``sha``: the template with private
    results/env dirs, and ``sha`` as its one branch.

    asv resolves every configured branch name whenever it runs without a range, as each
    round does (``--set-commit-hash``): a checkout without a local branch of the template's
    names (a pull request's CI checkout is a detached commit) refused every round with
    "Unknown branch main in configuration". The round measures ``sha`` only, and a full SHA
    resolves in any checkout that has the commit.
    """
    conf = dict(template)
    conf["repo"] = str(repo.resolve())
    conf["branches"] = [sha]
    conf["results_dir"] = str(results_dir.resolve())
    conf["html_dir"] = str((results_dir / "html").resolve())
    conf["env_dir"] = str((results_dir / "env").resolve())
    conf["benchmark_dir"] = str(benchmark_dir.resolve())
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / "asv.conf.json"
    path.write_text(json.dumps(conf, indent=2))
    return path


def publish_config(
    template: Mapping[str, Any], repo: Path, results: Path, html: Path, folder: Path | None = None
) -> dict:
    """The asv config for publishing: paths made absolute (``folder``: the template's own
    folder, default ``repo``), everything else kept."""
    conf = dict(template)
    conf["repo"] = str(repo.resolve())
    conf["results_dir"] = str(results.resolve())
    conf["html_dir"] = str(html.resolve())
    conf["benchmark_dir"] = str(benchmark_dir(template, folder or repo).resolve())
    return conf
