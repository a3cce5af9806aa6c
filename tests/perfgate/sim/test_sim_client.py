"""perfgate.sim.client: valgrind's client requests from Python, a no-op natively."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perfgate.sim import client

#: valgrind.h's amd64 "special instruction preamble" and the request itself
MAGIC = bytes.fromhex("48c1c703" "48c1c70d" "48c1c73d" "48c1c733" "4887db")


def test_requests_are_no_ops_natively() -> None:
    """Outside valgrind every request returns its default and changes nothing."""
    assert client.supported()
    assert client.running_on_valgrind() is False
    assert client.request(client.RUNNING_ON_VALGRIND, default=7) == 7
    client.start_instrumentation()
    client.zero_stats()
    client.dump_stats_at("nothing")
    assert client.prepared_dump("nothing")() == 0
    client.stop_instrumentation()
    with pytest.raises(ValueError, match="at most 5"):
        client.request(1, 1, 2, 3, 4, 5, 6)


def test_the_request_codes_are_valgrinds() -> None:
    """The codes of valgrind.h / callgrind.h (an ABI valgrind never changes)."""
    base = (ord("C") << 24) | (ord("T") << 16)
    assert client.RUNNING_ON_VALGRIND == 0x1001
    assert (client.ZERO_STATS, client.DUMP_STATS_AT) == (base + 1, base + 3)
    assert (client.START_INSTRUMENTATION, client.STOP_INSTRUMENTATION) == (base + 4, base + 5)


@pytest.mark.subprocess
def test_the_machine_code_is_what_gcc_makes_of_valgrind_h(tmp_path: Path) -> None:
    """gcc's compilation of VALGRIND_DO_CLIENT_REQUEST holds the same preamble and request
    instruction as the code here (both checked byte for byte)."""
    header = Path("/usr/include/valgrind/valgrind.h")
    assert header.is_file() and shutil.which("gcc") and shutil.which("objcopy")
    source = tmp_path / "request.c"
    source.write_text(
        "#include <valgrind/valgrind.h>\n"
        "unsigned long f(unsigned long *a, unsigned long d) {\n"
        "  unsigned long r; VALGRIND_DO_CLIENT_REQUEST(r, d, a[0], a[1], a[2], a[3], a[4], a[5]);"
        "  return r; }\n"
    )
    obj, text = tmp_path / "request.o", tmp_path / "text.bin"
    subprocess.run(["gcc", "-O1", "-c", str(source), "-o", str(obj)], check=True)
    subprocess.run(["objcopy", "-O", "binary", "-j", ".text", str(obj), str(text)], check=True)
    assert MAGIC in text.read_bytes()
    assert MAGIC in client.CODE_X86_64
    assert client.CODE_X86_64.endswith(bytes.fromhex("4889d0c3"))  # rax = rdx; ret


@pytest.mark.subprocess
def test_valgrind_answers_the_request() -> None:
    """Under valgrind the same call says it runs there (the request reached the core)."""
    code = "from perfgate.sim import client; print(client.running_on_valgrind())"
    done = subprocess.run(
        ["valgrind", "--tool=none", "-q", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.strip() == "True"
