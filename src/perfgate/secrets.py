"""Keeping secrets out of child processes and out of every text perfgate shows or posts.

The gate runs third-party code (the parity command, asv, the benchmarks of a pull request);
none of it needs a GitHub token, and whatever it prints may end up in a report that is
posted publicly. So :func:`without_secrets` drops secret-looking variables from a child's
environment, :func:`redact` replaces their values in any text that came back, and
:func:`redact_url` removes credentials from git remote URLs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

REDACTED = "***"
#: ``user:token@`` in a URL (a git remote with credentials).
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")

#: Variable names that hold credentials (GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, AWS_SECRET_...).
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|API_?KEY|PRIVATE_?KEY", re.I)
#: Values shorter than this are not treated as secrets when redacting ("0", "true" would
#: otherwise be starred out of every line); real tokens are far longer.
MIN_SECRET_LENGTH = 8


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def redact_env(text: str, env: Mapping[str, str]) -> str:
    """``text`` with the values of ``env``'s secrets replaced by ``***``."""
    return redact(text, secret_values(env))


def secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """The values of ``env``'s secret-named variables worth redacting, longest first."""
    values = {
        value
        for name, value in env.items()
        if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
    }
    return tuple(sorted(values, key=len, reverse=True))


def without_secrets(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` minus its secret-named variables (for child processes)."""
    return {name: value for name, value in env.items() if not SECRET_NAME.search(name)}


def redact_url(text: str) -> str:
    """``text`` without ``user:token@`` in URLs, so remotes with credentials never reach a log."""
    return _URL_CREDENTIALS.sub(REDACTED + "@", text)
