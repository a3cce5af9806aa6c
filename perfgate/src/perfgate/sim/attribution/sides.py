"""What one side of a gate run kept of its sim counts, read once after counting (I/O).

The gate's runs of one side keep into one folder (`perfgate.sim.phase`): the preparing run
writes each family's kernel code (its native pass), the counting run each case's functions
table and callgrind dumps (`keep`). This module reads that folder back into a `KeptSide`,
which the comparison (pure, `findings`) diffs against the other side's. A case or kernel
whose files are missing or damaged is not read, and the side says why (`problems`): the
report then says the case has no attribution, never that nothing moved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from perfgate.errors import UserError
from perfgate.sim.attribution import keep
from perfgate.sim.attribution.table import FunctionsTable

#: (assembly, LLVM IR) of one kernel
CodeTexts = tuple[str, str]


@dataclass(frozen=True)
class KeptSide:
    """One side's kept data: per family (`keep.family_name`) its cases' functions tables
    (by `keep.case_slug`) and its kernels' code (by kernel name); what could not be read."""

    tables: Mapping[str, Mapping[str, FunctionsTable]] = field(default_factory=dict)
    code: Mapping[str, Mapping[str, CodeTexts]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


def code_texts(family: Path) -> dict[str, CodeTexts]:
    """Each kernel's (asm, IR) that a family's native pass wrote into ``family/code``."""
    index = family / "code" / "index.json"
    if not index.is_file():
        return {}
    names: dict[str, str] = json.loads(index.read_text())
    out = {}
    for stem, kernel in names.items():
        asm, ir = family / "code" / f"{stem}.s", family / "code" / f"{stem}.ll"
        if asm.is_file() and ir.is_file():
            out[kernel] = (asm.read_text(), ir.read_text())
    return out


def _family_tables(family: Path, problems: list[str]) -> dict[str, FunctionsTable]:
    tables = {}
    cases = family / "cases"
    for case in sorted(cases.iterdir()) if cases.is_dir() else []:
        try:
            tables[case.name] = keep.load_table(case)
        except UserError as exc:
            problems.append(str(exc))
    return tables


def load_side(folder: Path) -> KeptSide:
    """The kept data under ``folder`` (nothing where it does not exist: no sim case was
    counted, or the side's runs kept nothing)."""
    if not folder.is_dir():
        return KeptSide()
    problems: list[str] = []
    tables, code = {}, {}
    for family in sorted(p for p in folder.iterdir() if p.is_dir()):
        tables[family.name] = _family_tables(family, problems)
        try:
            code[family.name] = code_texts(family)
        except (OSError, ValueError) as exc:
            problems.append(f"sim profiles: cannot read {family / 'code'}: {exc}")
        error = family / "record_error.txt"
        if error.is_file():
            last = error.read_text().strip().splitlines()[-1:] or [""]
            problems.append(f"{family.name}: the kernels were not recorded: {last[0]}")
    return KeptSide(tables, code, tuple(problems))
