"""A headless Chromium driven through chromedriver's WebDriver protocol (HTTP + JSON, with
``requests``), for the tests that check what a page looks like: open a page at a given
window size, run a script in it (element boxes), save a screenshot.

Debian's ``chromium`` and ``chromium-driver`` packages are needed (``make test-slow``
installs them where missing); a fresh profile folder per browser, no network services.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
import requests

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)


def missing() -> str | None:
    """Why no browser can run here (None: chromium and chromedriver are installed)."""
    for tool in ("chromium", "chromedriver"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed: apt-get install -y chromium chromium-driver"
    return None


def screenshot_dir(default: Path) -> Path:
    """Where a test keeps its screenshots: ``PERFGATE_SCREENSHOTS`` when set, else
    ``default`` (pytest's tmp_path); created."""
    folder = Path(os.environ.get("PERFGATE_SCREENSHOTS", default))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def session(width: int, height: int) -> Iterator[Browser]:
    """A `Browser` of that window size; the test fails (never skips) where none can run."""
    why = missing()
    if why is not None:
        pytest.fail(f"{why} (make test-slow installs them)")
    with Browser(width, height) as b:
        yield b


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """``with Browser(1280, 800) as b: b.open(url); b.run(js); b.screenshot(path)``."""

    def __init__(self, width: int, height: int) -> None:
        self.size = (width, height)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.profile = tempfile.mkdtemp(prefix="perfgate-chromium-")
        self.driver: subprocess.Popen[bytes] | None = None
        self.session = ""

    def __enter__(self) -> Browser:
        self.driver = subprocess.Popen(
            [str(shutil.which("chromedriver")), f"--port={self.port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                requests.get(f"{self.url}/status", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        w, h = self.size
        options = {
            "binary": shutil.which("chromium"),
            "args": [*FLAGS, f"--user-data-dir={self.profile}", f"--window-size={w},{h}"],
        }
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}}
        self.session = self._call("post", "/session", caps)["sessionId"]
        self.open("about:blank")
        dw, dh = self.run(
            "return [window.outerWidth - window.innerWidth,"
            " window.outerHeight - window.innerHeight];"
        )
        rect = {"width": w + int(dw), "height": h + int(dh)}
        self._call("post", f"/session/{self.session}/window/rect", rect)
        return self

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        done = requests.request(method, self.url + path, json=body, timeout=120)
        value = done.json().get("value")
        if done.status_code != 200:
            raise RuntimeError(f"webdriver {path}: {done.status_code} {value}")
        return value

    def open(self, url: str) -> None:
        """Load ``url`` and wait for it (the document's load event)."""
        self._call("post", f"/session/{self.session}/url", {"url": url})

    def run(self, script: str) -> Any:
        """The value of ``script`` (a function body ending in ``return ...``) in the page."""
        return self._call(
            "post", f"/session/{self.session}/execute/sync", {"script": script, "args": []}
        )

    def viewport(self) -> tuple[int, int]:
        """The page's inner width and height (the size asked for, once the window is set)."""
        w, h = self.run("return [window.innerWidth, window.innerHeight];")
        return int(w), int(h)

    def screenshot(self, path: Path) -> None:
        """Save the visible part of the page as a PNG."""
        data = self._call("get", f"/session/{self.session}/screenshot")
        path.write_bytes(base64.b64decode(data))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self.session:
                self._call("delete", f"/session/{self.session}")
        finally:
            if self.driver is not None:
                self.driver.terminate()
                self.driver.wait(10)
            shutil.rmtree(self.profile, ignore_errors=True)
