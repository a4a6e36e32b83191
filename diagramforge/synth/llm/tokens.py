"""Token estimates with tiktoken cl100k (offline, via ``diagramforge.tokenizer``).

Used for the budget check, ``dry_run`` and the tpm limiter before a call, and as the usage of
backends that report none.  Gemini tokenizes differently; an estimate is all that is needed.
"""

from __future__ import annotations

from functools import lru_cache

from diagramforge.synth.llm.types import Message
from diagramforge.tokenizer import get_encoding

PER_MESSAGE = 4  # chat-format overhead per message, as OpenAI counts it
PER_REPLY = 2


@lru_cache(maxsize=1)
def _encoding():  # noqa: ANN202 - tiktoken.Encoding
    return get_encoding("cl100k_base")


def text_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def count_tokens(messages: list[Message]) -> int:
    """Estimated prompt tokens of a chat."""
    return sum(text_tokens(m["content"]) + PER_MESSAGE for m in messages) + PER_REPLY
