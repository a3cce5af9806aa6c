"""Which CPU the measured process's JIT compiles for under valgrind (Numba today).

Under valgrind, LLVM's host detection sees the CPU valgrind presents (a Haswell-class x86-64
without AVX-512 for valgrind 3.19), not the host: Numba would miss its on-disk cache and
compile every kernel under the simulator (minutes each), and the measured code would not be
the code the wall clock runs. So the measured process is told which CPU to compile for
(``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES``), in one of three modes:

- ``host``: the host's CPU, as Numba detects it natively. The simulator runs the very machine
  code the wall clock times, loaded from the same kernel cache (nothing compiles again).
- ``valgrind``: the CPU valgrind presents (probed under ``valgrind --tool=none``). Needed
  where the host's code has instructions valgrind cannot decode (AVX-512); kernels compile
  once more, natively, for that CPU.
- ``auto`` (default): ``host`` unless the host has AVX-512, else ``valgrind``.
- ``baseline``: x86-64-v2 with its own features (SSE up to 4.2, no AVX, so no VEX encoding),
  whatever the host. For code valgrind cannot decode even for the CPU it presents: valgrind
  3.19 does not decode the register form of VEX ``vmovq`` (``0xC5 0x79 0xD6 0xC0``), which
  LLVM emits in the motion_tracking assembled kernel's per-thread run. The counts are of SSE
  code, not of the code the wall clock runs: compare them only with counts of this mode.

The probe runs in the measured project's interpreter (perfgate never imports Numba); a project
without Numba gets no JIT settings at all.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence

from perfgate.errors import UserError

MODES = ("auto", "host", "valgrind", "baseline")
#: the ``baseline`` mode's target: a CPU without AVX, its default features
BASELINE = {"NUMBA_CPU_NAME": "x86-64-v2", "NUMBA_CPU_FEATURES": ""}
_PROBE = """
import json
try:
    import llvmlite.binding as ll
    from numba.core.codegen import get_host_cpu_features
except ImportError:
    print(json.dumps({}))
else:
    print(json.dumps({"NUMBA_CPU_NAME": ll.get_host_cpu_name(),
                      "NUMBA_CPU_FEATURES": get_host_cpu_features()}))
"""


def probe(python: str, env: Mapping[str, str], prefix: Sequence[str] = ()) -> dict[str, str]:
    """The JIT target ``python`` detects (run under ``prefix``, e.g. valgrind): the
    ``NUMBA_CPU_*`` settings, or {} for an interpreter without Numba."""
    clean = {k: v for k, v in env.items() if not k.startswith("NUMBA_CPU_")}
    argv = [*prefix, python, "-c", _PROBE]
    try:
        done = subprocess.run(argv, env=clean, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"sim: cannot probe the JIT target with {argv[0]}: {exc}") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise UserError(f"sim: the JIT target probe failed: {done.stderr.strip()[-500:]}")
    found = json.loads(lines[-1])
    return {str(k): str(v) for k, v in found.items()}


def has_avx512(target: Mapping[str, str]) -> bool:
    """True when the target's features enable any AVX-512 extension."""
    features = target.get("NUMBA_CPU_FEATURES", "").split(",")
    return any(f.startswith("+avx512") for f in features)


def resolve(mode: str, python: str, env: Mapping[str, str]) -> dict[str, str]:
    """The ``NUMBA_CPU_*`` settings of the measured process for ``mode`` (see the module)."""
    if mode not in MODES:
        raise UserError(f"sim target: expected one of {', '.join(MODES)}, got {mode!r}")
    host = probe(python, env)
    if not host or mode == "host" or (mode == "auto" and not has_avx512(host)):
        return host
    if mode == "baseline":
        return dict(BASELINE)
    return probe(python, env, ("valgrind", "--tool=none", "-q"))
