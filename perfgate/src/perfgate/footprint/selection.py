"""Which cases a change cannot have moved (pure): a trusted base's footprints against the
gate's own diff of base and head.

A case is *unchanged* when its footprint was recorded, the environment digests agree part
by part, and no changed file is one it read; its `Proof` names the footprint's digest and
how many of its files the diff left alone. Any doubt measures every case (`Doubt`): no diff,
a changed environment, or a changed file Python loads without being asked to or that
decides how the run is judged: an import hook (``*.pth``, ``sitecustomize.py``,
``usercustomize.py``), compiled code (``.pyc``, ``__pycache__/``, extension modules), the
policy and dependencies (``pyproject.toml``, ``perfgate.toml``, ``setup.py``,
``setup.cfg``), asv's configuration, or a file of the benchmark suites.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from perfgate.footprint.environment import differing
from perfgate.model import CaseKey

#: names whose change measures every case (see the module)
JUDGING = frozenset(
    {"pyproject.toml", "perfgate.toml", "setup.py", "setup.cfg", "sitecustomize.py",
     "usercustomize.py", "asv.conf.json", "asv.conf.jsonc"}
)  # fmt: skip
COMPILED = (".pth", ".pyc", ".pyo", ".so", ".pyd", ".dylib")


@dataclass(frozen=True)
class Footprint:
    """One case's footprint: the project files it read (relative, POSIX) and the
    environment it read them in (`perfgate.footprint.environment.environment`)."""

    key: CaseKey
    files: frozenset[str]
    environment: Mapping[str, str]

    @property
    def digest(self) -> str:
        """A short digest of the files and the environment (the proof's name for it)."""
        text = "\n".join(
            [*sorted(self.files), *sorted(f"{k}={v}" for k, v in self.environment.items())]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Proof:
    """Why a case is unchanged: its footprint, none of whose files the diff touches."""

    key: CaseKey
    digest: str
    files: int
    changed: int

    def text(self) -> str:
        return (
            f"unchanged: nothing it reads changed (footprint {self.digest}: {self.files} "
            f"files, none among the {self.changed} the diff touches)"
        )


@dataclass(frozen=True)
class Selection:
    """What to measure: the cases proved unchanged, and every other case with why it is
    measured (``doubt``: why every case is, empty when the footprints decided)."""

    unchanged: Mapping[CaseKey, Proof]
    measured: Mapping[CaseKey, str]
    doubt: str = ""


def doubt_in_diff(changed: Sequence[str], suites: str) -> str:
    """Why ``changed`` (paths relative to the repository) measures every case; empty: it
    does not. ``suites``: the benchmark suites' folder, relative."""
    for path in changed:
        pure = PurePosixPath(path)
        if pure.name in JUDGING:
            return f"{path} changed: it decides how the run is built or judged"
        if pure.suffix in COMPILED or "__pycache__" in pure.parts:
            return f"{path} changed: Python may load it without an import naming it"
        if suites and (pure == PurePosixPath(suites) or PurePosixPath(suites) in pure.parents):
            return f"{path} changed: a file of the benchmark suites"
    return ""


def select(
    cases: Iterable[CaseKey],
    footprints: Mapping[CaseKey, Footprint],
    changed: Sequence[str] | None,
    environment: Mapping[str, str],
    suites: str,
) -> Selection:
    """The cases ``changed`` cannot have moved (see the module); ``changed`` None: git
    could not give the diff."""
    keys = sorted(set(cases))
    doubt = "git could not give the diff" if changed is None else doubt_in_diff(changed, suites)
    if doubt or changed is None:
        return Selection({}, dict.fromkeys(keys, doubt), doubt)
    touched = set(changed)
    unchanged, measured = {}, {}
    for key in keys:
        found = footprints.get(key)
        why = _measured_because(found, touched, environment)
        if why:
            measured[key] = why
        elif found is not None:
            unchanged[key] = Proof(key, found.digest, len(found.files), len(touched))
    return Selection(unchanged, measured)


def _measured_because(
    found: Footprint | None, touched: set[str], environment: Mapping[str, str]
) -> str:
    """Why a case is measured (empty: it is unchanged)."""
    if found is None:
        return "no footprint recorded for it at the base"
    parts = differing(found.environment, environment)
    if parts:
        return f"the environment changed ({', '.join(parts)})"
    read = sorted(found.files & touched)
    if read:
        more = f" and {len(read) - 3} more" if len(read) > 3 else ""
        return f"it reads changed files: {', '.join(read[:3])}{more}"
    return ""
