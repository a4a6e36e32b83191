"""Batch documents: which blocks stay global, and in what order."""

from __future__ import annotations

from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texbatch import batch_key, compose, global_flags

OPS = [r"\usepackage{amsmath}", r"\usepackage{tikz}", r"\let\Re\relax",
       r"\DeclareMathOperator{\Re}{Re}", r"\newcommand{\cc}{\mathbb{C}}",
       r"\let\Im\relax", r"\DeclareMathOperator{\Im}{Im}"]


def test_a_block_a_later_global_block_depends_on_is_global_in_its_place():
    assert global_flags(OPS) == [True, True, True, True, False, True, True]
    doc = Standalone(OPS, r"\begin{tikzpicture}\node{$\Re z$};\end{tikzpicture}")
    text = compose([doc], None)
    pre = text[:text.index(r"\begin{document}")]
    assert pre.index(r"\let\Re\relax") < pre.index(r"\DeclareMathOperator{\Re}")
    assert pre.index(r"\let\Im\relax") < pre.index(r"\DeclareMathOperator{\Im}")
    # the page keeps only what is its own
    page = text[text.index(r"\begin{dfpage}"):]
    assert r"\newcommand{\cc}" in page and r"\let" not in page


def test_a_definition_nothing_global_needs_stays_in_its_page():
    blocks = [r"\usepackage{tikz}", r"\def\Re{R}", r"\tikzset{x/.style={red}}"]
    assert global_flags(blocks) == [True, False, False]
    # so documents that differ only there still share a run
    a = Standalone(blocks, "a")
    b = Standalone([r"\usepackage{tikz}", r"\def\Re{S}"], "b")
    assert batch_key(a) == batch_key(b)
    assert batch_key(Standalone(OPS, "c")) != batch_key(a)


def test_a_whole_document_is_compiled_as_written_and_shares_no_run():
    doc = Standalone([], "", document="\\documentclass{article}\\begin{document}x\\end{document}")
    assert compose([doc], None) == doc.document
    twin = Standalone([], "", document=doc.document + "%")
    assert batch_key(doc) != batch_key(twin) != batch_key(Standalone([], "x"))
