"""API keys: read only from the environment, and scrubbed from anything that leaves a backend.

A key is held by the backend object alone (never by params, requests, outcomes or cache
entries), and every error text that crosses the layer boundary goes through ``scrub`` first,
because vendor errors sometimes echo (part of) the key back.
"""

from __future__ import annotations

import os
import re

from diagramforge.synth.llm.settings import LLMParams
from diagramforge.synth.llm.types import LLMCallError

REDACTED = "***"
_KEYISH = re.compile(r"\b(sk-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,})")


def read_key(params: LLMParams) -> str:
    """The key from the first set variable of ``params.key_envs()``; none set is an error
    that names the variables (never a value)."""
    names = params.key_envs()
    if not names:
        return ""
    for env in names:
        key = os.environ.get(env, "")
        if key:
            return key
    raise LLMCallError(f"{params.backend}: environment variable {' or '.join(names)} "
                       f"is not set")


def scrub(text: str, *secrets: str) -> str:
    """``text`` with every given secret, and anything shaped like a vendor key, redacted."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
            if len(secret) > 8:  # vendors echo masked keys like "sk-abc...wxyz"
                text = text.replace(secret[-4:], REDACTED)
    return _KEYISH.sub(REDACTED, text)
