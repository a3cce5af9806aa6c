"""The project a command works on, found the one way every command finds it: its gate
configuration (`perfgate.config_files`) and its asv configuration (``asv_config`` of that
configuration, else asv.conf.json at the root or in ``benchmarks/``:
`perfgate.formats.asv_conf.find_asv_conf`).

The gate, calibrate and watch's probes read the asv configuration of their checkout through
`perfgate.gate.context` (the gate configuration there is the base commit's); the commands
that only need a folder of it (``history``'s results, ``watch``'s results, ``publish``) use
`results_dir` here.
"""

from __future__ import annotations

from pathlib import Path

from perfgate.config_files import config_on_disk
from perfgate.formats.asv_conf import AsvProject, read_project


def asv_project(root: Path, named: str | Path | None = None) -> AsvProject:
    """The asv configuration of the project checked out at ``root``: ``named`` (a command's
    ``--asv-config``), else ``asv_config`` of its gate configuration, else the one found."""
    if named is None:
        named = config_on_disk(root, required=False).asv_config
    return read_project(root, named)


def results_dir(root: Path) -> Path:
    """The project's asv results folder (``results_dir`` of its asv configuration, relative
    to that file), the default of the commands that read or write results."""
    return asv_project(root).results_dir
