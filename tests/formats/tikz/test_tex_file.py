"""A repository's TeX file through the paper extractor, with the file's provenance."""

from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.formats.tikz.tex_file import as_document, tex_file_records
from diagramforge.store.records import Unit
from tests.builders.crawl.archive_files import PLAIN_TEX, tex

BASE = {"source": "stack", "source_id": "stack:lab/paper@0123456789ab:figs/f.tex",
        "source_url": "https://github.com/lab/paper/blob/0123/figs/f.tex",
        "group": "repo:lab/paper", "licence": "MIT", "licence_url": "u",
        "attribution": "lab/paper contributors", "title": "figs/f.tex"}


def test_a_document_keeps_its_preamble_and_gets_the_files_provenance():
    recs, rejs = tex_file_records(tex("Alpha", "Beta").encode(), "figs/f.tex", BASE,
                                  BASE["source_id"], Unit.INPUT, ExtractParams())
    assert rejs == [] and len(recs) == 1
    r = recs[0]
    assert {k: r[k] for k in BASE if k != "source_id"} == \
        {k: v for k, v in BASE.items() if k != "source_id"}
    assert r["source_id"] == BASE["source_id"] + "#1" and "Alpha" in r["code"]


def test_a_bare_picture_file_is_wrapped_and_a_file_without_one_is_ledgered():
    pic = rb"\begin{tikzpicture}\node[draw] (a) {Only a picture here}; \end{tikzpicture}"
    assert as_document(pic).startswith(rb"\documentclass{article}")
    assert as_document(tex().encode()) == tex().encode()
    recs, rejs = tex_file_records(pic, "p.tikz.tex", BASE, "loc", Unit.INPUT,
                                  ExtractParams())
    assert len(recs) == 1 and rejs == [] and r"\usepackage{tikz}" in recs[0]["code"]
    recs, rejs = tex_file_records(PLAIN_TEX.encode(), "n.tex", BASE, "loc", Unit.INPUT,
                                  ExtractParams())
    assert recs == [] and [(r.locator, r.reason, r.unit) for r in rejs] == \
        [("loc", "no_diagrams", Unit.INPUT)]
