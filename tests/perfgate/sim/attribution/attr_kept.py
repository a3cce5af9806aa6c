"""A gate side's kept folder written by hand (`perfgate.sim.attribution.sides`): per family
its cases' functions tables and its kernels' code, as the harness keeps them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from perfgate.sim.attribution.table import FunctionsTable

FAMILY = "sim_hot.SimHot"
CASE = "g1-assembled"  # keep.case_slug of ("g1", "assembled")

#: a kernel's assembly: four vectorised adds, or one scalar add and an allocation
ASM_VECTOR = (
    "\t.globl\t_ZN1k13motion_kernelB2v1E\n\t.type\t_ZN1k13motion_kernelB2v1E,@function\n"
    "_ZN1k13motion_kernelB2v1E:\n\tvaddpd\t%ymm0, %ymm1, %ymm1\n\tjne\t.L1\n\tretq\n"
)
ASM_SCALAR = (
    "\t.globl\t_ZN1k13motion_kernelB2v1E\n\t.type\t_ZN1k13motion_kernelB2v1E,@function\n"
    "_ZN1k13motion_kernelB2v1E:\n\tcallq\t*%rcx\n\tvaddsd\t%xmm0, %xmm1, %xmm1\n\tjne\t.L1\n"
    "\tretq\n"
)
IR = "  %s = fadd double %a, %b\n"


def write_side(
    folder: Path,
    tables: Mapping[str, FunctionsTable],
    code: Mapping[str, tuple[str, str]] | None = None,
    family: str = FAMILY,
) -> Path:
    """``folder/<family>/cases/<case>/functions.json`` per table and the code index."""
    root = folder / family
    for case, table in tables.items():
        (root / "cases" / case).mkdir(parents=True)
        (root / "cases" / case / "functions.json").write_text(json.dumps(table.to_json()))
    if code is not None:
        (root / "code").mkdir(parents=True)
        for kernel, (asm, ir) in code.items():
            (root / "code" / f"{kernel}.s").write_text(asm)
            (root / "code" / f"{kernel}.ll").write_text(ir)
        index = {kernel: kernel for kernel in code}
        (root / "code" / "index.json").write_text(json.dumps(index))
    return folder
