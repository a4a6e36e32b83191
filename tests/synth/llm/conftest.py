"""Shared pieces: a schema, a request, a fake key in the environment, a sleep recorder."""

from __future__ import annotations

import pytest

from diagramforge.synth.llm.types import Request

SECRET = "sk-loopback-S3CR3T-0123456789abcdefXYZW"

SCHEMA = {
    "type": "object",
    "properties": {
        "caption": {"type": "string", "minLength": 3},
        "kind": {"type": "string", "enum": ["flowchart", "sequence"]},
        "nodes": {"type": "integer", "minimum": 1},
    },
    "required": ["caption", "kind", "nodes"],
    "additionalProperties": False,
}

GOOD = '{"caption": "A login flow", "kind": "flowchart", "nodes": 4}'


def make_request(user: str = "Nodes: Start, Enter password, Valid?, Home", **kw) -> Request:
    kw.setdefault("json_schema", SCHEMA)
    return Request(task="captioning", system="Caption the diagram.", user=user, **kw)


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    return SECRET


class Sleeps(list):
    """An injectable ``sleep`` that records instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()
