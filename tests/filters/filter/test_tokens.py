import hashlib
from pathlib import Path

from diagramforge.filters.filter.base import build
from diagramforge.tokenizer import get_encoding, seed_tiktoken_cache
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


def test_token_caps_are_per_format(tmp_path):
    """The pool's caps differ per format: an mxGraph page of VCG-Bench's hard tier stays
    while an SVG of the same size leaves, and a format without its own cap takes the
    default window."""
    check = build("tokens", make_params(tmp_path, filter={"tokens": {
        "min": 5, "max": 40, "formats": {"mxgraph": {"max": 200}, "svg": {"min": 10}}}}))
    code = " ".join(f"n{i}" for i in range(60))  # 60+ tokens
    n = check({"format": "mxgraph", "code": code}).metrics["tokens"]
    assert 40 < n <= 200
    assert check({"format": "mxgraph", "code": code}).keep
    big_svg = check({"format": "svg", "code": code})
    assert not big_svg.keep and big_svg.reason == "too_many_tokens" and "svg" in big_svg.detail
    assert not check({"format": "tikz", "code": code}).keep  # the default max (40)
    small = "a b c d e f g"  # 7 tokens: svg needs 10, tikz 5
    assert check({"format": "tikz", "code": small}).keep
    assert check({"format": "svg", "code": small}).reason == "too_few_tokens"


def test_default_caps_keep_vcg_bench_hard_tier():
    from diagramforge.config import parse_params

    tk = parse_params({}).filter.tokens
    assert tk.window("mxgraph")[1] >= 32_000 > 14_000
    assert tk.window("svg")[1] >= 8000 and tk.window("tikz")[1] >= 8000
