"""The Mermaid handler: ``.mmd`` files and Mermaid blocks in Markdown become records; the
rendering itself is tested with the renderer (tests/formats/mermaid/test_engine.py); how
Markdown's blocks are read, in tests/formats/test_markdown.py."""

from __future__ import annotations

import pytest

from diagramforge.formats.registry import instantiate
from diagramforge.store.records import Unit
from tests.conftest import make_params

BASE = {"source": "repo", "source_id": "r@c:README.md", "group": "repo:r"}


@pytest.fixture
def handler(tmp_path):
    return instantiate(make_params(tmp_path, formats={"mermaid": {"max_text_size": 60}}),
                       lambda r: r["id"])["mermaid"]


def test_markdown_gives_a_record_per_block(handler):
    doc = b"x\n```mermaid\nflowchart LR\n a --> b\n```\n```mermaid\n" + b"a" * 80 + b"\n```\n"
    recs, rejs = handler.extract_file(doc, "README.md", BASE, "r@c:README.md", Unit.INPUT)
    assert [r["source_id"] for r in recs] == ["r@c:README.md#block1"]
    assert recs[0]["format"] == "mermaid" and recs[0]["code"] == "flowchart LR\n a --> b\n"
    assert [(r.reason, r.locator, r.unit) for r in rejs] == [
        ("mermaid_too_large", "r@c:README.md#block2", Unit.CANDIDATE)]


def test_files_without_diagrams_are_ledgered(handler):
    _, rejs = handler.extract_file(b"# just prose\n", "README.md", BASE, "loc", Unit.INPUT)
    assert [(r.reason, r.unit) for r in rejs] == [("markdown_no_blocks", Unit.INPUT)]
    _, rejs = handler.extract_file(b"  \n", "a.mmd", BASE, "loc", Unit.INPUT)
    assert [(r.reason, r.unit) for r in rejs] == [("mermaid_no_blocks", Unit.INPUT)]
    _, rejs = handler.extract_file(b"\xff\xfe", "a.mmd", BASE, "loc", Unit.INPUT)
    assert [r.reason for r in rejs] == ["mermaid_not_text"]
    recs, _ = handler.extract_file(b"flowchart LR\n a --> b\n", "a.mmd", BASE, "loc",
                                   Unit.INPUT)
    assert recs[0]["source_id"] == "r@c:README.md" and recs[0]["code"].startswith("flowchart")


def test_archives_claim_markdown_only_with_a_mermaid_block(tmp_path):
    """The Stack's markdown subset is mostly READMEs without diagrams: those are not
    claimed (ledgered no_handler by the archive source), a fenced mermaid block is."""
    fmt = instantiate(make_params(tmp_path), str)["mermaid"]
    assert fmt.claims_file("docs/flow.md", b"# Flow\n\n```mermaid\ngraph TD; A-->B\n```\n")
    assert not fmt.claims_file("README.md", b"# Project\n\n```python\nprint(1)\n```\n")
    assert fmt.claims_file("diagrams/a.mmd", b"graph TD; A-->B\n")
