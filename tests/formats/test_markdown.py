"""Markdown as a container: its fenced blocks read as CommonMark does, and a file holding
several formats' blocks giving each diagram to its own format, none lost
(``formats/markdown.py``, ``registry.claim``/``registry.extract``)."""

from __future__ import annotations

import json
import re

import pytest

from diagramforge.formats import markdown
from diagramforge.formats.registry import claim, extract, instantiate
from diagramforge.store.records import Unit
from tests.conftest import make_params

BASE = {"source": "repo", "source_id": "r@c:README.md", "group": "repo:r"}

README = """\
# Payments service

The checkout flow, as the team draws it:

```mermaid
flowchart LR
  cart[Cart] --> pay{Pay?}
  pay -->|yes| done[Done]
  pay -->|no| cart
```

The calls between the services:

~~~puml
@startuml
actor User
User -> API : POST /orders
API -> DB : insert
@enduml
~~~

The dependency graph:

```dot
digraph deps { api -> db; api -> queue }
```

How to run it:

```python
print("hello")
```

1. Deploy steps

   ```plantuml
   start
   :build;
   :deploy;
   stop
   ```

> The order's states, from the design document:
>
> ```Mermaid {align=center}
> stateDiagram-v2
>   [*] --> Idle
>   Idle --> Busy
> ```

How to write one yourself (shown, not drawn):

````markdown
```mermaid
graph TD; a-->b
```
````
"""


def _span(opening: str) -> tuple[int, int]:
    """The 1-based lines of the block README opens with this line, up to the next line
    that is its closing fence (found in the text, not by the parser under test)."""
    lines = README.splitlines()
    first = lines.index(opening)
    mark = re.match(r"[`~]+", opening.lstrip("> ")).group()
    last = next(k for k in range(first + 1, len(lines))
                if lines[k].lstrip("> ").rstrip() == mark)
    return first + 1, last + 1


def _inside(span: tuple[int, int], strip: int) -> str:
    """The text between a span's fences, ``strip`` characters off each line."""
    return "\n".join(ln[strip:] for ln in README.splitlines()[span[0]:span[1] - 1]) + "\n"


@pytest.fixture(scope="module")
def formats(tmp_path_factory):
    return instantiate(make_params(tmp_path_factory.mktemp("md")), lambda r: r["id"])


def test_fences_follow_commonmark():
    text = ("# Doc\n\n```mermaid\nflowchart LR\n  a --> b\n```\n\n"
            "```python\nprint(1)\n```\n\n"
            "  ~~~~ Mermaid {.diagram}\n  graph TD\n  x --> y\n  ~~~\n  ~~~~\n\n"
            "````mermaid\nsequenceDiagram\n```\nnot the end\n````\n"
            "```mermaid\n```\n")
    got = [(f.language, f.code) for f in markdown.fences(text)]
    assert got == [("mermaid", "flowchart LR\n  a --> b"), ("python", "print(1)"),
                   ("mermaid", "graph TD\nx --> y\n~~~"),
                   ("mermaid", "sequenceDiagram\n```\nnot the end"), ("mermaid", "")]
    # an unclosed fence runs to the end of the document
    assert [f.code for f in markdown.fences("```mermaid\nflowchart LR\n  a --> b\n")] == [
        "flowchart LR\n  a --> b"]
    # indented four spaces it is an indented code block, not a fence
    assert markdown.fences("para\n\n    ```mermaid\n    graph TD\n    ```\n") == ()


def test_fences_inside_lists_and_blockquotes_and_not_inside_other_fences():
    fences = markdown.fences(README)
    assert [f.language for f in fences] == ["mermaid", "puml", "dot", "python", "plantuml",
                                            "mermaid", "markdown"]
    spans = [_span("```mermaid"), _span("~~~puml"), _span("```dot"), _span("```python"),
             _span("   ```plantuml"), _span("> ```Mermaid {align=center}"),
             _span("````markdown")]
    assert [f.lines for f in fences] == spans
    assert fences[4].code == "start\n:build;\n:deploy;\nstop"  # the list item's indent off
    assert fences[5].code == "stateDiagram-v2\n  [*] --> Idle\n  Idle --> Busy"  # no ">"
    assert fences[6].code == "```mermaid\ngraph TD; a-->b\n```"  # shown, not a block


def test_a_readme_with_several_formats_gives_each_diagram_to_its_format(formats):
    """The bug: the registry gave a Markdown file to the first format claiming it, so the
    PlantUML diagrams of a README that also held Mermaid were lost without a ledger row."""
    data = README.encode()
    takers, why = claim(formats, "README.md", data)
    assert sorted(h.name for h in takers) == ["mermaid", "plantuml"] and why == ""
    recs, rejs = extract(takers, data, "README.md", BASE, "r@c:README.md", Unit.INPUT)
    assert rejs == []
    flow, seq, steps, states = (_span("```mermaid"), _span("~~~puml"),
                                _span("   ```plantuml"), _span("> ```Mermaid {align=center}"))
    assert [(r["format"], r["code"]) for r in recs] == [
        ("mermaid", _inside(flow, 0)),
        ("plantuml", _inside(seq, 0)),
        ("plantuml", "@startuml\n" + _inside(steps, 3) + "@enduml\n"),
        ("mermaid", _inside(states, 2))]
    assert [r["source_id"] for r in recs] == [f"r@c:README.md#block{k}" for k in (1, 2, 3, 4)]
    assert [json.loads(r["meta"]) for r in recs] == [
        {"file": "README.md", "block": k} for k in range(4)]
    assert len({r["id"] for r in recs}) == 4
    # each record's place: its block's lines in the file, fences included
    blocks = [f for f in markdown.fences(README) if f.language in ("mermaid", "puml",
                                                                     "plantuml")]
    assert [f.lines for f in blocks] == [flow, seq, steps, states]


def test_a_refused_block_of_a_mixed_file_is_a_candidate_and_the_others_stay(tmp_path):
    fmts = instantiate(make_params(tmp_path, formats={"mermaid": {"max_text_size": 40}}),
                       lambda r: r["id"])
    data = (b"```mermaid\nflowchart LR\n" + b"  a --> b\n" * 10 + b"```\n"
            b"```plantuml\nA -> B\n```\n")
    takers, _ = claim(fmts, "docs/x.md", data)
    recs, rejs = extract(takers, data, "docs/x.md", BASE, "loc", Unit.INPUT)
    assert [(r["format"], r["source_id"]) for r in recs] == [
        ("plantuml", "r@c:README.md#block2")]
    assert [(r.reason, r.locator, r.unit) for r in rejs] == [
        ("mermaid_too_large", "loc#block1", Unit.CANDIDATE)]
    # nothing usable at all: each block a candidate, the file one input
    data = b"```mermaid\n" + b"x" * 50 + b"\n```\n```puml\n!include /etc/passwd\n```\n"
    recs, rejs = extract(claim(fmts, "a.md", data)[0], data, "a.md", BASE, "loc", Unit.INPUT)
    assert recs == [] and [(r.reason, r.unit) for r in rejs] == [
        ("mermaid_too_large", Unit.CANDIDATE), ("plantuml_unsafe", Unit.CANDIDATE),
        ("no_diagrams", Unit.INPUT)]


def test_a_file_of_one_kind_numbers_its_blocks_as_before(formats):
    """Record ids, ``source_id`` and ``meta`` of a Markdown file holding one format's blocks
    are what that format alone gave (the samples' README: every data/ output unchanged)."""
    data = (b"# Doc\n```mermaid\ngraph TD; a-->b\n```\n```python\nx = 1\n```\n"
            b"~~~mermaid\nflowchart LR\n  c --> d\n~~~\n")
    takers, _ = claim(formats, "README.md", data)
    assert [h.name for h in takers] == ["mermaid"]
    recs, rejs = extract(takers, data, "README.md", BASE, "loc", Unit.INPUT)
    assert rejs == [] and [(r["source_id"], r["meta"], r["code"]) for r in recs] == [
        ("r@c:README.md#block1", '{"file": "README.md", "block": 0}', "graph TD; a-->b\n"),
        ("r@c:README.md#block2", '{"file": "README.md", "block": 1}',
         "flowchart LR\n  c --> d\n")]


@pytest.mark.parametrize(("data", "why"), [
    (b"# Project\n\n```python\nprint(1)\n```\n", "not_a_diagram"),
    (b"# Project\n\nNo code at all.\n", "not_a_diagram"),
    (b"````markdown\n```mermaid\ngraph TD; a-->b\n```\n````\n", "not_a_diagram"),
])
def test_markdown_without_a_diagram_block_is_not_claimed(formats, data, why):
    assert claim(formats, "README.md", data) == ([], why)


def test_blank_blocks_and_bytes_that_are_not_text_are_ledgered(formats):
    data = b"```mermaid\n\n```\n~~~puml\n~~~\n"
    takers, _ = claim(formats, "a.md", data)
    assert [(r.reason, r.unit) for r in extract(takers, data, "a.md", BASE, "loc",
                                                Unit.INPUT)[1]] == [
        ("markdown_no_blocks", Unit.INPUT)]
    data = b"```mermaid\ngraph TD; \xff-->b\n```\n"
    takers, _ = claim(formats, "a.md", data)
    assert [h.name for h in takers] == ["mermaid"]
    assert [r.reason for r in extract(takers, data, "a.md", BASE, "loc", Unit.INPUT)[1]] == [
        "markdown_not_text"]
