"""Markdown-safe text (pure): the one escaping every value of a report passes through,
and the redactor's view of what a secret looks like once rendered."""

from __future__ import annotations

import re


class Raw(str):
    """Text already made safe for markdown (e.g. a fenced code block); not escaped again."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


def md_escape(value: object) -> str:
    """Escape *value* for a markdown table cell or inline text.

    Newlines become spaces (a newline ends a table row), ``& < >`` become entities (no raw
    HTML such as ``<script>``), markdown punctuation (``| ` * _ [ ] # \\``) gets a backslash
    (``|`` would split a cell, backticks open code spans, brackets make links) and ``@`` a
    word joiner (no mentions).
    """
    if isinstance(value, Raw):
        return str(value)
    if value is None:
        return ""
    text = re.sub(r"[\r\n\t\x0b\x0c]+", " ", str(value))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # "@" + word joiner: GitHub shows "@name" but does not notify anyone (a parameter, a
    # note or a pytest line such as "@njit" must never ping a user or a team)
    text = text.replace("@", "@\u2060")
    return _MD_SPECIAL.sub(r"\\\1", text)
