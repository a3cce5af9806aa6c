"""The measured process of a scaling family:
``python -m perfgate.sim.scaling.thread_child SPEC.json``.

As `perfgate.sim.child`, with each measured call counted per thread (callgrind's
``--separate-threads=yes``): after the call the calling thread dumps its counts under the
call's name (`child.dump_name`) and every active worker of Numba's pool dumps its own under
`worker_dump_name` (`perfgate.sim.scaling.worker_dump`). A client request dumps and zeroes only the
issuing thread's counts, so the sequence is, per case::

    instrumentation on, warm-up calls,
    workers dump (discarded: their warm-up), calling thread zeroed,
    per measured call: the call, the calling thread dumps, the workers dump,
                       the calling thread zeroed (the workers' dump launched from it),
    instrumentation off.

A worker's interval so runs from its previous dump to the next: its chunks of the call, and
the few hundred instructions of the dump kernel around its request (the same on every side).
Each case records the pool's active thread count after its calls (``threads``) and the
threading layer, which must be `worker_dump.LAYER`: the split into the calling thread's
serial work and the workers' shares relies on it.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from perfgate.sim import child, client
from perfgate.sim.scaling import worker_dump

#: the name of a call's workers' dumps, and of the discarded dump of their warm-up
WORKERS_SUFFIX = "workers"


def worker_dump_name(case: str, call: int) -> str:
    """The workers' dump of measured call ``call`` of ``case``."""
    return f"{case}.{call}.{WORKERS_SUFFIX}"


def measure_case(
    call: Callable[[], object],
    warmup: int,
    calls: int,
    name: str,
    workers: worker_dump.WorkerDumps,
) -> None:
    """One case under instrumentation, counted per thread (see the module)."""
    own = [client.prepared_dump(child.dump_name(name, i)) for i in range(calls)]
    theirs = [workers.prepared(worker_dump_name(name, i)) for i in range(calls)]
    warm = workers.prepared(f"{name}.warmup.{WORKERS_SUFFIX}")
    client.start_instrumentation()
    try:
        for _ in range(warmup):
            call()
        warm()
        client.zero_stats()
        for mine, workers_dump in zip(own, theirs, strict=True):
            call()
            mine()
            workers_dump()
            client.zero_stats()
    finally:
        client.stop_instrumentation()


def run_case(
    factory: Callable[..., Callable[[], object]],
    case: Mapping[str, Any],
    spec: Mapping[str, Any],
    workers: worker_dump.WorkerDumps,
) -> dict[str, Any]:
    """Build and measure one case; its outcome, the active thread count and the layer."""
    started = time.monotonic()
    try:
        call = factory(*case["params"])
    except NotImplementedError as exc:
        return {"state": "skipped", "message": str(exc)}
    except Exception:  # recorded as this case's failure; the others still run
        return {"state": "failed", "message": traceback.format_exc()[-2000:]}
    built = time.monotonic()
    try:
        layer = worker_dump.threading_layer()
        if layer != worker_dump.LAYER:
            raise RuntimeError(
                f"threading layer {layer!r}: the per-thread split needs {worker_dump.LAYER!r} "
                "(NUMBA_THREADING_LAYER)"
            )
        measure_case(call, int(spec["warmup"]), int(spec["calls"]), case["id"], workers)
        import numba

        threads = int(numba.get_num_threads())
    except Exception:
        return {"state": "failed", "message": traceback.format_exc()[-2000:]}
    return {
        "state": "ok",
        "message": "",
        "threads": threads,
        "build_seconds": f"{built - started:.1f}",
        "seconds": f"{time.monotonic() - built:.1f}",
    }


def main(argv: list[str]) -> int:
    """Measure the cases of the spec file ``argv[0]``; 0 when the status file was written."""
    spec = json.loads(Path(argv[0]).read_text())
    ballast = child.shift_layout(child.layout_steps(os.environ))
    module = child.import_suite(spec["root_name"], spec["root_path"], spec["module"])
    factory = getattr(module, spec["class"]).sim_case
    workers = worker_dump.WorkerDumps()
    status: dict[str, Any] = {"on_valgrind": client.running_on_valgrind(), "cases": {}}
    for case in spec["cases"]:
        status["cases"][case["id"]] = run_case(factory, case, spec, workers)
    del ballast  # alive until every case was measured
    out = Path(spec["status"])
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(status))
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
