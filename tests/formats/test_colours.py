"""Colour names a person would use, and honesty about colours between two names."""

from __future__ import annotations

import pytest

from diagramforge.formats.colours import UNKNOWN, colour_word, parse, shade_of


@pytest.mark.parametrize(("spec", "name"), [
    ("#dae8fc", "light blue"), ("#d5e8d4", "light green"), ("#f8cecc", "light red"),
    ("#fff2cc", "light yellow"), ("#e1d5e7", "light purple"), ("#ffe6cc", "light orange"),
    ("#6c8ebf", "blue"), ("#82b366", "green"), ("#FF0000", "red"), ("#000", "black"),
    ("white", "white"), ("steelblue", "blue"), ("rgb(255, 255, 0)", "yellow"),
    ("red!20", "light red"), ("green!25", "light green"), ("blue!20", "light blue"),
])
def test_named_as_a_person_would(spec, name):
    assert shade_of(spec, tex="!" in spec).name == name


def test_colours_between_families_are_not_named_but_match_either():
    s = shade_of("#e6d0de")  # between light pink and light purple
    assert s.family is None and s.name is None
    assert s.matches("pink") and s.matches("light purple") and not s.matches("green")


def test_none_unknown_and_xcolor_names():
    assert shade_of("none") is None and shade_of("transparent") is None
    assert shade_of("mystery") is UNKNOWN and UNKNOWN.matches("red")
    # xcolor's violet is #800080, CSS's is #ee82ee
    assert parse("violet", tex=True) == pytest.approx((0.5, 0, 0.5))
    assert parse("violet") == pytest.approx((238 / 255, 130 / 255, 238 / 255))
    assert parse("red!50!black", tex=True) == pytest.approx((0.5, 0, 0))


def test_words_and_their_matches():
    assert colour_word("Pale  Gray") == "light grey" and colour_word("navy") == "blue"
    assert colour_word("box") is None
    light_red = shade_of("#f8cecc")
    assert light_red.matches("red") and light_red.matches("light red")
    assert not light_red.matches("dark red") and not light_red.matches("blue")
