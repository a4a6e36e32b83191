"""The scene model: nouns a person would write, the unit of every tolerance, finding an
edit's edge, labels as they read on one line."""

from __future__ import annotations

import pytest

from diagramforge.formats.scenes import (
    GENERIC_NODE,
    NOUNS,
    WORD_CLASS,
    Element,
    Scene,
    edge_key,
    noun_word,
    one_line,
)
from diagramforge.graphs.model import Edge, Graph, Node


@pytest.mark.parametrize(("cls", "box", "word"), [
    ("circle", (0, 0, 40, 40), "circle"), ("circle", (0, 0, 40, 48), "circle"),
    ("circle", (0, 0, 120, 40), "oval"), ("circle", None, "circle"),
    ("box", (0, 0, 10, 80), "box"), ("cylinder", None, "cylinder"),
    ("shape", None, GENERIC_NODE[0]),
])
def test_noun_word_is_what_a_person_writes(cls, box, word):
    assert noun_word(cls, box) == word


def test_every_noun_maps_back_to_its_class_once():
    words = [w for ws in NOUNS.values() for w in ws]
    assert len(words) == len(set(words))  # a word naming two classes could never resolve
    assert all(WORD_CLASS[ws[0]] == k for k, ws in NOUNS.items())
    assert not set(GENERIC_NODE) & set(words)


def test_median_size_is_the_typical_smaller_side_and_ignores_unknown_boxes():
    sc = Scene(nodes={
        "a": Element("a", "node", bbox=(0, 0, 100, 20)),
        "b": Element("b", "node", bbox=(0, 0, 30, 300)),
        "c": Element("c", "node", bbox=(0, 0, 50, 60)),
        "d": Element("d", "node"),  # a TikZ node placed relative to another: no box
        "z": Element("z", "node", bbox=(0, 0, 0, 80)),  # a line: no size
    })
    assert sc.median_size() == 30
    assert Scene().median_size() == 1.0
    assert sc.element("a") is sc.nodes["a"] and sc.element("nope") is None
    assert sc.nodes["c"].centre == (25, 30) and sc.nodes["d"].centre is None


def test_edge_key_finds_the_graph_edge_by_ends_and_label():
    g = Graph(nodes=[Node(id="a"), Node(id="b")],
              edges=[Edge(source="a", target="b", label="yes"),
                     Edge(source="b", target="a"),
                     Edge(source="a", target="b", label="no")])
    assert edge_key(g, "a", "b") == "e0"
    assert edge_key(g, "a", "b", "no") == "e2"
    assert edge_key(g, "b", "a") == "e1"
    assert edge_key(g, "a", "a") is None


def test_one_line():
    assert one_line("Load\n  the   data\t") == "Load the data"
