import contextlib
import multiprocessing as mp

from diagramforge.store import atomic
from diagramforge.store.cache import ContentCache, content_key


def test_content_key_separates_types_and_order():
    assert content_key("a", "b") != content_key("ab")
    assert content_key(b"a") != content_key("a")
    assert content_key({"x": 1, "y": 2}) == content_key({"y": 2, "x": 1})


def _put(args):
    directory, i = args
    ContentCache(directory, "t").put(f"k{i}", {"i": i})
    return i


def test_cache_is_shared_across_processes_and_namespaced(tmp_path):
    with mp.get_context("spawn").Pool(2) as pool:
        pool.map(_put, [(str(tmp_path), i) for i in range(8)])
    c = ContentCache(tmp_path, "t")
    assert [c.get(f"k{i}")["i"] for i in range(8)] == list(range(8))
    other = ContentCache(tmp_path, "other")
    assert other.get("k1") is None
    calls = []
    value, cached = other.get_or_compute("x", lambda: calls.append(1) or "v",
                                         keep=lambda v: v != "v")
    assert (value, cached) == ("v", False)
    assert other.get_or_compute("x", lambda: "w") == ("w", False)  # "v" was not kept
    assert other.get_or_compute("x", lambda: "z") == ("w", True)
    assert c.clear() == 8 and other.get("x") == "w"


def test_no_directory_means_no_cache():
    c = ContentCache(None, "t")
    c.put("k", 1)
    assert c.get("k") is None and "k" not in c


def test_atomic_write_leaves_no_temp_on_failure(tmp_path):
    target = tmp_path / "sub" / "f.json"
    atomic.write_json(target, {"b": 1, "a": 2})
    assert target.read_text() == '{\n  "a": 2,\n  "b": 1\n}\n'

    def boom(tmp):
        tmp.write_text("half")
        raise RuntimeError("killed")

    with contextlib.suppress(RuntimeError):
        atomic.write_with(target, boom)
    assert target.read_text().startswith("{")
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.json"]
