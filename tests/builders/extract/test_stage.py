"""The extract stage on repository files: a Markdown file gives a record to every format whose
blocks it holds, and one without a diagram block is ledgered as before."""

from __future__ import annotations

import json

from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.stage import WorkUnit
from diagramforge.store.records import SourceKind, Unit
from tests.conftest import make_params

MIXED = b"""# Orders

```mermaid
flowchart LR
  order --> paid
```

```python
print("not a diagram")
```

```plantuml
Alice -> Bob : order
```
"""


def _file(path: str, data: bytes) -> dict:
    return {"id": path, "kind": SourceKind.REPO, "title": path, "url": "https://x/r",
            "licence": "MIT", "licence_url": None, "content": data,
            "meta": json.dumps({"repo": "r", "commit": "c0ffee", "file": path})}


def test_a_markdown_file_of_several_formats_loses_none(tmp_path):
    stage = ExtractStage(make_params(tmp_path))
    out = stage.process(WorkUnit([_file("README.md", MIXED),
                                  _file("docs/notes.md", b"# Notes\n\n```sh\nls\n```\n")],
                                 key="k"))
    assert [(r["format"], r["source_id"], r["group"]) for r in out.records] == [
        ("mermaid", "README.md#block1", "repo:r"), ("plantuml", "README.md#block2", "repo:r")]
    assert out.records[1]["code"] == "@startuml\nAlice -> Bob : order\n@enduml\n"
    assert [(r.locator, r.reason, r.unit) for r in out.rejections] == [
        ("docs/notes.md", "not_a_diagram", Unit.INPUT)]
    assert out.inputs_with_output == 1
