"""Token count of the diagram code with tiktoken (cl100k_base by default), offline
(the tokenizer: ``diagramforge/tokenizer.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field, model_validator

from diagramforge.filters.filter.base import FilterFn, FilterSection, Verdict, register
from diagramforge.formats import capabilities
from diagramforge.selection import TokenWindow
from diagramforge.tokenizer import get_encoding

if TYPE_CHECKING:
    from diagramforge.filters.filter.base import FilterSettings


def default_windows() -> dict[str, TokenWindow]:
    """Each format's own window (``TOKENS`` of its ``caps`` capability,
    ``formats/<name>/caps.py``); a format without one has the filter's ``min``/``max``."""
    return {fmt: TokenWindow(**m.TOKENS) for fmt, m in capabilities.every("caps").items()
            if hasattr(m, "TOKENS")}


class TokenFilterParams(FilterSection):
    """The pool's token caps: generous, per format, so every renderable diagram of real size
    stays (VCG-Bench's hard mxGraph tier starts above 14,000 tokens). The narrower windows
    of particular tasks (VectorGym's SVG tasks: 2,000–8,000) select rows per config
    (``select``), they do not shrink the pool."""

    encoding: str = "cl100k_base"
    min: Annotated[int, Field(ge=0)] = 20
    """Default window for a format not in ``formats``."""
    max: Annotated[int, Field(ge=1)] = 32768
    formats: dict[str, TokenWindow] = Field(default_factory=default_windows)
    """Per format ``{min, max}``; an unset bound falls back to ``min`` / ``max``; the
    defaults are the formats' own (:func:`default_windows`)."""

    @model_validator(mode="after")
    def _ordered(self) -> TokenFilterParams:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        for fmt in self.formats:
            lo, hi = self.window(fmt)
            if lo > hi:
                raise ValueError(f"formats.{fmt}: min ({lo}) must not exceed max ({hi})")
        return self

    def window(self, fmt: str) -> tuple[int, int]:
        """``(min, max)`` cl100k tokens a diagram of format ``fmt`` must have."""
        w = self.formats.get(fmt)
        lo = w.min if w is not None and w.min is not None else self.min
        hi = w.max if w is not None and w.max is not None else self.max
        return lo, hi


@register("tokens", params=TokenFilterParams, writes=("tokens",))
def make_token_filter(cfg: TokenFilterParams, params: FilterSettings) -> FilterFn:
    """Keep code within its format's window; the count becomes the ``tokens`` column."""
    enc = get_encoding(cfg.encoding)

    def check(record: dict) -> Verdict:
        n = len(enc.encode(record.get("code") or "", disallowed_special=()))
        lo, hi = cfg.window(str(record.get("format")))
        if n < lo:
            return Verdict.reject("too_few_tokens", f"{n} < {lo}", tokens=n)
        if n > hi:
            return Verdict.reject("too_many_tokens", f"{n} > {hi} ({record.get('format')})",
                                  tokens=n)
        return Verdict.ok(tokens=n)

    return check
