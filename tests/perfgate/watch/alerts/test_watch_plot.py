"""The SVG history plot of an alert: byte-identical to its golden file, and well-formed XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from watch_fakes import series_of

from perfgate.watch.alerts.plot import CONTEXT, history_svg
from perfgate.watch.changes.detect import detect
from perfgate.watch.records.state import new_change

GOLDEN = Path(__file__).parent / "golden" / "history.svg"
VALUES = [1.0, 1.01, 0.99, 1.0, 1.005, 0.995, 1.08, 1.09, 1.07, 1.08, 1.085, 1.075]
POSITIONS = [0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 14, 15]


def _svg() -> str:
    series = series_of(VALUES, positions=POSITIONS)
    (change,) = detect(series, 0.05, 0.01)
    return history_svg(series, new_change(series, change), "seconds")


def test_history_svg_matches_its_golden_file() -> None:
    assert _svg() == GOLDEN.read_text()


def test_history_svg_is_xml_with_one_dot_per_measured_commit() -> None:
    root = ET.fromstring(_svg())
    circles = root.findall("{http://www.w3.org/2000/svg}circle")
    assert len(circles) == len(VALUES)
    reds = [c for c in circles if c.get("fill") == "#c03030"]
    assert len(reds) == 6  # the commits from the first bad one on


def test_history_svg_shows_at_most_context_points_each_side() -> None:
    values = [1.0] * 30 + [1.1] * 30
    series = series_of(values)
    (change,) = detect(series, 0.05, 0.01)
    root = ET.fromstring(history_svg(series, new_change(series, change)))
    assert len(root.findall("{http://www.w3.org/2000/svg}circle")) == 2 * CONTEXT
