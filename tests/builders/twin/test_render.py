"""How twins reach their engine (issue 53): a twin whose graph the code already gives is
checked before it is drawn, so one that cannot verify never reaches the engine; only a
verified twin's picture is encoded. A stand-in format records what it is asked to draw."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from diagramforge.builders.twin import make as twin_make
from diagramforge.builders.twin.make import Attempt, TwinReason, Twins
from diagramforge.formats import encoding
from diagramforge.formats.picture import Picture
from diagramforge.formats.registry import DiagramFormat
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.stage import Outcome
from tests.conftest import make_params

SOURCE = Graph(nodes=[Node(id="a", text="Client"), Node(id="b", text="Server")],
               edges=[Edge(source="a", target="b")])
OTHER = Graph(nodes=[Node(id="a", text="Client")], edges=[])


class Stand(DiagramFormat):
    """A format whose twin graph is ``OTHER`` for code "wrong" and the source's else."""

    name = "stand"
    in_render = False

    def __init__(self, params, locator) -> None:  # noqa: ANN001
        super().__init__(params, locator)
        self.drawn: list[str] = []

    @property
    def graphs_in_render(self) -> bool:  # type: ignore[override]
        return self.in_render

    def _graph(self, code: str) -> Graph:
        return OTHER if code == "wrong" else SOURCE

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph:
        return self._graph(record["code"])

    def export_svg(self, rows: list[dict]) -> list[str]:
        """A drawing the readability check passes (one text, large enough)."""
        return ['<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20">'
                '<text x="1" y="15" font-size="12">Client</text></svg>' for _ in rows]

    def render(self, rows: list[dict]) -> Outcome:
        out = Outcome()
        for row in rows:
            self.drawn.append(row["code"])
            buf = io.BytesIO()
            Image.fromarray(np.full((20, 30, 3), 90, np.uint8)).save(buf, "PNG")
            rec = {**row, "image": buf.getvalue(), "width": 30, "height": 20}
            if self.in_render:
                rec["graph"] = self._graph(row["code"]).to_json()
            out.records.append(rec)
        return out


def _attempts(codes: list[str]) -> list[Attempt]:
    return [Attempt({"id": f"d{k}", "format": "tikz", "source_id": f"s{k}", "code": "x"}, SOURCE,
                    "stand", "graph-to-stand", "structure", code)
            for k, code in enumerate(codes)]


def test_a_twin_the_code_shows_wrong_never_reaches_the_engine(tmp_path, monkeypatch):
    encoded: list[object] = []
    real = encoding.stored_image
    monkeypatch.setattr(twin_make, "stored_image",
                        lambda image, raster: encoded.append(image) or real(image, raster))
    h = Stand(make_params(tmp_path), lambda r: r["source_id"])
    out = Outcome()
    Twins({"stand": h}, ["stand"], 100, lambda r: r["source_id"])._render(
        h, _attempts(["right", "wrong", "right"]), out)
    assert h.drawn == ["right", "right"]
    assert [r.reason for r in out.rejections] == [TwinReason.MISMATCH]
    assert len(out.records) == len(encoded) == 2
    assert all(isinstance(p, Picture) for p in encoded)
    assert all(encoding.kind(r["target_image"]) == "png" for r in out.records)  # the engine's


def test_a_twin_whose_engine_gives_the_graph_is_drawn_then_checked(tmp_path, monkeypatch):
    """When the graph exists only inside the render (TikZ, DOT, Mermaid), every twin is
    drawn; the one that differs is ledgered and its picture dropped, never encoded."""
    encoded: list[object] = []
    real = encoding.stored_image
    monkeypatch.setattr(twin_make, "stored_image",
                        lambda image, raster: encoded.append(image) or real(image, raster))
    h = Stand(make_params(tmp_path), lambda r: r["source_id"])
    h.in_render = True
    out = Outcome()
    Twins({"stand": h}, ["stand"], 100, lambda r: r["source_id"])._render(
        h, _attempts(["wrong", "right"]), out)
    assert h.drawn == ["wrong", "right"]
    assert [r.reason for r in out.rejections] == [TwinReason.MISMATCH]
    assert len(out.records) == len(encoded) == 1
