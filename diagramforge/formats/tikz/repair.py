"""TikZ's ``repair`` capability: a picture that failed to compile, fixed from its TeX error.

The repair stage (``synth/repair``) reads render's compile failures and asks the LLM layer
for a fix; the offline backend answers with :func:`fix`, the rule-based fix for the common
errors: an undefined macro (its package, or a harmless definition), a missing semicolon, an
unknown key (its TikZ library, or the key dropped), an undefined environment or arrow tip
(its package or library). The contract every format's ``repair.py`` states is in
:mod:`diagramforge.formats.repairs`.
"""

from __future__ import annotations

import re

from diagramforge.formats.tikz.edit import graph

LANGUAGE = "TikZ"
FAILURES = ("compile_",)
"""Render's rejection reasons (prefixes) of a TikZ picture that did not compile: the TeX
engine's error is in the ledger's detail."""
UNFIXABLE = frozenset({"compile_timeout", "compile_forbidden_io"})
"""Failures that are not a compile error a fix of the code can mend (the sandbox stopped
the run)."""
SYSTEM = "You repair TikZ pictures that fail to compile."


def ask(code: str, error: str) -> str:
    """What the model is asked: the broken document, its error, and what a fix must keep."""
    return (f"This standalone LaTeX document fails with:\n{error}\n\nFix the error without "
            "changing what the picture shows; keep every node and label. Answer with the "
            f"complete corrected document.\n\n{code}")


def texts(code: str) -> list[str]:
    """The node texts a fixed picture must keep, read from its source (as edits read it)."""
    return [n.text for n in graph(code).nodes]


MACRO_PACKAGES = {"SI": "siunitx", "si": "siunitx", "num": "siunitx", "mathbb": "amssymb",
                  "text": "amsmath", "toprule": "booktabs", "midrule": "booktabs",
                  "bottomrule": "booktabs", "textcolor": "xcolor", "colorlet": "xcolor",
                  "includegraphics": "graphicx", "checkmark": "amssymb", "bm": "bm",
                  "mathscr": "mathrsfs", "tikzmath": None, "qty": "siunitx"}
KEY_LIBRARIES = {"Stealth": "arrows.meta", "Latex": "arrows.meta", "Triangle": "arrows.meta",
                 "right": "positioning", "left": "positioning", "above": "positioning",
                 "below": "positioning", "diamond": "shapes.geometric",
                 "trapezium": "shapes.geometric", "ellipse": "shapes.geometric",
                 "cylinder": "shapes.geometric", "star": "shapes.geometric",
                 "decorate": "decorations.pathmorphing", "fit": "fit",
                 "rounded rectangle": "shapes.misc", "cross out": "shapes.misc",
                 "rectangle split": "shapes.multipart", "circle split": "shapes.multipart",
                 "shadow": "shadows", "drop shadow": "shadows", "matrix of nodes": "matrix",
                 "on background layer": "backgrounds", "mindmap": "mindmap",
                 "pattern": "patterns", "single arrow": "shapes.arrows", "calc": "calc"}
ENV_PACKAGES = {"tikzcd": "tikz-cd", "circuitikz": "circuitikz", "forest": "forest",
                "axis": "pgfplots", "semilogyaxis": "pgfplots", "loglogaxis": "pgfplots"}
_STMT = re.compile(r"^\s*\\(draw|node|path|fill|filldraw|shade|coordinate|clip|matrix)\b")


def _preamble(code: str, line: str) -> str:
    if line in code:
        return code
    if "\\begin{document}" in code:
        return code.replace("\\begin{document}", line + "\n\\begin{document}", 1)
    return line + "\n" + code


def _semicolons(code: str) -> str:
    """End every picture statement that runs into the next one with ``;``."""
    lines = code.split("\n")
    inside, last = False, None
    for k, ln in enumerate(lines):
        s = ln.split("%")[0].rstrip()
        if "\\begin{tikzpicture}" in s:
            inside, last = True, None
            continue
        if "\\end{tikzpicture}" in s:
            if last is not None and not lines[last].split("%")[0].rstrip().endswith(";"):
                lines[last] = lines[last].rstrip() + ";"
            inside = False
            continue
        if not inside or not s.strip():
            continue
        if _STMT.match(s) and last is not None and \
                not lines[last].split("%")[0].rstrip().endswith((";", "{", "[", ",")):
            lines[last] = lines[last].rstrip() + ";"
        last = k
    return "\n".join(lines)


def fix(code: str, error: str) -> tuple[str, str]:
    """``(fixed code, what was done)``; the code unchanged when no rule applies."""
    m = re.search(r"Undefined control sequence.*?\\([A-Za-z@]+)\s*(?:\{|$|\W)", error + " ")
    if "Undefined control sequence" in error:
        names = re.findall(r"\\([A-Za-z@]+)", error.split("|", 1)[-1])
        name = names[-1] if names else (m.group(1) if m else None)
        if name:
            pkg = MACRO_PACKAGES.get(name)
            if pkg:
                return _preamble(code, f"\\usepackage{{{pkg}}}"), f"package {pkg}"
            return (_preamble(code, f"\\providecommand{{\\{name}}}[1]{{#1}}"),
                    f"define \\{name}")
    if "forget a semicolon" in error:
        return _semicolons(code), "semicolon"
    k = re.search(r"I do not know the key '/tikz/([^']+)'", error)
    if k:
        key = k.group(1).split("=")[0].strip()
        lib = KEY_LIBRARIES.get(key)
        if lib:
            return _preamble(code, f"\\usetikzlibrary{{{lib}}}"), f"library {lib}"
        pat = re.compile(r"(?<=[\[,])\s*" + re.escape(key) + r"\s*(=\s*[^,\]]*)?\s*(,|(?=\]))")
        return pat.sub("", code), f"drop key {key}"
    a = re.search(r"Unknown arrow tip kind '([^']+)'", error)
    if a:
        return _preamble(code, "\\usetikzlibrary{arrows.meta}"), "library arrows.meta"
    e = re.search(r"Environment (\w+) undefined", error)
    if e and e.group(1) in ENV_PACKAGES:
        pkg = ENV_PACKAGES[e.group(1)]
        return _preamble(code, f"\\usepackage{{{pkg}}}"), f"package {pkg}"
    return code, ""
