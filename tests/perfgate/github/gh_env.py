"""Shared constants and helpers of the GitHub poster tests (no fixtures)."""

from __future__ import annotations

from collections.abc import Callable

from gh_fake_api import OWNER, REPO, FakeServer

TOKEN = "ghs_FAKEtoken0123456789abcdefXYZ"
MakeServer = Callable[..., FakeServer]


def actions_env(server: FakeServer, **extra: str) -> dict[str, str]:
    """GitHub Actions-style environment pointing at ``server``."""
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": f"{OWNER}/{REPO}",
        "GITHUB_API_URL": server.api_url,
        "GITHUB_SHA": "6dcb09b5b57875f334f61aebed695e2e4193db5e",
    }
    env.update(extra)
    return env
