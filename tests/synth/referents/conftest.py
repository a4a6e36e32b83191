"""Diagrams built to be ambiguous, in each format, where the right description is known:
grids of identical empty boxes, repeated labels, nested containers, labelled neighbours."""

from __future__ import annotations

from diagramforge.formats.scenes import Scene
from diagramforge.synth.edit.sampler import FORMATS
from diagramforge.synth.referents.describe import Describer
from diagramforge.synth.referents.naming import scene_of


def mx(vertices: list[tuple], edges: list[tuple] = ()) -> str:
    """A draw.io page. Vertices ``(id, text, style, x, y, w, h[, parent])`` (geometry
    relative to the parent, as draw.io writes it); edges ``(id, source, target[, label,
    style])``."""
    cells = ['<mxCell id="0"/>', '<mxCell id="1" parent="0"/>']
    for v in vertices:
        i, t, s, x, y, w, h = v[:7]
        parent = v[7] if len(v) > 7 else "1"
        cells.append(f'<mxCell id="{i}" value="{t}" style="{s}" vertex="1" parent="{parent}">'
                     f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry"/>'
                     "</mxCell>")
    for e in edges:
        i, a, b = e[:3]
        label = e[3] if len(e) > 3 else ""
        style = e[4] if len(e) > 4 else ""
        cells.append(f'<mxCell id="{i}" value="{label}" style="{style}" edge="1" parent="1" '
                     f'source="{a}" target="{b}"><mxGeometry relative="1" as="geometry"/>'
                     "</mxCell>")
    return f"<mxGraphModel><root>{''.join(cells)}</root></mxGraphModel>"


def storyboard(rows: int = 3, cols: int = 4) -> str:
    """A storyboard: ``rows`` × ``cols`` empty panels, an arrow from each to the next."""
    vs = [(f"p{r}{c}", "", "rounded=0;whiteSpace=wrap;", 40 + 160 * c, 40 + 140 * r, 120, 90)
          for r in range(rows) for c in range(cols)]
    ids = [v[0] for v in vs]
    es = [(f"a{k}", a, b) for k, (a, b) in enumerate(zip(ids, ids[1:], strict=False))]
    return mx(vs, es)


def describer(fmt: str, code: str) -> tuple[Describer, Scene]:
    scene = scene_of(fmt, code, FORMATS[fmt].graph(code))
    return Describer(scene), scene


def text_of(fmt: str, code: str, eid: str) -> str | None:
    d = describer(fmt, code)[0].describe(eid)
    return d.text if d else None
