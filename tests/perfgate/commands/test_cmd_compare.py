"""`perfgate compare` through `perfgate.cli.main`: exit codes 0/1/2/3, report files, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pg_results_factory as f
import pytest

from perfgate import cli
from perfgate.formats.noise import write_noise_floors_atomic
from perfgate.formats.report_files import read_report
from perfgate.formats.samples import write_samples_atomic

BENCH = f.Bench("hot.K.time_k", ("path", "n"), (("handwritten", "assembled"), (8, 16)))
CONFIG = """
[tool.perfgate]
confirm = false
resamples = 500
blocking = ['^hot\\.']

[[tool.perfgate.baseline]]
param = "path"
variant = "assembled"
baseline = "handwritten"
"""


def _tree(tmp_path: Path, head_factor: float = 1.0, seed: int = 0, name: str = "res") -> Path:
    def medians(side: str, bench: str, combo: tuple[object, ...]) -> float:
        factor = head_factor if side == "head" and combo[0] == "assembled" else 1.0
        return 1e-3 * factor

    root = tmp_path / name
    f.build_tree(root, [BENCH], medians, seed=seed)
    return root


def _config(tmp_path: Path, text: str = CONFIG) -> str:
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    return str(path)


def _run(root: Path, cfg: str, *extra: str) -> int:
    return cli.main(
        [
            "compare",
            str(root),
            "--base",
            f.BASE_SHA[:8],
            "--head",
            f.HEAD_SHA[:12],
            "--config",
            cfg,
            *extra,
        ]
    )


def test_exit_0_when_nothing_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Same timings on both sides: PASS, report printed."""
    assert _run(_tree(tmp_path), _config(tmp_path)) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!-- perfgate-report -->\n### ✅ perfgate PASS")


def test_exit_1_on_stable_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """30% slower at head: REGRESSION, the cases are named."""
    assert _run(_tree(tmp_path, head_factor=1.3), _config(tmp_path)) == 1
    out = capsys.readouterr().out
    assert "REGRESSION: head vs base hot.K.time\\_k(path=assembled, n=8)" in out


def test_exit_2_on_parity_failure(tmp_path: Path) -> None:
    """A failed parity result gives PARITY_FAILURE even with clean timings."""
    parity = tmp_path / "parity.json"
    parity.write_text(
        json.dumps({"status": "failed", "command": "make test-all", "summary": "1 failed"})
    )
    assert _run(_tree(tmp_path), _config(tmp_path), "--parity-result", str(parity)) == 2


def test_a_parity_result_of_another_commit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A parity result that records its commit is taken only for the compared head."""
    parity = tmp_path / "parity.json"
    parity.write_text(json.dumps({"status": "passed", "sha": f.BASE_SHA}))
    assert _run(_tree(tmp_path), _config(tmp_path), "--parity-result", str(parity)) == 3
    err = capsys.readouterr().err
    assert f.BASE_SHA in err and f.HEAD_SHA in err and str(parity) in err
    mine = tmp_path / "parity-head.json"
    failed = {"status": "failed", "sha": f.HEAD_SHA, "failed_tests": ["tests/t.py::test_x"]}
    mine.write_text(json.dumps(failed))
    assert _run(_tree(tmp_path, name="r2"), _config(tmp_path), "--parity-result", str(mine)) == 2
    assert "failing: tests/t.py::test\\_x" in capsys.readouterr().out  # markdown-escaped


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--base", "deadbeef"], "unknown revision 'deadbeef'"),
        (["--machine", "nope"], "machine 'nope' not in"),
        (["--base", "HEAD~1"], "not a commit hash"),
    ],
)
def test_exit_3_on_bad_revision_or_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Unknown revision or machine: ERROR with a clear message and no traceback."""
    assert _run(_tree(tmp_path), _config(tmp_path), *args) == 3
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_exit_3_on_corrupt_result_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A truncated result file is an ERROR naming the file."""
    root = _tree(tmp_path)
    path = root / "perf-runner" / f"{f.HEAD_SHA[:8]}-existing-py_3.11.json"
    path.write_text(path.read_text()[:100])
    assert _run(root, _config(tmp_path)) == 3
    assert str(path) in capsys.readouterr().err


def test_exit_3_on_usage_errors_and_bad_config(tmp_path: Path) -> None:
    """argparse errors (normally exit 2) and invalid config are ERROR (3), not parity."""
    assert cli.main(["compare", str(tmp_path)]) == 3
    assert cli.main(["no-such-command"]) == 3
    assert cli.main([]) == 3
    assert _run(_tree(tmp_path), _config(tmp_path, "[tool.perfgate]\nalpah = 1\n")) == 3
    assert cli.main(["--version"]) == 0


def test_bad_bench_regex_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An invalid --bench regex: exit 3 naming the option, no traceback."""
    assert _run(_tree(tmp_path), _config(tmp_path), "--bench", "(") == 3
    err = capsys.readouterr().err
    assert "argument --bench: invalid regular expression '('" in err and "Traceback" not in err


def test_exit_3_when_inconclusive(tmp_path: Path) -> None:
    """With confirmation required and no re-run, a flagged regression cannot pass: ERROR."""
    cfg = _config(tmp_path, CONFIG.replace("confirm = false", "confirm = true"))
    assert _run(_tree(tmp_path, head_factor=1.3), cfg) == 3
    confirm = _tree(tmp_path, head_factor=1.3, seed=5, name="confirm")
    assert _run(_tree(tmp_path, head_factor=1.3), cfg, "--confirm-results", str(confirm)) == 1


def test_report_dir_written_once(tmp_path: Path) -> None:
    """report.md, report.html and verdict.json are written; a second run refuses (exit 3)."""
    root, cfg, out = _tree(tmp_path, head_factor=1.3), _config(tmp_path), tmp_path / "out"
    assert _run(root, cfg, "--report-dir", str(out)) == 1
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.md", "verdict.json"]
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["verdict"] == "regression" and verdict["exit_code"] == 1
    posted = read_report(out)  # the contract with `perfgate post`
    assert (posted.verdict, posted.exit_code) == ("regression", 1)
    assert posted.summary.startswith("REGRESSION: merge blocked (")
    before = (out / "report.md").read_text()
    assert _run(root, cfg, "--report-dir", str(out)) == 3
    assert (out / "report.md").read_text() == before


def test_bench_filter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--bench keeps only matching benchmarks; matching nothing is an ERROR."""
    root, cfg = _tree(tmp_path), _config(tmp_path)
    assert _run(root, cfg, "--bench", "^nothing$") == 3
    assert "no benchmark case was compared" in capsys.readouterr().out


def test_paired_sample_file(tmp_path: Path) -> None:
    """--samples switches head vs base to the paired rounds of a perfgate sample file."""

    rounds = [
        {
            "cases": [
                {
                    "benchmark": "hot.K.time_k",
                    "params": {"path": "assembled", "n": "8"},
                    "base": [1.0 + 0.01 * i, 1.0],
                    "head": [1.5 + 0.01 * i, 1.5],
                }
            ]
        }
        for i in range(8)
    ]
    samples = tmp_path / "samples.json"
    write_samples_atomic(
        samples,
        {
            "api_version": 1,
            "kind": "perfgate-samples",
            "fingerprint": {},
            "base": f.BASE_SHA,
            "head": f.HEAD_SHA,
            "rounds": rounds,
        },
    )
    out = tmp_path / "out"
    assert (
        _run(
            _tree(tmp_path), _config(tmp_path), "--samples", str(samples), "--report-dir", str(out)
        )
        == 1
    )
    cases = json.loads((out / "verdict.json").read_text())["cases"]
    assert len(cases) == 1 and cases[0]["paired"] and cases[0]["verdict"] == "regressed"


@pytest.mark.parametrize(("base", "head"), [("", ""), ("", None), ("f" * 40, None)])
def test_sample_file_of_other_commits_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: str, head: str | None
) -> None:
    """A sample file whose commits are empty or other than --base/--head is an ERROR (3):
    an empty hash is not a prefix of every commit."""

    case = {"benchmark": "hot.K.time_k", "params": {"path": "assembled", "n": "8"}}
    rounds = [{"cases": [{**case, "base": [1.0, 1.0], "head": [1.0, 1.0]}]}] * 8
    samples = tmp_path / "samples.json"
    data = {"api_version": 1, "kind": "perfgate-samples", "fingerprint": {}, "rounds": rounds}
    data |= {"base": base, "head": f.HEAD_SHA if head is None else head}
    write_samples_atomic(samples, data)
    assert _run(_tree(tmp_path), _config(tmp_path), "--samples", str(samples)) == 3
    assert "samples.json: base is" in capsys.readouterr().err


def test_noise_floor_file_raises_thresholds(tmp_path: Path) -> None:
    """A 30% slowdown on cases whose A/A noise floor is 50% does not block."""

    noise = tmp_path / "noise.json"
    cases = [
        {
            "benchmark": "hot.K.time_k",
            "params": {"path": "assembled", "n": str(n)},
            "noise_floor": 0.5,
            "pairs": 20,
        }
        for n in (8, 16)
    ]
    write_noise_floors_atomic(noise, {"api_version": 1, "kind": "perfgate-noise", "cases": cases})
    root, cfg = _tree(tmp_path, head_factor=1.3), _config(tmp_path)
    assert _run(root, cfg) == 1
    assert _run(root, cfg, "--noise", str(noise)) == 0


def test_non_finite_samples_are_invalid_and_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stored sample list with NaN/inf makes the case INVALID, which fails closed (3)."""
    root = _tree(tmp_path)
    path = root / "perf-runner" / f"{f.HEAD_SHA[:8]}-existing-py_3.11.json"
    data = json.loads(path.read_text())
    samples_column = data["result_columns"].index("samples")
    data["results"][BENCH.name][samples_column][0][3] = float("inf")
    path.write_text(json.dumps(data))
    assert _run(root, _config(tmp_path)) == 3
    assert "invalid data (non-finite or non-positive samples on head)" in capsys.readouterr().out
