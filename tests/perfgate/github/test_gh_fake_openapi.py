"""The fake API really enforces GitHub's OpenAPI description (so the poster tests can fail)."""

from __future__ import annotations

import pytest
import requests
from gh_env import TOKEN
from gh_fake_api import FakeServer
from gh_openapi import OpenApi

pytestmark = [pytest.mark.network, pytest.mark.subprocess]

AUTH = {"Authorization": f"token {TOKEN}"}


def _send(server: FakeServer, method: str, path: str, body: object = None) -> int:
    url = server.api_url + path
    return requests.request(method, url, json=body, headers=AUTH, timeout=5).status_code


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [
        ("POST", "/repos/octo-org/bench-repo/statuses/abc", {"state": "great"}, "not in"),
        (
            "POST",
            "/repos/octo-org/bench-repo/statuses/abc",
            {"context": "x"},
            "body.state: required",
        ),
        ("POST", "/repos/octo-org/bench-repo/issues/1/comments", {"body": 5}, "expected string"),
        (
            "POST",
            "/repos/octo-org/bench-repo/issues/x/comments",
            {"body": "hi"},
            "expected an integer",
        ),
        (
            "PUT",
            "/repos/octo-org/bench-repo/issues/1/comments",
            {"body": "hi"},
            "not in the OpenAPI",
        ),
        ("GET", "/repos/octo-org/bench-repo/no-such-thing", None, "not in the OpenAPI"),
        ("GET", "/repos/octo-org/bench-repo/issues/1/comments?colour=red", None, "unknown query"),
    ],
)
def test_fake_rejects_requests_outside_the_spec(
    server: FakeServer, method: str, path: str, body: object, expected: str
) -> None:
    assert _send(server, method, path, body) == 400
    (violation,) = server.fake.violations
    assert expected in violation
    server.fake.violations.clear()  # expected here; the fixture fails on any left over


def test_fake_requires_the_token(server: FakeServer) -> None:
    url = server.api_url + "/repos/octo-org/bench-repo/issues/1/comments"
    response = requests.get(url, headers={"Authorization": "token wrong"}, timeout=5)
    assert response.status_code == 401 and response.json()["message"] == "Bad credentials"


def test_response_check_and_generation(dotcom_spec: OpenApi) -> None:
    op = dotcom_spec.match("POST", "/repos/o/r/statuses/abc")
    assert op is not None and op.params == {"owner": "o", "repo": "r", "sha": "abc"}
    schema = dotcom_spec.response_schema(op, 201)
    good = dotcom_spec.generate(schema, "http://127.0.0.1:1")
    assert dotcom_spec.check(schema, good, "status") == []
    assert dotcom_spec.check(schema, {**good, "id": "seven"}, "status") == [
        "status.id: expected integer, got str"
    ]
    missing = {k: v for k, v in good.items() if k != "state"}
    assert dotcom_spec.check(schema, missing, "status") == ["status.state: required"]
    assert dotcom_spec.match("DELETE", "/repos/o/r/statuses/abc") is None
