"""The LLM layer's settings: one backend and model with its sampling, limits and prices.
Not a section of its own: ``synth`` (the whole section), ``augment.llm`` and
``evaluate.judge`` are built on :class:`LLMParams`, and the LLM layer is handed them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from diagramforge.params import Section

LLMBackend = Literal["offline", "openai", "gemini"]


DEFAULT_KEY_ENV: dict[str, tuple[str, ...]] = {
    "offline": (),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}


class LLMParams(Section):
    """One backend and model with its sampling, limits and prices (USD per million tokens)."""

    backend: LLMBackend = "offline"
    model: str = "offline-template-v1"
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0
    max_tokens: Annotated[int, Field(ge=1)] = 1024
    seed: int | None = 1234
    base_url: str | None = None
    """An OpenAI- or Gemini-compatible endpoint; ``None`` means the vendor's default."""
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """Per HTTP request (connect + read); a timeout is retried like a 5xx."""
    max_retries: Annotated[int, Field(ge=0)] = 5
    """Retries after the first attempt, on 408/409/429/5xx and timeouts."""
    max_wait_s: Annotated[float, Field(ge=0)] = 60.0
    """Cap on one wait between retries, including a server's ``Retry-After``."""
    rpm: Annotated[int, Field(ge=0)] = 0
    """Requests per minute (a token bucket); 0 means unlimited."""
    tpm: Annotated[int, Field(ge=0)] = 0
    """Tokens per minute (estimated input + max output, settled to the reported usage);
    0 means unlimited."""
    concurrency: Annotated[int, Field(ge=1)] = 1
    """Calls in flight at once in ``LLM.complete_many`` (threads; the limits still hold)."""
    price_in_per_mtok: Annotated[float, Field(ge=0)] = 0.0
    price_out_per_mtok: Annotated[float, Field(ge=0)] = 0.0
    budget_usd: Annotated[float, Field(ge=0)] | None = None
    """Stop calling once the next call's worst-case cost would exceed this; ``None``: no cap."""
    batch: bool = False
    """``complete_many`` goes through the vendor's batch API where the backend has one
    (OpenAI): cheaper, asynchronous (up to 24 h)."""
    batch_price_factor: Annotated[float, Field(ge=0)] = 0.5
    """Batch API price relative to the synchronous one (OpenAI: half)."""
    batch_poll_s: Annotated[float, Field(gt=0)] = 30.0
    batch_timeout_s: Annotated[float, Field(gt=0)] = 26 * 3600.0
    """Give up (and cancel) a batch not finished after this long."""
    batch_max_requests: Annotated[int, Field(ge=1)] = 50_000
    """Requests per batch file (OpenAI's limit is 50,000 and 200 MB)."""
    cache_dir: str | None = "data/cache/content"
    """The shared content cache; ``None`` disables caching."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key; ``None``: the backend's defaults
    (``OPENAI_API_KEY``; ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY``)."""

    def key_envs(self) -> tuple[str, ...]:
        """The environment variables the backend reads its key from, first set one wins."""
        return (self.api_key_env,) if self.api_key_env else DEFAULT_KEY_ENV[self.backend]

    def cost(self, input_tokens: int, output_tokens: int, *, batch: bool = False) -> float:
        """Dollars for a call with these token counts at the configured prices."""
        usd = (input_tokens * self.price_in_per_mtok
               + output_tokens * self.price_out_per_mtok) / 1_000_000
        return usd * self.batch_price_factor if batch else usd
