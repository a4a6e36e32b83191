"""A Stack Exchange post's parts (``se_posts``) and its licence and credit (``se_licence``),
checked against Stack Exchange's published dates and attribution terms."""

from __future__ import annotations

import pytest

from diagramforge.builders.crawl.se_licence import (
    Author,
    attribution,
    licence_by_date,
    licence_for,
    licence_url,
    spdx_of_content_licence,
)
from diagramforge.builders.crawl.se_posts import iso, parse_body, parse_tags, post_url


@pytest.mark.parametrize("when, spdx", [
    # Stack Exchange: before 2011-04-08 (UTC) 2.5; from then, not including 2018-05-02, 3.0;
    # on or after 2018-05-02 4.0
    ("2009-09-15T08:00:00.000", "CC-BY-SA-2.5"),
    ("2011-04-07T23:59:59.999", "CC-BY-SA-2.5"),
    ("2011-04-08T00:00:00.000", "CC-BY-SA-3.0"),
    ("2018-05-01T23:59:59.999", "CC-BY-SA-3.0"),
    ("2018-05-02T00:00:00.000", "CC-BY-SA-4.0"),
    ("2024-03-31T12:00:00.000", "CC-BY-SA-4.0"),
])
def test_licence_by_the_date_contributed(when, spdx):
    assert licence_by_date(when) == spdx


def test_the_latest_revision_decides():
    # created under 3.0, edited after 2018-05-02: 4.0 (by the dates on the post)
    d = licence_for("2016-05-10T19:45:10.000", "2019-06-20T16:00:00.000", None)
    assert (d.spdx, d.basis, d.date) == ("CC-BY-SA-4.0", "post_date", "2019-06-20T16:00:00.000")
    # edited before the boundary: stays 3.0; never edited: its creation
    assert licence_for("2016-05-10T19:45:10.000", "2017-01-01T00:00:00.000", None).spdx \
        == "CC-BY-SA-3.0"
    assert licence_for("2010-11-15T10:03:00.000", None, None).spdx == "CC-BY-SA-2.5"
    # PostHistory's latest revision outranks the post's own dates, its ContentLicense its date
    d = licence_for("2016-05-10T19:45:10.000", None, None, ("2019-01-01T00:00:00.000", None))
    assert (d.spdx, d.basis) == ("CC-BY-SA-4.0", "revision_date")
    d = licence_for("2016-05-10T19:45:10.000", None, "CC BY-SA 4.0",
                    ("2016-05-10T19:45:10.000", "CC BY-SA 3.0"))
    assert (d.spdx, d.basis) == ("CC-BY-SA-3.0", "revision_licence")
    # the dump's ContentLicense on the post is Stack Exchange's own statement: it outranks
    # any date
    d = licence_for("2016-05-10T19:45:10.000", None, "CC BY-SA 4.0")
    assert (d.spdx, d.basis) == ("CC-BY-SA-4.0", "post_licence")
    d = licence_for("2016-05-10T19:45:10.000", None, "CC BY-SA 4.0",
                    ("2016-05-10T19:45:10.000", None))
    assert (d.spdx, d.basis) == ("CC-BY-SA-4.0", "post_licence")


def test_content_licence_names():
    assert spdx_of_content_licence("CC BY-SA 2.5") == "CC-BY-SA-2.5"
    assert spdx_of_content_licence("CC BY-SA 3.0") == "CC-BY-SA-3.0"
    assert spdx_of_content_licence("GFDL") == "LicenseRef-unknown:GFDL"
    assert licence_url("CC-BY-SA-3.0") == "https://creativecommons.org/licenses/by-sa/3.0/"
    assert licence_url("MIT") is None


def test_tags_in_both_dump_spellings():
    assert parse_tags("<tikz-pgf><arrows>") == ["tikz-pgf", "arrows"]
    assert parse_tags("|tikz-pgf|arrows|") == ["tikz-pgf", "arrows"]
    assert parse_tags(None) == []


def test_timestamps_in_one_spelling():
    assert iso("2011-04-08T00:00:00") == "2011-04-08T00:00:00.000"
    assert iso("2011-04-08T01:30:00+02:00") == "2011-04-07T23:30:00.000"
    with pytest.raises(ValueError):
        iso("yesterday")


def test_code_blocks_are_decoded_and_prose_is_what_is_left():
    html = ("<p>Cells are split by <code>&amp;</code> &amp; rows by <code>\\\\</code>:</p>\n"
            "<pre class=\"lang-tex\"><code>\\draw[&lt;-&gt;] (a) -- (b);\n"
            "A &amp; B \\\\\n</code></pre>\n<blockquote><p>quoted</p></blockquote>\n"
            "<pre><code>pdflatex x.tex</code></pre>\n<p>Thanks!</p>")
    body = parse_body(html)
    assert body.blocks == ["\\draw[<->] (a) -- (b);\nA & B \\\\\n", "pdflatex x.tex"]
    assert body.paragraphs == ["Cells are split by & & rows by \\\\:", "quoted", "Thanks!"]
    assert body.prose(20) == "Cells are split by …"


def test_broken_and_empty_html():
    assert parse_body("").blocks == []
    body = parse_body("<p>unclosed <pre><code>\\tikz \\draw (0,0) circle (1);")
    assert body.blocks == ["\\tikz \\draw (0,0) circle (1);"]


def test_attribution_names_links_and_marks():
    site = "tex.stackexchange.com"
    a = attribution(site, 2, 1002, 1001, Author(102, "knot_theorist"), False)
    assert a == ("knot_theorist (https://tex.stackexchange.com/users/102), answer "
                 "https://tex.stackexchange.com/a/1002 to question "
                 "https://tex.stackexchange.com/q/1001, tex.stackexchange.com")
    gone = attribution(site, 2, 7, 5, Author(None, "user4711", deleted=True), False)
    assert gone.startswith("user4711 (deleted user, no profile), answer")
    wiki = attribution(site, 1, 9, 9, Author(5, "Mirela"), True)
    assert "community wiki question https://tex.stackexchange.com/q/9" in wiki
    assert "https://tex.stackexchange.com/posts/9/revisions" in wiki
    assert post_url(site, 4, 12) == "https://tex.stackexchange.com/posts/12"
