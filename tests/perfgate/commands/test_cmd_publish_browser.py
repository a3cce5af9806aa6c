"""The dashboard after a gate, in a real browser: what `make dashboard` publishes from a
checkout whose only measurements are a local gate run's (``perfgate publish --gate-runs``,
then ``ci/dashboard_assets.py``), opened in headless Chromium at 1280x800.

The gate run folder has the layout a gate writes (first main round and first sim count of
each side); the head makes the collector's throughput 30% lower and changes nothing else.
The first page must list the hot-slice series (wall clock and sim), and asv's regressions
page must name the throughput drop (published as 1/value, so lower throughput reads as
worse) and nothing else. Screenshots: ``PERFGATE_SCREENSHOTS=DIR``, else pytest's tmp_path.
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import browser
import pytest
from pg_results_factory import Bench, write_benchmarks_json, write_machine_json, write_result
from watch_history import scripted_history

from perfgate.commands.publish import run as publish

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.network]

REPO = Path(__file__).resolve().parents[3]
HOT = Bench("hot_slice.HotSlice.time_compute", ("task", "path"), (("g1_walk",), ("numpy",)))
SIM = Bench(
    "sim_hot_slice.SimHotSlice.track_cycles",
    ("task", "path"),
    (("g1_walk",), ("numpy",)),
    unit="cycles",
    kind="track",
)
RATE = Bench("collector.Collector.track_env_steps_per_s", kind="track", unit="steps/s")
FIGURES = {HOT.name: (2e-3, 2e-3), SIM.name: (4e7, 4e7), RATE.name: (9000.0, 6300.0)}


def _gate_run(runs: Path, base: str, head: str) -> None:
    """One gate run's folders, as `perfgate gate` leaves them."""
    run = runs / f"20261203T120000Z-{base[:8]}-{head[:8]}"
    for side, commit in (("base", base), ("head", head)):
        for name, benches in ((f"main-r000-{side}", [HOT, RATE]), (f"sim-{side}-1", [SIM])):
            folder = run / name
            write_benchmarks_json(folder, [HOT, SIM, RATE])
            write_machine_json(folder)
            k = 0 if side == "base" else 1
            samples = {b.name: [[FIGURES[b.name][k]] * 3] for b in benches}
            write_result(folder, commit, benches, samples)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No request log on stderr."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The published, vendored dashboard served on 127.0.0.1; its index URL."""
    tmp = tmp_path_factory.mktemp("dashboard")
    history = scripted_history(tmp, n=2)
    _gate_run(tmp / "runs", history.commits[0], history.commits[1])
    conf = history.repo / "asv.conf.json"
    conf.write_text('{"version": 1, "project": "termplan", "repo": ".", "branches": ["main"]}')
    policy = history.repo / "pyproject.toml"
    policy.write_text("[tool.perfgate]\nhigher_is_better = ['\\.track_env_steps_per_s$']\n")
    html = tmp / "html"
    assert publish(history.repo, tmp / "no-results", html, conf, policy, tmp / "runs") == 0
    vendored = subprocess.run(
        [sys.executable, str(REPO / "ci/dashboard_assets.py"), str(html),
         "--cache", str(REPO / ".asv/vendor-cache")],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert vendored.returncode == 0, vendored.stderr[-2000:]
    handler = functools.partial(_QuietHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[browser.Browser]:
    with browser.session(1280, 800) as b:
        yield b


def _wait_text(chromium: browser.Browser, needle: str, seconds: float = 20.0) -> str:
    """The page's visible text once it contains ``needle`` (asv renders after loading JSON)."""
    deadline = time.monotonic() + seconds
    text = ""
    while time.monotonic() < deadline:
        text = str(chromium.run("return document.body ? document.body.innerText : '';"))
        if needle in text:
            return text
        time.sleep(0.2)
    raise AssertionError(f"{needle!r} never appeared; the page shows: {text[:1500]!r}")


def test_first_page_lists_the_hot_slice_series_of_both_instruments(
    site: str, chromium: browser.Browser, tmp_path: Path
) -> None:
    chromium.open(site + "#/")
    text = _wait_text(chromium, "HotSlice.time_compute")
    chromium.screenshot(browser.screenshot_dir(tmp_path) / "dashboard_first_page.png")
    assert "SimHotSlice.track_cycles" in text  # the grid: module, then class.method
    assert "Collector.track_env_steps_per_s" in text
    thumbs: list[dict[str, Any]] = chromium.run(
        "return Array.from(document.querySelectorAll('img, canvas'))"
        ".map(e => ({w: e.getBoundingClientRect().width, h: e.getBoundingClientRect().height}));"
    )
    assert sum(1 for t in thumbs if t["w"] > 20 and t["h"] > 20) >= 3, thumbs
    drawn = site.replace("index.html", f"graphs/summary/{RATE.name}.json")
    with urllib.request.urlopen(drawn, timeout=10) as answer:  # what the thumbnail draws
        points = json.load(answer)
    assert points[-1][1] > points[0][1], "lower throughput must be drawn upward, like time"


def test_the_throughput_drop_and_nothing_else_reads_as_a_regression(
    site: str, chromium: browser.Browser, tmp_path: Path
) -> None:
    chromium.open(site + "#/regressions")
    text = _wait_text(chromium, "track_env_steps_per_s")
    chromium.screenshot(browser.screenshot_dir(tmp_path) / "dashboard_regressions.png")
    assert "hot_slice.HotSlice.time_compute" not in text
    assert "sim_hot_slice" not in text
