"""The measured process: ``python -m perfgate.sim.child SPEC.json``.

It builds each case of the spec with the suite class's ``sim_case`` (uninstrumented: imports,
compiles, cache loads and inputs are never counted), then per case switches callgrind's
instrumentation on, runs the warm-up calls (the simulated caches fill as they would in a
loop), zeroes the counts, runs the measured calls, dumps the counts under the case's id and
switches instrumentation off. Natively (the harness's first pass) the same code runs with
every client request a no-op. Each case's outcome (ok, skipped, failed) goes to the status
file named in the spec; the counts are read from callgrind's dump files by the harness.

With ``PERFGATE_SIM_LAYOUT=k`` (k > 0) the process first allocates a ballast that moves
everything allocated after it (`shift_layout`): the same code then runs on data at other
addresses. The gate counts the base's second time so, which tells a case whose simulated
misses follow the memory layout (`perfgate.sim.compare`).
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import json
import mmap
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from perfgate.sim import client


def import_suite(root_name: str, root_path: str, module: str) -> ModuleType:
    """The suite's module, importing its benchmark folder as package ``root_name`` (as asv
    does: the folder need not be on ``sys.path``)."""
    if root_name not in sys.modules:
        init = Path(root_path, "__init__.py")
        if init.is_file():
            spec = importlib.util.spec_from_file_location(
                root_name, init, submodule_search_locations=[root_path]
            )
            assert spec is not None and spec.loader is not None
            package = importlib.util.module_from_spec(spec)
            sys.modules[root_name] = package
            spec.loader.exec_module(package)
        else:
            package = ModuleType(root_name)
            package.__path__ = [root_path]
            sys.modules[root_name] = package
    return importlib.import_module(module)


#: the variable naming the layout shift of a measured process (0 or absent: none)
LAYOUT_VARIABLE = "PERFGATE_SIM_LAYOUT"
#: One step of the shift, in whole 64-byte lines so that no allocation after it changes its
#: alignment (numpy's vector loops peel unaligned heads: a 16-byte shift moved the
#: instructions of g1_walk's hand-written case at N=2048 by 0.15%): 70 pages of mapping (every
#: later mapping moves by them: other last-level cache sets) and one 1024-byte heap chunk
#: (every later small allocation moves by 16 lines: other L1 sets).
_MAPPED_PAGES = 70
_HEAP_CHUNK = 1024
#: malloc's per-chunk overhead on 64-bit glibc: a request of this much less is one chunk
_MALLOC_HEADER = 8


def layout_steps(environ: Mapping[str, str]) -> int:
    """The layout shift asked for by `LAYOUT_VARIABLE` (a ValueError names it if bad)."""
    text = environ.get(LAYOUT_VARIABLE, "0").strip() or "0"
    if not text.isdigit():
        raise ValueError(f"{LAYOUT_VARIABLE}: expected a non-negative integer, got {text!r}")
    return int(text)


def shift_layout(steps: int) -> list[object]:
    """Allocations, kept alive by the caller, that shift the addresses of all that is
    allocated after them by ``steps`` steps (none for 0), by whole cache lines. What the
    measured calls execute is unchanged: only where their data lie."""
    if steps <= 0:
        return []
    mapped = mmap.mmap(-1, steps * _MAPPED_PAGES * mmap.PAGESIZE)
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    chunks = [libc.malloc(_HEAP_CHUNK - _MALLOC_HEADER) for _ in range(steps)]
    return [mapped, *chunks]


def dump_name(case: str, call: int) -> str:
    """The dump of measured call ``call`` of ``case``."""
    return f"{case}.{call}"


def measure_case(call: Callable[[], object], warmup: int, calls: int, name: str) -> None:
    """One case under instrumentation: warm-up calls, zero, then each measured call dumped
    on its own (`dump_name`; a dump also zeroes the counts)."""
    dumps = [client.prepared_dump(dump_name(name, i)) for i in range(calls)]
    client.start_instrumentation()
    try:
        for _ in range(warmup):
            call()
        client.zero_stats()
        for dump in dumps:
            call()
            dump()
    finally:
        client.stop_instrumentation()


def run_case(
    factory: Callable[..., Callable[[], object]], case: Mapping[str, Any], spec: Mapping[str, Any]
) -> dict[str, str]:
    """Build and measure one case; its outcome (a skip is a NotImplementedError, as in asv)
    and the seconds its building and its calls took (the log names the costly cases)."""
    started = time.monotonic()
    try:
        call = factory(*case["params"])
    except NotImplementedError as exc:
        return {"state": "skipped", "message": str(exc)}
    except Exception:  # recorded as this case's failure; the others still run
        return {"state": "failed", "message": traceback.format_exc()[-2000:]}
    built = time.monotonic()
    try:
        measure_case(call, int(spec["warmup"]), int(spec["calls"]), case["id"])
    except Exception:
        return {"state": "failed", "message": traceback.format_exc()[-2000:]}
    return {
        "state": "ok",
        "message": "",
        "build_seconds": f"{built - started:.1f}",
        "seconds": f"{time.monotonic() - built:.1f}",
    }


def main(argv: list[str]) -> int:
    """Measure the cases of the spec file ``argv[0]``; 0 when the status file was written."""
    spec = json.loads(Path(argv[0]).read_text())
    ballast = shift_layout(layout_steps(os.environ))
    module = import_suite(spec["root_name"], spec["root_path"], spec["module"])
    factory = getattr(module, spec["class"]).sim_case
    status: dict[str, Any] = {"on_valgrind": client.running_on_valgrind(), "cases": {}}
    for case in spec["cases"]:
        status["cases"][case["id"]] = run_case(factory, case, spec)
    del ballast  # alive until every case was measured
    out = Path(spec["status"])
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(status))
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
