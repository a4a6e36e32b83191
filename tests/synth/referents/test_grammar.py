"""Descriptions are written and read back as the same query; the parser takes the synonyms
a rewording uses and finds descriptions inside whole instructions."""

from __future__ import annotations

import pytest

from diagramforge.synth.referents.grammar import (
    Line,
    Query,
    Rank,
    maximal,
    parse,
    phrases,
    render,
    without_text,
)

LOAD, ARTIST = Query(label="Load"), Query(label="Artist:")
QUERIES = [
    Query(noun="box", label="Load"),
    Query(noun="diamond", colour="red"),
    Query(noun="box", empty=True, colour="light blue"),
    Query(noun="box", empty=True, inside=Query(label="Pool A")),
    Query(noun="box", empty=True, near=("below", ARTIST)),
    Query(noun="circle", near=("left of", LOAD), noun_word="oval"),
    Query(noun="diamond", rank=Rank("x", 1)),
    Query(noun="box", rank=Rank("x", 3), line=Line("row", 1)),
    Query(noun="box", rank=Rank("y", 2, True), line=Line("column", 2, True)),
    Query(noun="box", rank=Rank("x", 1, True), line=Line("row", 0)),
    Query(noun="box", label="The quick brown", prefix=True),
    Query(kind="edge", arrow=True, ends=(LOAD, Query(label="Clean"))),
    Query(kind="edge", between=True, ends=(Query(noun="box", empty=True,
                                                 near=("right of", LOAD)), ARTIST)),
    Query(kind="edge", arrow=True, label="yes"),
    Query(kind="edge", arrow=True, ends=(Query(noun="box", rank=Rank("x", 2),
                                               line=Line("row", 1)), LOAD), label="no"),
    LOAD,
]


@pytest.mark.parametrize("q", QUERIES, ids=render)
def test_render_then_parse_is_the_same_query(q):
    assert without_text(parse(render(q))) == without_text(q)


def test_examples_read_as_written():
    assert render(QUERIES[7]) == "the third box from the left in the top row"
    assert render(QUERIES[8]) == ("the second box from the bottom in the second column "
                                  "from the right")
    assert render(QUERIES[4]) == 'the empty box below "Artist:"'
    assert render(QUERIES[11]) == 'the arrow from "Load" to "Clean"'


@pytest.mark.parametrize(("text", "want"), [
    ("the unlabeled rectangle labeled “Load”", Query(noun="box", empty=True, label="Load")),
    ("the pale gray square", Query(noun="box", colour="light grey")),
    ("the connection from 'Load' to 'Clean'",
     Query(kind="edge", ends=(LOAD, Query(label="Clean")))),
    ("the node directly beneath \"Artist:\"", Query(near=("below", ARTIST))),
    ("the last box in the bottom row", Query(noun="box", rank=Rank("x", 1, True),
                                             line=Line("row", 1, True))),
    ('the element with the label "Load"', Query(label="Load")),
])
def test_synonyms_parse(text, want):
    assert parse(text) == want


@pytest.mark.parametrize("text", ["the shape of the box", "the diagram", "a box", "the",
                                  'the box "Load" and more'])
def test_what_is_not_one_description(text):
    assert parse(text) is None


def test_descriptions_inside_an_instruction():
    text = ('Change the text of the empty box below "Artist:" to "Cache"; then make the arrow '
            'from the box to the left of "X" to "Y" dashed.')
    found = [text[p.start:p.end] for p in maximal(phrases(text))]
    assert found == ['the empty box below "Artist:"', '"Cache"',
                     'the arrow from the box to the left of "X" to "Y"']
