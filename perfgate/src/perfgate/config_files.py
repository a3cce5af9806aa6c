"""Where a project keeps the gate's policy, and reading it: ``[tool.perfgate]`` of
pyproject.toml, or the same keys at the top level of ``perfgate.toml`` (a project without a
pyproject.toml, or one that keeps the gate's policy apart, as ``perfgate init`` writes it
there). On disk (`config_on_disk`) or at a commit (`config_at_commit`: the gate reads the
base commit's, so a pull request cannot loosen its own gate).

A project with both, ``perfgate.toml`` and a ``[tool.perfgate]`` table in pyproject.toml, is
refused: which of two policies judges a pull request must never be a guess.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfgate import git
from perfgate.config import GateConfig, parse_config
from perfgate.errors import ConfigError, UserError

PYPROJECT = "pyproject.toml"
PERFGATE_TOML = "perfgate.toml"
#: The project's configuration files, in the order `project_config` reads them.
CONFIG_FILES = (PERFGATE_TOML, PYPROJECT)


def load_config(path: str | Path, *, required: bool = True) -> GateConfig:
    """Read a named file: a ``perfgate.toml`` (by its name) holds the keys at its top level,
    any other file ``[tool.perfgate]``.

    With ``required=False`` a missing file or section gives the defaults; otherwise it is a
    `ConfigError`. Invalid TOML is always a `ConfigError` naming the file.
    """
    p = Path(path)
    if not p.is_file():
        if required:
            raise ConfigError(f"{p}: configuration file does not exist")
        return GateConfig()
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: invalid TOML: {exc}") from None
    top_level = p.name == PERFGATE_TOML
    return config_from_text(text, str(p), required=required, top_level=top_level)


def _document(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None


def _section(document: dict[str, Any], source: str) -> Any:
    """``[tool.perfgate]`` of a pyproject document (None: absent)."""
    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{source}: [tool] must be a table, got {tool!r}")
    return tool.get("perfgate")


def config_from_text(
    text: str, source: str, *, required: bool = True, top_level: bool = False
) -> GateConfig:
    """The configuration in TOML ``text`` (``source`` names it in errors): its
    ``[tool.perfgate]`` table, or with ``top_level`` (perfgate.toml) the whole document."""
    document = _document(text, source)
    section = document if top_level else _section(document, source)
    if section is None:
        if required:
            raise ConfigError(f"{source}: no [tool.perfgate] section")
        return GateConfig()
    if not isinstance(section, dict):
        raise ConfigError(f"{source}: [tool.perfgate] must be a table")
    try:
        return parse_config(section, source=source)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


Reader = Callable[[str], str | None]
"""A file of the project by its name -> its text (None: no such file)."""


def project_config(read: Reader, where: str, *, required: bool = True) -> GateConfig:
    """The project's configuration from ``perfgate.toml`` or ``[tool.perfgate]`` of
    pyproject.toml, as ``read`` gives them (``where`` prefixes the file names in errors and
    in the configuration's ``source``)."""
    own, pyproject = (read(name) for name in CONFIG_FILES)
    if own is not None:
        if pyproject is not None and _section(_document(pyproject, where + PYPROJECT), ""):
            raise ConfigError(
                f"{where}{PERFGATE_TOML} and [tool.perfgate] of {where}{PYPROJECT}: two gate "
                "policies; keep one"
            )
        return config_from_text(own, where + PERFGATE_TOML, top_level=True)
    if pyproject is None:
        if required:
            raise ConfigError(f"{where or './'}: no {PERFGATE_TOML} and no {PYPROJECT}")
        return GateConfig()
    return config_from_text(pyproject, where + PYPROJECT, required=required)


def config_on_disk(root: Path, *, required: bool = True) -> GateConfig:
    """The configuration of the project checked out at ``root``, as its files are now."""

    def read(name: str) -> str | None:
        path = root / name
        if not path.is_file():
            return None
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: unreadable: {exc}") from None

    prefix = "" if root == Path(".") else f"{root}/"
    return project_config(read, prefix, required=required)


def config_at_commit(repo: Path, sha: str) -> GateConfig:
    """The configuration as it is at commit ``sha`` (sources read ``<sha12>:<file>``)."""

    def read(name: str) -> str | None:
        try:
            return git.file_at(repo, sha, name)
        except (git.GitError, UnicodeDecodeError) as exc:
            raise UserError(f"the gate's configuration at the base commit: {exc}") from None

    return project_config(read, f"{sha[:12]}:")
