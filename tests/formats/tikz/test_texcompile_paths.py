"""A relative cache dir (as params.yaml has) must still give the precompiled fast path."""

import os

from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texcompile import TexCompiler
from tests.conftest import needs_tex


@needs_tex
def test_relative_cache_dir_keeps_the_format_path(tmp_path):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        tex = TexCompiler(timeout_s=10, cache_dir="data/cache/tex")
        docs = [Standalone([r"\usepackage{tikz}"],
                           rf"\begin{{tikzpicture}}\draw (0,0) circle ({k});\end{{tikzpicture}}")
                for k in (1, 2)]
        res = tex.compile_many(docs)
    finally:
        os.chdir(cwd)
    assert [r.mode for r in res] == ["format/batch", "format/batch"]
