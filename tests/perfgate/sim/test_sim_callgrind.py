"""perfgate.sim.callgrind: the fixed command line and the dump files it reads back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from perfgate.sim import callgrind
from perfgate.sim.callgrind import ValgrindMissing, parse_dump, read_dumps

DUMP = Path(__file__).parents[1] / "data" / "callgrind" / "callgrind.out.1"


def test_a_real_dump_header_parses_to_its_summary() -> None:
    """The header of a callgrind dump (valgrind 3.19, cache simulation on) names its trigger
    and holds the counts of everything since the last zero."""
    dump = parse_dump(DUMP.read_text())
    assert dump is not None and dump.name == "g1_walk-assembled-65536"
    assert dump.events.ir == 113_399_344 and dump.events.dlmw == 3_085_768
    assert dump.events.l1_misses == 12_026 + 2_720_154 + 3_157_233


def test_a_dump_no_request_named_is_left_out(tmp_path: Path) -> None:
    """The final dump at exit has no client-request trigger; a name dumped twice is an
    error (a case would be counted twice)."""
    text = DUMP.read_text()
    assert parse_dump(text.replace("Client Request: ", "Program termination")) is None
    shutil.copy(DUMP, tmp_path / "callgrind.out.1")
    (tmp_path / "callgrind.out").write_text(text.replace("desc: Trigger: Client Request", "x"))
    found = read_dumps(tmp_path, ["g1_walk-assembled-65536", "other"])
    assert list(found) == ["g1_walk-assembled-65536"]
    shutil.copy(DUMP, tmp_path / "callgrind.out.2")
    with pytest.raises(ValueError, match="twice"):
        read_dumps(tmp_path, ["g1_walk-assembled-65536"])


def test_the_command_fixes_geometry_aslr_and_dump_folder(tmp_path: Path) -> None:
    """ASLR off, callgrind with cache simulation, instrumentation off at start, the fixed
    caches (not the host's), dumps into the given folder, then the measured command."""
    cmd = callgrind.command(tmp_path, ["python", "-m", "x"])
    assert cmd[1:4] == ["-R", "valgrind", "--tool=callgrind"]
    for arg in ("--instr-atstart=no", "--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64"):
        assert arg in cmd
    assert "--LL=8388608,16,64" in cmd
    assert f"--callgrind-out-file={tmp_path / 'callgrind.out'}" in cmd
    assert cmd[-3:] == ["python", "-m", "x"]
    assert callgrind.fingerprint("3.19.0", {"NUMBA_CPU_NAME": "znver3"}) == {
        "valgrind": "3.19.0",
        "cache": "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64",
        "NUMBA_CPU_NAME": "znver3",
    }


def test_missing_valgrind_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """No valgrind on PATH: a clear error with the apt command, never a silent skip; the
    gate's probe of it answers None."""
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ValgrindMissing, match="apt-get install -y valgrind"):
        callgrind.valgrind_version()
    assert callgrind.installed_version() is None
