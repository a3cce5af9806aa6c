"""The per-function data of a sim run, kept beside its counts (``PERFGATE_SIM_PROFILES``).

When the variable names a folder, the harness keeps in its family's folder there
(`family_name`: ``<folder>/<family>/``), per counted case, what tells where its counts went;
the gate (or ``perfgate explain``) then diffs base and head. In a family's folder::

    <folder>/kernels.json                 the measured process's kernel code ranges
    <folder>/code/<kernel>.s, .ll         each kernel's assembly and LLVM IR (native pass)
    <folder>/cases/<case>/case.json       the case's parameters and its calls' weights
    <folder>/cases/<case>/callgrind.out.<i>   callgrind's dump of measured call i (for
                                          KCachegrind / QCachegrind)
    <folder>/cases/<case>/functions.json  the functions table (`table.FunctionsTable`)

``<case>`` is `case_slug` of its parameters, so the same case has the same folder on both
sides. Files are new: a case already kept in the folder is an error (never overwritten).
The variable is not passed to the measured process: its value's length differs by side
and would move the process's stack (as asv's own variables would).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from perfgate.atomic import write_json_atomic, write_text_atomic
from perfgate.errors import UserError
from perfgate.sim.attribution import profile, table
from perfgate.sim.attribution.kernels import KernelMap, read_map

#: the variable naming the folder (absent or empty: nothing is kept)
PROFILES_VARIABLE = "PERFGATE_SIM_PROFILES"
_TRIGGER = re.compile(r"^desc: Trigger: Client Request: (\S+)$", re.MULTILINE)


def folder(environ: Mapping[str, str]) -> Path | None:
    """The folder `PROFILES_VARIABLE` names, or None."""
    text = environ.get(PROFILES_VARIABLE, "").strip()
    return Path(text) if text else None


def family_name(module: str, family: str) -> str:
    """The folder of one family's kept data: its asv name without the benchmark folder
    (``sim_hot_slice.SimHotSlice`` for ``benchmarks.sim_hot_slice``), the prefix of its
    benchmarks' names. Each family is its own process (asv's ``setup_cache``), so each keeps
    its own kernels, code and cases; two families with one parameter grid never collide."""
    return ".".join([*module.split(".")[1:], family])


def case_slug(params: Sequence[Any]) -> str:
    """A folder name for a case's parameters (``motion_tracking-sac_default-...-2048``)."""
    text = "-".join(str(p) for p in params) or "case"
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text)[:200]


def spec_fields(work: Path, keep: Path) -> dict[str, str]:
    """What the measured process is told to record: the kernel map (into the run's work
    folder, copied by `save`) and each kernel's code (into the kept folder's ``code``)."""
    return {"kernels": str(work / "kernels.json"), "code": str(keep / "code")}


def dump_files(work: Path) -> dict[str, Path]:
    """Each named dump in ``work`` by its client request's name."""
    found: dict[str, Path] = {}
    for path in sorted(work.glob("callgrind.out*")):
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            trigger = _TRIGGER.search(handle.read(64 * 1024))
        if trigger is not None:
            found[trigger.group(1)] = path
    return found


def kernel_map(work: Path) -> KernelMap:
    """The kernel map the measured process wrote (empty where it wrote none)."""
    path = work / "kernels.json"
    return read_map(path.read_text()) if path.is_file() else KernelMap(())


def save_case(
    keep: Path,
    params: Sequence[Any],
    dumps: Sequence[Path],
    weights: Sequence[int],
    kernels: KernelMap,
) -> Path:
    """Keep one case's dumps, parameters and functions table; its folder."""
    where = keep / "cases" / case_slug(params)
    if where.exists():
        raise UserError(f"sim profiles: {where} already exists (never overwritten)")
    where.mkdir(parents=True)
    for i, dump in enumerate(dumps):
        shutil.copyfile(dump, where / f"callgrind.out.{i}")
    write_json_atomic(where / "case.json", {"params": list(params), "weights": list(weights)})
    profiles = [profile.parse(d.read_text(encoding="utf-8", errors="replace")) for d in dumps]
    built = table.build(profiles, weights, kernels)
    write_json_atomic(where / "functions.json", built.to_json())
    return where


def save(
    keep: Path,
    work: Path,
    cases: Sequence[tuple[str, Sequence[Any]]],
    names: Mapping[str, list[str]],
    weights: Sequence[int],
    record_error: str | None = None,
) -> list[Path]:
    """Keep every case of ``cases`` (id, params) whose dumps (``names[id]``) are all in
    ``work``; the kernel map beside them, or ``record_error.txt``: why the measured process
    could not record its kernels (their code then keeps its addresses). The case folders
    written."""
    keep.mkdir(parents=True, exist_ok=True)
    if record_error:
        write_text_atomic(keep / "record_error.txt", record_error)
    kernels = kernel_map(work)
    target = keep / "kernels.json"
    if (work / "kernels.json").is_file() and not target.exists():
        write_json_atomic(target, kernels.to_json())
    files = dump_files(work)
    out = []
    for case_id, params in cases:
        wanted = names.get(case_id, [])
        if wanted and all(n in files for n in wanted):
            out.append(save_case(keep, params, [files[n] for n in wanted], weights, kernels))
    return out


def load_table(case_folder: Path) -> table.FunctionsTable:
    """A kept case's functions table; a UserError names the file when it is missing or bad."""
    path = case_folder / "functions.json"
    try:
        return table.FunctionsTable.from_json(json.loads(path.read_text()))
    except OSError as exc:
        raise UserError(f"sim profiles: cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UserError(f"sim profiles: {path}: {exc}") from None
