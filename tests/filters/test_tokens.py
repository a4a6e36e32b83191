import hashlib
from pathlib import Path

from diagramforge.filters.base import build
from diagramforge.filters.tokens import get_encoding, seed_tiktoken_cache
from tests.conftest import make_params


def test_cl100k_works_offline_with_the_real_tiktoken(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tk"))
    cache = seed_tiktoken_cache("cl100k_base")
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    assert (Path(cache) / hashlib.sha1(url.encode()).hexdigest()).exists()
    enc = get_encoding("cl100k_base")
    assert enc.encode("hello world") == [15339, 1917]  # cl100k ids, not a stand-in


def test_token_filter_bounds(tmp_path):
    check = build("tokens", make_params(tmp_path, filter={"tokens": {"min": 5, "max": 20}}))
    short = check({"code": "a b"})
    assert not short.keep and short.reason == "too_few_tokens" and short.metrics["tokens"] == 2
    ok = check({"code": r"\draw (0,0) -- (1,1);"})
    assert ok.keep and ok.metrics["tokens"] == 13
    long = check({"code": r"\draw " * 50})
    assert not long.keep and long.reason == "too_many_tokens"
