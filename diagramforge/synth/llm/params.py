"""Parameters of the LLM layer: backend, model, sampling, limits, prices and budget.

Every number that changes what a call returns or costs is a param, so the cache key and the
cost metrics follow from params alone.  The API key is *not* a param: only the *name* of the
environment variable that holds it is, so a key can never reach ``params.yaml``, a DVC lock
file, a record or a cache key.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Backend = Literal["offline", "openai", "gemini"]

DEFAULT_KEY_ENV: dict[str, str | None] = {
    "offline": None,
    "openai": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}


class LLMParams(BaseModel):
    """One backend and model with its sampling, limits and prices (USD per million tokens)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Backend = "offline"
    model: str = "offline-template-v1"
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0
    max_tokens: Annotated[int, Field(ge=1)] = 1024
    seed: int | None = 1234
    base_url: str | None = None
    """An OpenAI- or Gemini-compatible endpoint; ``None`` means the vendor's default."""
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    max_retries: Annotated[int, Field(ge=0)] = 5
    rpm: Annotated[int, Field(ge=0)] = 0
    """Requests per minute; 0 means unlimited."""
    tpm: Annotated[int, Field(ge=0)] = 0
    """Tokens (estimated input + max output) per minute; 0 means unlimited."""
    price_in_per_mtok: Annotated[float, Field(ge=0)] = 0.0
    price_out_per_mtok: Annotated[float, Field(ge=0)] = 0.0
    budget_usd: Annotated[float, Field(ge=0)] | None = None
    """Stop calling once the next call's worst-case cost would exceed this; ``None``: no cap."""
    cache_dir: str | None = "data/cache/content"
    """The shared content cache; ``None`` disables caching."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key; ``None``: the backend's default."""

    def key_env(self) -> str | None:
        """The environment variable the backend reads its key from."""
        return self.api_key_env or DEFAULT_KEY_ENV[self.backend]

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """Dollars for a call with these token counts at the configured prices."""
        return (input_tokens * self.price_in_per_mtok
                + output_tokens * self.price_out_per_mtok) / 1_000_000
