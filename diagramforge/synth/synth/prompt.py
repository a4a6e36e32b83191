"""Prompt templates as versioned files in the package (``synth/synth/prompts/<task>.yaml``).

A prompt file holds its ``version``, the ``system`` and ``user`` messages (``str.format``
templates over the item's facts) and the ``offline`` wordings the offline backend fills the
answer schema from. Every item records ``prompt_version`` — the declared version plus a
digest of the file — so a changed prompt is visible in the data even if nobody bumped the
number, and (being in the messages) it is a new cache key: nothing stale is reused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml


@dataclass(frozen=True)
class Prompt:
    task: str
    version: str
    system: str
    user: str
    offline: dict[str, str | list[str]]

    def render(self, **facts: Any) -> str:
        """The user message for one item."""
        return self.user.format_map(facts).strip()


@cache
def load_prompt(task: str) -> Prompt:
    """The packaged prompt of ``task`` (``captioning``, ``qa``, ``editing``)."""
    raw = resources.files("diagramforge.synth.synth.prompts").joinpath(f"{task}.yaml").read_bytes()
    data = yaml.safe_load(raw)
    digest = hashlib.sha256(raw).hexdigest()[:8]
    return Prompt(task=task, version=f"{task}-v{data['version']}+{digest}",
                  system=data["system"].strip(), user=data["user"],
                  offline=dict(data.get("offline") or {}))


def bullet(lines: list[str], empty: str = "(none)") -> str:
    """A list as prompt lines (``- a``), or ``empty``."""
    return "\n".join(f"- {x}" for x in lines) if lines else empty
