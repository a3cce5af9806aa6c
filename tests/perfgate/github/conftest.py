"""Fixtures: the OpenAPI descriptions and a fake GitHub API server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gh_env import TOKEN, MakeServer
from gh_fake_api import FakeGitHub, FakeServer
from gh_openapi import OpenApi


@pytest.fixture(scope="session")
def dotcom_spec() -> OpenApi:
    """api.github.com description (npm @octokit/openapi, installed on first use)."""
    return OpenApi.load("api.github.com")


@pytest.fixture(scope="session")
def ghes_spec() -> OpenApi:
    """GitHub Enterprise Server 3.19 description."""
    return OpenApi.load("ghes-3.19")


@pytest.fixture
def make_server(dotcom_spec: OpenApi) -> Iterator[MakeServer]:
    """Factory for running fake servers; fails the test if any saw a spec violation."""
    running: list[FakeServer] = []

    def make(spec: OpenApi | None = None, prefix: str = "") -> FakeServer:
        server = FakeServer(FakeGitHub(spec or dotcom_spec, TOKEN, prefix)).__enter__()
        running.append(server)
        return server

    yield make
    for server in running:
        server.__exit__(None, None, None)
    violations = [v for s in running for v in s.fake.violations]
    assert violations == [], "requests or responses outside GitHub's OpenAPI description"


@pytest.fixture
def server(make_server: MakeServer) -> FakeServer:
    """A fake api.github.com."""
    return make_server()
