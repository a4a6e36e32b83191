"""The vocabulary: ACL-Fig's 19 categories, finer kinds under them, stable names."""

from __future__ import annotations

import pytest

from diagramforge.vocabulary import (
    ACL_FIG,
    ACL_FIG_NAMES,
    EXTENSIONS,
    LABELS,
    POOL_REJECT,
    Family,
    acl_fig,
    expand,
    family,
    kind,
)


def test_acl_fig_has_nineteen_categories_in_snake_case() -> None:
    assert len(ACL_FIG) == 19 == len(set(ACL_FIG_NAMES.values()))
    assert all(lab == lab.lower() and " " not in lab for lab in LABELS)
    assert {"tree", "graph", "architecture_diagram", "neural_network", "venn_diagram"} \
        <= set(ACL_FIG)  # SKETikZ's sketch kinds


def test_every_extension_refines_an_acl_fig_category() -> None:
    assert EXTENSIONS and all(parent in ACL_FIG for parent in EXTENSIONS.values())
    assert acl_fig("circuit") == "architecture_diagram"
    assert acl_fig("commutative_diagram") == "graph" and acl_fig("graph") == "graph"


def test_families() -> None:
    assert family("circuit") == Family.DIAGRAM
    assert family("function_plot") == Family.CHART
    assert family("wireframe") == Family.DIAGRAM  # a drawn mock-up, though under screenshot
    assert {family(lab) for lab in POOL_REJECT} == {Family.IMAGE}


def test_expand_keeps_the_finer_kinds() -> None:
    kept = expand(["graph", "tree"])
    assert kept[:2] == ["graph", "tree"]
    assert {"commutative_diagram", "feynman_diagram", "mind_map"} <= set(kept)
    assert "circuit" not in kept


def test_unknown_label_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a diagram type"):
        kind("plot")
