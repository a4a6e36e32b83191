import pytest

from diagramforge.store.records import (
    RECORD_COLUMNS,
    Format,
    Rejection,
    Unit,
    empty_record,
    make_id,
    normalise_code,
)


def test_id_is_stable_and_whitespace_insensitive():
    a = make_id(Format.TIKZ, "\\draw (0,0) -- (1,1);")
    b = make_id(Format.TIKZ, "  \\draw (0,0)   --\n (1,1);\n")
    assert a == b
    assert len(a) == 24


def test_id_depends_on_format_and_code():
    code = "<svg/>"
    assert make_id(Format.SVG, code) != make_id(Format.MXGRAPH, code)
    assert make_id(Format.SVG, code) != make_id(Format.SVG, "<svg></svg>")


def test_normalise_collapses_whitespace():
    assert normalise_code("a\n\n  b\tc ") == "a b c"


def test_empty_record_has_every_column_and_refuses_unknown():
    rec = empty_record(id="x", format="tikz")
    assert set(rec) == set(RECORD_COLUMNS)
    assert rec["code"] is None
    with pytest.raises(KeyError, match="colour"):
        empty_record(id="x", colour="red")


def test_rejection_row_carries_stage_and_truncates_detail():
    row = Rejection("arxiv:1", "timeout", "x" * 5000, id="abc").to_row("render")
    assert row["stage"] == "render"
    assert row["unit"] == Unit.INPUT
    assert len(row["detail"]) == 2000
