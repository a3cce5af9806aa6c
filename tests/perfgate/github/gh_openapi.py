"""GitHub's official OpenAPI description (npm ``@octokit/openapi``): lookup and checks.

Used by the fake API server: every request must name a path + method of the description,
carry the required body fields with the right JSON types, and every response the fake sends
must fit the response schema (types, required keys, recursively to a few levels). Responses
are generated from the schema itself, so github3.py gets every field it reads.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
REPO_ROOT = Path(__file__).resolve().parents[3]
# PERFGATE_TOOLS_CACHE: the gate's parity run in a fresh export reuses the checkout's install
CACHE = Path(os.environ.get("PERFGATE_TOOLS_CACHE") or REPO_ROOT / ".cache") / "octokit"
GENERATED = CACHE / "node_modules" / "@octokit" / "openapi" / "generated"

_DATE = "2024-01-01T00:00:00Z"
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def ensure_package() -> Path:
    """Install the pinned ``@octokit/openapi`` under ``.cache/octokit`` unless present."""
    manifest = GENERATED.parent / "package.json"
    if manifest.exists() and json.loads(manifest.read_text())["version"] == VERSION:
        return GENERATED
    CACHE.mkdir(parents=True, exist_ok=True)
    cmd = ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(CACHE)]
    subprocess.run([*cmd, f"{PACKAGE}@{VERSION}"], check=True, capture_output=True, timeout=600)
    return GENERATED


@dataclass(frozen=True)
class Operation:
    """One matched operation: its path template, method, description and path parameters."""

    template: str
    method: str
    spec: dict[str, Any]
    params: dict[str, str]


class OpenApi:
    """One OpenAPI document with ``$ref`` resolution, matching, validation and generation."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document
        self._routes = [
            (re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(t)) + "$"), t)
            for t in document["paths"]
        ]

    @classmethod
    def load(cls, name: str) -> OpenApi:
        """Load ``generated/<name>.json`` (e.g. ``api.github.com``, ``ghes-3.19``)."""
        return cls(json.loads((ensure_package() / f"{name}.json").read_text()))

    def resolve(self, node: Any) -> Any:
        """Follow ``$ref`` pointers (``#/components/...``) until a concrete node."""
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.doc
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = target
        return node

    def match(self, method: str, path: str) -> Operation | None:
        """The operation for ``method`` + ``path`` (path without the API prefix), or None."""
        for pattern, template in self._routes:
            found = pattern.match(path)
            if found and method.lower() in self.doc["paths"][template]:
                spec = self.doc["paths"][template][method.lower()]
                return Operation(template, method.upper(), spec, found.groupdict())
        return None

    def check_params(self, op: Operation, query: dict[str, str]) -> list[str]:
        """Path parameter types and known query parameter names."""
        problems = []
        params = [self.resolve(p) for p in op.spec.get("parameters", [])]
        for p in params:
            if p["in"] == "path" and p.get("schema", {}).get("type") == "integer":
                if not op.params.get(p["name"], "").isdigit():
                    problems.append(f"path parameter {p['name']}: expected an integer")
        known = {p["name"] for p in params if p["in"] == "query"}
        problems += [f"unknown query parameter {q!r}" for q in query if q not in known]
        return problems

    def check_body(self, op: Operation, body: Any) -> list[str]:
        """Request body against the operation's JSON schema."""
        request = self.resolve(op.spec.get("requestBody"))
        if request is None:
            return [] if body is None else ["operation takes no request body"]
        if body is None:
            return ["request body missing"] if request.get("required") else []
        schema = request["content"]["application/json"]["schema"]
        return self.check(schema, body, "body", depth=4)

    def response_schema(self, op: Operation, status: int) -> Any:
        """The JSON schema of response ``status`` (None when it has no JSON body)."""
        response = self.resolve(op.spec["responses"].get(str(status)))
        if response is None:
            raise KeyError(f"{op.method} {op.template}: no {status} response in the spec")
        return response.get("content", {}).get("application/json", {}).get("schema")

    def check(self, schema: Any, value: Any, where: str, depth: int = 3) -> list[str]:
        """Loose JSON-schema check: types, enums, required keys, nested to ``depth``."""
        schema = self.resolve(schema)
        if value is None:
            return [] if schema.get("nullable") or not schema else [f"{where}: null"]
        for key in ("oneOf", "anyOf"):
            if key in schema:
                options = [self.check(s, value, where, depth) for s in schema[key]]
                return [] if any(not o for o in options) else options[0]
        if "allOf" in schema:
            return [p for s in schema["allOf"] for p in self.check(s, value, where, depth)]
        kind = schema.get("type")
        if kind in _JSON_TYPES:
            ok = isinstance(value, _JSON_TYPES[kind])
            if not ok or (kind in ("integer", "number") and isinstance(value, bool)):
                return [f"{where}: expected {kind}, got {type(value).__name__}"]
        if "enum" in schema and value not in schema["enum"]:
            return [f"{where}: {value!r} not in {schema['enum']}"]
        if depth <= 0:
            return []
        if isinstance(value, dict):
            problems = [
                f"{where}.{k}: required" for k in schema.get("required", []) if k not in value
            ]
            props = schema.get("properties", {})
            for key, item in value.items():
                if key in props:
                    problems += self.check(props[key], item, f"{where}.{key}", depth - 1)
                elif schema.get("additionalProperties") is False:
                    problems.append(f"{where}.{key}: not allowed")
            return problems
        if isinstance(value, list) and "items" in schema:
            return [
                p
                for i, v in enumerate(value)
                for p in self.check(schema["items"], v, f"{where}[{i}]", depth - 1)
            ]
        return []

    def generate(self, schema: Any, base: str, depth: int = 4) -> Any:
        """A value with every property of ``schema`` filled (nullable ones null when deep)."""
        schema = self.resolve(schema)
        if not schema:
            return None
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self.generate(schema[key][0], base, depth)
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                merged.update(self.generate(part, base, depth) or {})
            return merged
        if schema.get("nullable") and depth <= 1:
            return None
        if "enum" in schema:
            return schema["enum"][0]
        kind = schema.get("type", "object")
        if kind == "object":
            props = schema.get("properties", {})
            if depth <= 0:
                props = {k: props[k] for k in schema.get("required", []) if k in props}
            out = {k: self.generate(v, base, depth - 1) for k, v in props.items()}
            # some timestamps are plain strings in the description; github3 parses them
            return {k: _DATE if k.endswith("_at") and v == "x" else v for k, v in out.items()}
        if kind == "array":
            return []
        return _scalar(kind, schema.get("format"), base)


def _scalar(kind: str, fmt: str | None, base: str) -> Any:
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return False
    if fmt == "date-time":
        return _DATE
    if fmt in ("uri", "uri-template"):
        return f"{base}/placeholder"
    if fmt == "email":
        return "octocat@example.com"
    return "x"
