"""A stand-in "model" behind the loopback OpenAI and Gemini servers.

It reads the prompt the synth stage sent (as a real model would) and words an answer
differently from the offline templates, so tests can show the stage yields the same tables
modulo wording through either vendor protocol. It never sees the request's ``context``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.synth.llm.loopback import Loopback, Reply, gemini_reply, openai_reply


def _between(text: str, start: str, end: str) -> list[str]:
    block = text.split(start, 1)[1].split(end, 1)[0]
    return [ln[2:].strip() for ln in block.splitlines() if ln.startswith("- ")]


def answer(user: str) -> dict[str, Any]:
    """The JSON answer a careful model would give to one synth prompt."""
    if "Question type:" in user:
        q = re.search(r"^Question: (.+)$", user, re.M).group(1)
        return {"question": "Could you tell me: " + q[0].lower() + q[1:]}
    if "Operations, in order:" in user:
        steps = re.findall(r"^\d+\. (.+)$", user, re.M)
        return {"instruction": "Edit the diagram as follows: " + ", and then ".join(steps)
                + "."}
    labels = [x for x in _between(user, "Element texts:", "Connections") if x != "(none)"]
    out = {"description": f'This figure has several parts; one of them reads "{labels[0]}", '
                          f"and they are linked as the connections list says."}
    if "Author's caption: (none)" in user:
        out["caption"] = f'An overview figure around "{labels[-1]}".'
    return out


def _user_openai(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def _user_gemini(body: dict[str, Any]) -> str:
    return body["contents"][0]["parts"][0]["text"]


class ModelServer(Loopback):
    """Answers every chat call with :func:`answer`; ``faults`` (a callable given the request
    number and the user text) may return a failing ``Reply`` instead."""

    def __init__(self, vendor: str, faults: Any = None) -> None:
        super().__init__(default=Reply())
        self.vendor, self.faults = vendor, faults
        self.outcomes: list[tuple[str, bool]] = []
        """(user text, answered correctly) per request, in arrival order."""

    def reply(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        body = json.loads(raw)
        user = _user_openai(body) if self.vendor == "openai" else _user_gemini(body)
        bad = self.faults(len(self.outcomes), user) if self.faults else None
        self.outcomes.append((user, bad is None))
        if bad is not None:
            return bad
        text = json.dumps(answer(user))
        return openai_reply(text, 120, 30) if self.vendor == "openai" else \
            gemini_reply(text, 120, 30)
