"""perfgate.footprint.recorder, in a child process (its hooks last as long as the process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

CHILD = """
import json, sys
from perfgate.footprint.recorder import Recorder
rec = Recorder()
rec.install()
sys.path.insert(0, {root!r})
import shared_mod
cases = {{}}
with rec.case() as files:
    import case_a
    case_a.run()
cases["a"] = sorted(files)
with rec.case() as files:
    open({data!r}).read()
    shared_mod.helper()
cases["b"] = sorted(files)
print(json.dumps({{"shared": sorted(rec.shared), "cases": cases}}))
"""


def test_each_case_gets_the_files_its_code_ran_imported_and_opened(tmp_path: Path) -> None:
    (tmp_path / "shared_mod.py").write_text("def helper():\n    return 1\n")
    (tmp_path / "case_a.py").write_text(
        "import case_a_dep\n\ndef run():\n    return case_a_dep.f()\n"
    )
    (tmp_path / "case_a_dep.py").write_text("def f():\n    return 2\n")
    data = tmp_path / "table.json"
    data.write_text("{}")
    code = CHILD.format(root=str(tmp_path), data=str(data))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    names = {k: {Path(f).name for f in v} for k, v in found["cases"].items()}
    assert {"case_a.py", "case_a_dep.py"} <= names["a"] and "table.json" not in names["a"]
    assert {"table.json", "shared_mod.py"} <= names["b"] and "case_a.py" not in names["b"]
    assert "shared_mod.py" in {Path(f).name for f in found["shared"]}
