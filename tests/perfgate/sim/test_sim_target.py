"""perfgate.sim.target: which CPU the measured JIT compiles for under valgrind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from perfgate.errors import UserError
from perfgate.sim import target

HOST = {"NUMBA_CPU_NAME": "znver3", "NUMBA_CPU_FEATURES": "+avx,+avx2,+fma,-avx512f"}
AVX512_HOST = {"NUMBA_CPU_NAME": "icelake-server", "NUMBA_CPU_FEATURES": "+avx2,+avx512f"}
VALGRIND_CPU = {"NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": "+avx,+avx2,+fma"}


def _fake_probe(host: Mapping[str, str]) -> object:
    def probe(_python: str, _env: Mapping[str, str], prefix: Sequence[str] = ()) -> dict[str, str]:
        return dict(VALGRIND_CPU if prefix else host)

    return probe


@pytest.mark.parametrize(
    ("mode", "host", "expected"),
    [
        ("auto", HOST, HOST),  # the code the wall clock runs, from the same kernel cache
        ("auto", AVX512_HOST, VALGRIND_CPU),  # valgrind cannot decode AVX-512
        ("host", AVX512_HOST, AVX512_HOST),
        ("valgrind", HOST, VALGRIND_CPU),
        ("valgrind", {}, {}),  # no Numba in the measured interpreter: nothing to set
        # no VEX encoding, whatever the host: code valgrind 3.19 decodes
        ("baseline", AVX512_HOST, {"NUMBA_CPU_NAME": "x86-64-v2", "NUMBA_CPU_FEATURES": ""}),
        ("baseline", HOST, {"NUMBA_CPU_NAME": "x86-64-v2", "NUMBA_CPU_FEATURES": ""}),
        ("baseline", {}, {}),
    ],
)
def test_modes(
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    host: Mapping[str, str],
    expected: Mapping[str, str],
) -> None:
    monkeypatch.setattr(target, "probe", _fake_probe(host))
    assert target.resolve(mode, "python", {}) == expected


def test_avx512_is_read_from_the_features_and_unknown_modes_are_refused() -> None:
    assert target.has_avx512(AVX512_HOST) and not target.has_avx512(HOST)
    assert not target.has_avx512({})
    with pytest.raises(UserError, match="expected one of auto, host, valgrind, baseline"):
        target.resolve("native", "python", {})
