"""Files of the embedded template repositories (used by make_samples.py)."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from urllib.parse import quote

MIT = """MIT License

Copyright (c) 2024 Flowchart Templates Authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

BSD2 = """BSD 2-Clause License

Copyright (c) 2024, SVG Diagram Kit contributors

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""


def model(cells: str) -> str:
    return (
        '<mxGraphModel dx="800" dy="600" grid="1" gridSize="10" guides="1" tooltips="1" '
        'connect="1" arrows="1" fold="1" page="1" pageScale="1" pageWidth="850" '
        'pageHeight="1100" math="0" shadow="0"><root><mxCell id="0"/>'
        '<mxCell id="1" parent="0"/>' + cells + "</root></mxGraphModel>"
    )


def vertex(cid: str, label: str, style: str, x: int, y: int, w: int = 120, h: int = 60) -> str:
    return (
        f'<mxCell id="{cid}" value="{label}" style="{style}" vertex="1" parent="1">'
        f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry"/></mxCell>'
    )


def edge(cid: str, src: str, dst: str, label: str = "") -> str:
    return (
        f'<mxCell id="{cid}" value="{label}" style="edgeStyle=orthogonalEdgeStyle;rounded=0;'
        f'html=1;endArrow=classic;" edge="1" parent="1" source="{src}" target="{dst}">'
        '<mxGeometry relative="1" as="geometry"/></mxCell>'
    )


ARCH = model(
    vertex("web", "Web app", "rounded=1;whiteSpace=wrap;html=1;fillColor=#dae8fc;"
           "strokeColor=#6c8ebf;", 40, 40)
    + vertex("api", "API", "shape=hexagon;perimeter=hexagonPerimeter2;whiteSpace=wrap;html=1;"
             "fillColor=#d5e8d4;strokeColor=#82b366;", 240, 40)
    + vertex("db", "Database", "shape=cylinder3;whiteSpace=wrap;html=1;boundedLbl=1;"
             "backgroundOutline=1;size=15;fillColor=#fff2cc;strokeColor=#d6b656;", 440, 30, 80, 80)
    + vertex("cloud", "CDN", "ellipse;shape=cloud;whiteSpace=wrap;html=1;", 230, 180)
    + edge("e1", "web", "api", "REST") + edge("e2", "api", "db") + edge("e3", "cloud", "web")
)

FLOW_PAGE1 = model(
    vertex("s", "Start", "ellipse;whiteSpace=wrap;html=1;", 40, 40)
    + vertex("d", "OK?", "rhombus;whiteSpace=wrap;html=1;", 200, 30, 100, 80)
    + vertex("t", "Stop", "rounded=1;whiteSpace=wrap;html=1;arcSize=50;", 380, 40)
    + edge("a1", "s", "d") + edge("a2", "d", "t", "yes")
)
FLOW_PAGE2 = model(
    vertex("p", "Process", "rounded=0;whiteSpace=wrap;html=1;", 40, 40)
    + vertex("q", "Queue", "shape=process;whiteSpace=wrap;html=1;", 240, 40)
    + edge("b1", "p", "q")
)
BARE = model(
    vertex("n1", "Client", "rounded=1;whiteSpace=wrap;html=1;", 40, 40)
    + vertex("n2", "Server", "rounded=1;whiteSpace=wrap;html=1;", 240, 40)
    + edge("l1", "n1", "n2", "request")
)
# Invalid on purpose: an edge whose target does not exist, and a duplicate id.
BROKEN = model(
    vertex("x1", "Orphan", "rounded=1;html=1;", 40, 40)
    + vertex("x1", "Twin", "rounded=1;html=1;", 240, 40)
    + edge("y1", "x1", "missing")
)
# Script in a label must never run nor reach the output.
SCRIPTED = model(
    vertex("h1", "&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;Hi",
           "rounded=1;whiteSpace=wrap;html=1;", 40, 40)
    + vertex("h2", "Plain", "rounded=1;whiteSpace=wrap;html=1;", 240, 40)
    + edge("h3", "h1", "h2")
)


def compress(xml: str) -> str:
    """draw.io's page encoding: URL-quote, raw deflate, base64."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = co.compress(quote(xml, safe="-_.!~*'()").encode()) + co.flush()
    return base64.b64encode(raw).decode()


def mxfile(pages: list[tuple[str, str, str]], compressed: bool) -> str:
    out = ['<mxfile host="Electron" agent="diagramforge-samples" version="24.0.0">']
    for pid, name, xml in pages:
        body = compress(xml) if compressed else xml
        out.append(f'<diagram id="{pid}" name="{name}">{body}</diagram>')
    out.append("</mxfile>")
    return "\n".join(out) + "\n"


def drawio_svg(xml_file: str) -> str:
    from xml.sax.saxutils import quoteattr

    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" width="241" height="61" viewBox="-0.5 -0.5 241 61"'
        f" content={quoteattr(xml_file)}>"
        '<rect x="0" y="0" width="120" height="60" rx="9" fill="#ffffff" stroke="#000000"/>'
        '<text x="60" y="34" text-anchor="middle" font-family="Helvetica" font-size="12">Client'
        "</text></svg>\n"
    )


def drawio_png(xml_file: str) -> bytes:
    """A 1x1 PNG carrying the diagram in a zTXt chunk keyed 'mxfile', as draw.io exports do."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\xff\xff", 9)
    ztxt = b"mxfile\x00\x00" + zlib.compress(quote(xml_file, safe="").encode(), 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"zTXt", ztxt)
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


SVG_FLOW = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!-- Created with Inkscape (http://www.inkscape.org/) -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
     xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
     width="320" height="120" viewBox="0 0 320 120" inkscape:version="1.3">
  <sodipodi:namedview id="base" pagecolor="#ffffff"/>
  <metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>
  <defs><marker id="arr" markerWidth="10" markerHeight="10" refX="9" refY="3" orient="auto">
    <path d="M0,0 L0,6 L9,3 z" fill="#333"/></marker></defs>
  <rect x="10" y="30" width="100" height="50" rx="8" fill="#dae8fc" stroke="#6c8ebf"/>
  <text x="60" y="60" font-family="Arial" font-size="14" text-anchor="middle">Input</text>
  <rect x="210" y="30" width="100" height="50" rx="8" fill="#d5e8d4" stroke="#82b366"/>
  <text x="260" y="60" font-family="sans-serif" font-size="14" text-anchor="middle">Output</text>
  <line x1="110" y1="55" x2="205" y2="55" stroke="#333" stroke-width="2" marker-end="url(#arr)"/>
</svg>
"""

SVG_PIE = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="200" height="200">
  <circle cx="100" cy="100" r="80" fill="#f4b400"/>
  <path d="M100,100 L100,20 A80,80 0 0,1 180,100 z" fill="#db4437"/>
  <path d="M100,100 L180,100 A80,80 0 0,1 60,169 z" fill="#4285f4"/>
  <text x="100" y="195" font-family="Helvetica" font-size="12" text-anchor="middle">share</text>
</svg>
"""

SVG_NO_VIEWBOX = """<svg xmlns="http://www.w3.org/2000/svg" width="150" height="90">
  <g transform="translate(10,10)"><polygon points="0,70 65,0 130,70" fill="none" stroke="black"
     stroke-width="3"/><text x="65" y="60" font-family="serif" text-anchor="middle">apex</text></g>
</svg>
"""

SVG_HOSTILE = """<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="100" height="100" onload="alert(1)">
  <style>@import url(http://evil.example/x.css);</style>
  <script>alert(document.cookie)</script>
  <image xlink:href="file:///etc/passwd" width="10" height="10"/>
  <rect width="100" height="100" fill="red"/><text y="50">&lol2;&xxe;</text>
</svg>
"""

SVG_BLANK = """<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">
  <rect width="100" height="100" fill="white"/>
</svg>
"""

# -- text diagram languages: Graphviz DOT and Mermaid -------------------------------------
APACHE_HEADER = "SPDX-License-Identifier: Apache-2.0\n\nCopyright 2024 Text Diagrams contributors\n"

DOT_PIPELINE = """// the build pipeline, as the team draws it
digraph pipeline {
  rankdir=LR;
  node [shape=box, style=rounded];
  fetch [label="Fetch sources"];
  build [label="Build"];
  test [label="Run tests"];
  deploy [label="Deploy", shape=ellipse];
  subgraph cluster_ci {
    label="CI";
    build; test;
  }
  fetch -> build -> test;
  test -> deploy [label="green"];
  test -> build [label="retry", style=dashed];
}
"""

DOT_NETWORK = """graph network {
  router [shape=diamond];
  router -- switch1;
  router -- switch2;
  switch1 -- "host a";
  switch1 -- "host b";
  switch2 -- "host c" [label="10G"];
}
"""

DOT_TWO = """digraph first { a -> b; b -> c; }
/* a second graph in the same file */
digraph second { x -> y [dir=back]; y -> z [dir=both]; }
"""

DOT_HOSTILE = """digraph leak {
  a [image="/etc/passwd", label="A"];
  b [label=<<TABLE><TR><TD><IMG SRC="/etc/hostname"/></TD></TR></TABLE>>];
  a -> b;
}
"""

DOT_HUGE = "digraph huge {\n" + "".join(f"  n{i} -> n{i + 1};\n" for i in range(2500)) + "}\n"

MMD_FLOW = """flowchart TD
  A[Request] --> B{Cached?}
  B -->|yes| C[Serve from cache]
  B -->|no| D[Query database]
  D --> E[(Store)]
  E --> C
"""

MMD_STATES = """stateDiagram-v2
  [*] --> Idle
  Idle --> Running : start
  Running --> Idle : stop
  Running --> [*]
"""

MMD_HOSTILE = """%%{init: {"securityLevel": "loose", "htmlLabels": true}}%%
flowchart LR
  A["<img src=x onerror=alert(1)> click me"] --> B
  click A call alert("pwned")
  click B "javascript:alert(2)"
"""

MMD_BROKEN = "flowchart LR\n  A -->\n"

TEXT_README = """# Text diagrams

Diagrams kept as text next to the code.

```mermaid
sequenceDiagram
  Client->>Server: GET /items
  Server-->>Client: 200 OK
```

Some code that is not a diagram:

```python
print("hello")
```

~~~mermaid
flowchart LR
  ingest[Ingest] --> clean[Clean]
  clean --> train[Train model]
  train --> eval[Evaluate]
  eval -.->|"retrain"| train
~~~
"""

PUML_CORPUS = Path(__file__).resolve().parent.parent / "tests/formats/plantuml/corpus"

REPOS: list[dict] = [
    {
        "name": "flowchart-templates",
        "commits": [
            {
                "message": "Add templates",
                "files": {
                    "LICENSE": MIT,
                    "README.md": "# Flowchart templates\n\ndraw.io templates for systems diagrams.\n",
                    "templates/architecture.drawio": mxfile([("p1", "Architecture", ARCH)],
                                                            compressed=False),
                    "templates/flows.drawio": mxfile(
                        [("f1", "Decision", FLOW_PAGE1), ("f2", "Queueing", FLOW_PAGE2)],
                        compressed=True),
                    "templates/client-server.xml": BARE + "\n",
                },
            },
            {
                "message": "Add exports and a broken template",
                "tag": "v1.0",
                "files": {
                    "exports/client-server.drawio.svg": drawio_svg(
                        mxfile([("c1", "Client", BARE)], compressed=True)),
                    "exports/architecture.drawio.png": drawio_png(
                        mxfile([("a1", "Architecture", ARCH)], compressed=False)),
                    "templates/broken.drawio": mxfile([("b1", "Broken", BROKEN)],
                                                      compressed=False),
                    "templates/scripted.drawio": mxfile([("s1", "Scripted", SCRIPTED)],
                                                        compressed=False),
                },
            },
        ],
    },
    {
        "name": "svg-diagram-kit",
        "commits": [
            {
                "message": "Initial diagrams",
                "tag": "v0.3.0",
                "files": {
                    "LICENSE.txt": BSD2,
                    "diagrams/flow.svg": SVG_FLOW,
                    "diagrams/pie.svg": SVG_PIE,
                    "diagrams/triangle.svg": SVG_NO_VIEWBOX,
                    "diagrams/hostile.svg": SVG_HOSTILE,
                    "diagrams/blank.svg": SVG_BLANK,
                    "notes.txt": "Not a diagram.\n",
                },
            },
        ],
    },
    {
        "name": "text-diagrams",
        "commits": [
            {
                "message": "Graphviz and Mermaid diagrams",
                "tag": "v0.1.0",
                "files": {
                    "LICENSE": APACHE_HEADER,
                    "README.md": TEXT_README,
                    "graphs/pipeline.dot": DOT_PIPELINE,
                    "graphs/network.gv": DOT_NETWORK,
                    "graphs/two.gv": DOT_TWO,
                    "graphs/hostile.dot": DOT_HOSTILE,
                    "graphs/huge.dot": DOT_HUGE,
                    "docs/flow.mmd": MMD_FLOW,
                    "docs/states.mmd": MMD_STATES,
                    "docs/hostile.mmd": MMD_HOSTILE,
                    "docs/broken.mmd": MMD_BROKEN,
                },
            },
        ],
    },
    {
        # real PlantUML files (Apache-2.0), copied from the regression corpus: provenance in
        # tests/formats/plantuml/corpus/SOURCES.md; two that reach outside (a URL include,
        # raw DOT) stay in, as a real repository's do
        "name": "plantuml-diagrams",
        "commits": [
            {
                "message": "PlantUML diagrams from openshift/enhancements and plantuml-parser",
                "tag": "v0.1.0",
                "files": {
                    "LICENSE": PUML_CORPUS.joinpath("openshift-enhancements/LICENSE").read_text(),
                    "SOURCES.md": PUML_CORPUS.joinpath("SOURCES.md").read_text(),
                    **{f"cert-manager/{n}": PUML_CORPUS.joinpath(
                        f"openshift-enhancements/{n}").read_text()
                       for n in ("istio-csr-create.puml", "istio-csr-delete.puml")},
                    **{f"fixtures/{n}.plantuml": PUML_CORPUS.joinpath(
                        f"plantuml-parser/{n}.plantuml").read_text()
                       for n in ("activity-conditional", "class-relationships",
                                 "class-multi-diagram", "component-packages",
                                 "sequence-messages", "state-concurrent-state-C3PO",
                                 "use-case-package", "preprocessor-includeurl",
                                 "graphviz-world-dynamics")},
                },
            },
        ],
    },
]
