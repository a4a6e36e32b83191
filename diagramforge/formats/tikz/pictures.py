"""TikZ pictures: find them in a paper, attach caption/label/context, make standalone docs.

The standalone document keeps the picture byte-for-byte and brings only the preamble
definitions it uses (see :mod:`preamble`), so that a picture that compiles inside its paper
also compiles alone — and the record's ``code`` is small enough to learn from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from diagramforge.formats.tikz.needs import Needs, loaded_by, needs
from diagramforge.formats.tikz.notation import (
    origin_at,
    preamble_blocks,
    read_group,
    read_optional,
    strip_comments,
    strip_markers,
)
from diagramforge.formats.tikz.preamble import Definition, Kind, closure
from diagramforge.formats.tikz.wrappers import Wrappers, definition_spans, macro_spans

STANDALONE_CLASS = r"\documentclass[border=2pt]{standalone}"
# Packages that bring TikZ themselves; without one of them we add \usepackage{tikz}.
# (tikz-3dplot and pgf are not among them: they load pgf, and tikz-3dplot then calls
# \usetikzlibrary, which needs TikZ loaded before it)
TIKZ_PROVIDERS = frozenset({"tikz", "pgfplots", "circuitikz", "tikz-cd", "forest",
                            "tikz-network", "tkz-euclide", "tikz-qtree", "chemfig",
                            "tikz-feynman", "neuralnetwork"})
ADDED_KINDS = (Kind.STYLE, Kind.MACRO, Kind.ENVIRONMENT, Kind.SETTING, Kind.STATEMENT)
"""Definitions whose text is read for names, with the picture's: a style the document
defines may use a library's keys (``mystate/.style={state, accepting}``)."""
FIGURE_ENVS = ("figure", "figure*", "wrapfigure", "subfigure", "SCfigure", "table", "table*")
_REF = re.compile(r"\\(?:ref|cref|Cref|autoref|vref|subref)\*?\s*\{([^}]*)\}")


@dataclass
class Picture:
    """One picture found in a document body."""

    env: str  # tikzpicture, tikzcd, forest, circuitikz, or "tikz" for the \tikz command
    text: str
    start: int
    end: int
    origin: str = ""
    caption: str | None = None
    label: str | None = None
    context: list[str] = field(default_factory=list)


def _env_spans(body: str, env: str) -> list[tuple[int, int]]:
    """(start, end) of each outermost ``\\begin{env}..\\end{env}``, nesting-aware."""
    pat = re.compile(r"\\(begin|end)\s*\{" + re.escape(env) + r"\}")
    spans, depth, start = [], 0, 0
    for m in pat.finditer(body):
        if m.group(1) == "begin":
            if depth == 0:
                start = m.start()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, m.end()))
    return spans


def _tikz_commands(body: str, name: str = "tikz") -> list[tuple[int, int]]:
    """Spans of ``\\tikz[opts]{...}`` and ``\\tikz[opts] ... ;`` commands (and of commands
    with the same syntax, such as ``\\feynmandiagram[opts]{...};``)."""
    spans = []
    for m in re.finditer(r"\\" + re.escape(name) + r"(?![A-Za-z@])", body):
        _, pos = read_optional(body, m.end())
        g = read_group(body, pos)
        if g:
            end = g[1]
            semi = re.match(r"\s*;", body[end:])
            spans.append((m.start(), end + semi.end() if semi and name != "tikz" else end))
            continue
        depth, j = 0, pos
        while j < len(body):
            c = body[j]
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth < 0:
                    break
            elif c == ";" and depth == 0:
                spans.append((m.start(), j + 1))
                break
            elif body.startswith("\n\n", j):
                break
            j += 1
    return spans


def find_pictures(body: str, environments: list[str], tikz_commands: bool,
                  commands: tuple[str, ...] | list[str] = ("tikz",),
                  wrappers: Wrappers | None = None) -> list[Picture]:
    """Outermost pictures in document order; a picture nested in another is part of it.

    With ``wrappers`` (the document's own environments and macros that draw a picture,
    :mod:`tikz_wrappers`) their uses are pictures too, and what lies inside the body's
    definitions is not."""
    spans: list[tuple[int, int, str]] = []
    for env in environments:
        spans += [(s, e, env) for s, e in _env_spans(body, env)]
    if tikz_commands:
        for cmd in commands:
            spans += [(s, e, cmd) for s, e in _tikz_commands(body, cmd)]
    if wrappers is not None:
        for env in sorted(wrappers.environments - set(environments)):
            spans += [(s, e, env) for s, e in _env_spans(body, env)]
        for name, nargs in sorted(wrappers.macros.items()):
            spans += [(s, e, name) for s, e in macro_spans(body, name, nargs)]
        defined = definition_spans(body)
        spans = [t for t in spans if not any(a <= t[0] < b for a, b in defined)]
    spans.sort(key=lambda t: (t[0], -t[1]))
    out: list[Picture] = []
    last_end = -1
    for s, e, env in spans:
        if s < last_end:  # nested inside the previous picture
            continue
        out.append(Picture(env=env, text=strip_markers(body[s:e]), start=s, end=e,
                           origin=origin_at(body, s)))
        last_end = e
    return out


_CLASS = re.compile(r"\\documentclass\s*(?:\[([^\]]*)\])?\s*\{([^}]*)\}")
_ACTIVE_PREVIEW = re.compile(
    r"\\usepackage\s*\[[^\]]*\bactive\b[^\]]*\]\s*\{[^}]*\bpreview\b[^}]*\}")


def page_spans(preamble: str, body: str) -> list[tuple[int, int]] | None:
    """The pages of a document that is itself a figure, or None for an ordinary document.

    A ``standalone`` document (without ``tikz``/``multi``, which make each picture its own
    page) is one page: its whole body.  An ``article`` with ``preview`` active makes one
    page per ``preview`` environment and drops the rest.  Pages are what the author saw, so
    a page holding more than one picture, or a table with an overlay, is taken as it is.
    """
    m = _CLASS.search(preamble)
    if m and m.group(2).strip() == "standalone":
        opts = {o.split("=")[0].strip() for o in (m.group(1) or "").split(",")}
        if opts & {"tikz", "multi"}:
            return None
        return [(0, len(body))]
    if _ACTIVE_PREVIEW.search(preamble):
        spans = _env_spans(body, "preview")
        if not spans:  # \PreviewEnvironment{tikzpicture}: each picture is its own page
            return None
        return [(s + len(r"\begin{preview}"), e - len(r"\end{preview}")) for s, e in spans]
    return None


def _has_content(text: str) -> bool:
    """Whether text typesets anything besides statements (``\\tdplotsetmaincoords{..}``)."""
    text = strip_markers(strip_comments(text))
    text = re.sub(r"\\[A-Za-z@]+\*?\s*(?:\[[^\]]*\]\s*)*(?:\{(?:[^{}]|\{[^{}]*\})*\}\s*)*",
                  "", text)
    return bool(re.sub(r"[\s{}]", "", text))


def pages_as_pictures(body: str, pages: list[tuple[int, int]], pictures: list[Picture]
                      ) -> list[Picture]:
    """One picture per page: the page's only picture when nothing else is typeset on it,
    else the whole page as it is (env ``page``)."""
    out: list[Picture] = []
    for s, e in pages:
        inside = [p for p in pictures if s <= p.start and p.end <= e]
        rest = body[s:e]
        for p in sorted(inside, key=lambda p: -p.start):
            rest = rest[:p.start - s] + rest[p.end - s:]
        if len(inside) == 1 and not _has_content(rest):
            out.append(inside[0])
        elif inside or strip_comments(strip_markers(body[s:e])).strip():
            out.append(Picture(env="page", text=strip_markers(body[s:e]).strip(), start=s,
                               end=e, origin=origin_at(body, s)))
    return out


_LABEL = re.compile(r"\\label\s*\{[^{}]*\}")


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", strip_markers(text)).strip()


def _first_arg(text: str, cmd: str) -> str | None:
    m = re.search(r"\\" + cmd + r"\*?(?![A-Za-z@])", text)
    if not m:
        return None
    _, pos = read_optional(text, m.end())
    g = read_group(text, pos)
    return _clean(g[0]) if g else None


def attach_context(body: str, pictures: list[Picture], max_paragraphs: int) -> None:
    """Fill caption and label from the enclosing figure, context from paragraphs citing it."""
    figures: list[tuple[int, int]] = []
    for env in FIGURE_ENVS:
        figures += _env_spans(body, env)
    for pic in pictures:
        encl = [(s, e) for s, e in figures if s <= pic.start and pic.end <= e]
        if not encl:
            continue
        s, e = max(encl, key=lambda t: t[0])  # innermost
        fig = body[s:e]
        caption = _first_arg(fig, "caption")
        # \caption{\label{fig:x} Text}: the label is metadata, not caption text
        pic.caption = _LABEL.sub("", caption).strip() or None if caption else None
        pic.label = _first_arg(fig, "label")
    paragraphs = [p for p in re.split(r"\n\s*\n", _without_figures(body, figures)) if p.strip()]
    for pic in pictures:
        if not pic.label:
            continue
        hits = [_clean(p) for p in paragraphs
                if any(pic.label in [x.strip() for x in m.group(1).split(",")]
                       for m in _REF.finditer(p))]
        pic.context = hits[:max_paragraphs]


def _without_figures(body: str, figures: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for s, e in sorted(figures):
        if s < pos:
            continue
        out.append(body[pos:s])
        out.append("\n\n")
        pos = e
    out.append(body[pos:])
    return "".join(out)


@dataclass
class Standalone:
    """A standalone document as parts, so a compiler can batch or precompile the preamble;
    or, with ``document``, a whole document compiled as it is written (the ladder's last
    rung: the source's own class and preamble), which shares a run with no other."""

    blocks: list[str]
    body: str
    dropped: list[str] = field(default_factory=list)
    assets: dict[str, bytes] = field(default_factory=dict)
    """Binary files the picture reads (``\\includegraphics{road.jpg}``), by the name it uses;
    written beside the document when it compiles. Text data travels inside ``blocks``."""
    document: str | None = None
    needs: Needs = field(default_factory=Needs)
    """The loads added for the picture's names (:mod:`tikz_needs`), part of ``blocks``."""

    @classmethod
    def from_document(cls, code: str, assets: dict[str, bytes] | None = None) -> Standalone:
        """A whole document from elsewhere (an edit, a variation, a file to score) as parts:
        its preamble read into whole constructs (:func:`preamble_blocks`: a batch moves
        blocks between its preamble and its page, so a construct split into lines can
        swallow the document), its class dropped, its body, and the files it reads beside
        its code (``assets``)."""
        head, _, rest = code.partition(r"\begin{document}")
        body = rest.rsplit(r"\end{document}", 1)[0]
        blocks = [b for b in preamble_blocks(head)
                  if not b.lstrip().startswith("\\documentclass")]
        return cls(blocks=blocks, body=body.strip(), assets=assets or {})

    @property
    def code(self) -> str:
        if self.document is not None:
            return self.document
        return "\n".join([STANDALONE_CLASS, *self.blocks, r"\begin{document}", self.body,
                          r"\end{document}", ""])


def usable(package: str, options: str | None, available: Callable[[str], bool]) -> bool:
    """Whether a package loads here: installed, and for babel, every language installed
    (a figure's labels rarely need the language; a missing one fails every figure)."""
    if not available(package):
        return False
    if package == "babel" and options:
        langs = [o.strip() for o in options.split(",") if o.strip() and "=" not in o]
        return all(available(f"{lang}.ldf") for lang in langs)
    return True


def _drop_unavailable(d: Definition, available: Callable[[str], bool]) -> tuple[str, list[str]]:
    m = re.match(r"\\(?:usepackage|RequirePackage)\s*\[([^\]]*)\]", d.text)
    keep = [p for p in d.packages if usable(p, m.group(1) if m else None, available)]
    dropped = [p for p in d.packages if p not in keep]
    if not dropped:
        return d.text, []
    if not keep:
        return "", dropped
    m = re.match(r"\\(?:usepackage|RequirePackage)\s*(\[[^\]]*\])?", d.text)
    opt = m.group(1) if m and m.group(1) else ""
    return f"\\usepackage{opt}{{{','.join(keep)}}}", dropped


def standalone(picture: Picture, defs: list[Definition],
               available: Callable[[str], bool] | None = None,
               macro_packages: bool = True) -> Standalone:
    """The minimal standalone document for one picture.

    ``available`` tells whether a package is installed; packages that are not (a paper's
    private .sty, a typo) are dropped and listed, since keeping them guarantees failure.
    The libraries and packages the picture's names need and the document does not load are
    added (:func:`~diagramforge.formats.tikz.needs.needs`; with ``macro_packages`` false, no
    package for a macro alone: the document's class may define it) and listed in
    ``needs``.
    """
    chosen = closure(defs, picture.text)
    blocks, dropped = [], []
    for d in chosen:
        text = d.text
        if d.kind == Kind.PACKAGE and available is not None:
            text, gone = _drop_unavailable(d, available)
            dropped += gone
        if text:
            blocks.append(text)
    pkgs = {p for d in chosen for p in d.packages}
    # package options passed on (class options such as svgnames reach xcolor this way) must
    # precede every package load, including the ones added below
    passed = [b for b in blocks if b.startswith("\\PassOptionsToPackage")]
    blocks = passed + [b for b in blocks if b not in passed]
    at = len(passed)
    # what the picture's keys, shapes, tips and macros need that the document lacks (an
    # axis and no pgfplots, state and no automata): the generated table's loads
    text = "\n".join([picture.text, *(d.inner or d.text for d in chosen
                                       if d.kind in ADDED_KINDS)])
    need = needs(text, loaded_by(blocks), {n for d in defs for n in d.defines}, available,
                 macro_packages)
    for block in reversed(need.package_blocks()):
        blocks.insert(at, block)
    pkgs |= set(need.packages)
    if not pkgs & TIKZ_PROVIDERS:
        blocks.insert(at, r"\usepackage{tikz}")
    else:
        # \usetikzlibrary needs TikZ loaded: when the first library comes before any TikZ
        # provider, load tikz right there, so libraries keep their place before the styles
        # that need them
        first_lib = next((k for k, d in enumerate(chosen) if d.kind == Kind.LIBRARY), None)
        if first_lib is not None and not any(
            d.kind == Kind.PACKAGE and set(d.packages) & TIKZ_PROVIDERS
            for d in chosen[:first_lib]
        ):
            blocks.insert(blocks.index(chosen[first_lib].text), r"\usepackage{tikz}")
    if need.library_blocks():
        where = _after_loads(blocks)
        blocks[where:where] = need.library_blocks()
    # macros with @ in their names (from a paper's own .sty) need \makeatletter around them
    blocks = [f"\\makeatletter\n{b}\n\\makeatother" if _AT_CS.search(b) else b
              for b in blocks]
    return Standalone(blocks=blocks, body=picture.text.strip(), dropped=dropped,
                      needs=need)


_LOAD_BLOCK = re.compile(r"\\(?:usepackage|RequirePackage|usetikzlibrary|usepgflibrary|"
                         r"usepgfplotslibrary|PassOptionsToPackage)\b")


def _after_loads(blocks: list[str]) -> int:
    """Where added libraries go: after the first block that brings TikZ and the loads that
    follow it, before the styles and settings (``every state/.style`` set before
    ``automata`` loads would be reset by it)."""
    first = next((k for k, b in enumerate(blocks)
                  if loaded_by([b]) & {f"package:{p}" for p in TIKZ_PROVIDERS}), None)
    if first is None:
        return len(blocks)
    k = first + 1
    while k < len(blocks) and _LOAD_BLOCK.match(blocks[k]):
        k += 1
    return k


_AT_CS = re.compile(r"\\[A-Za-z]*@[A-Za-z@]*")

# Code that reaches outside the picture: harmless in our sandbox (no shell escape, paranoid
# file access) but dangerous to whoever compiles the published dataset with --shell-escape.
_UNSAFE = [
    ("shell escape", re.compile(r"\\(?:immediate\s*)?\\write\s*18|\\write18|\\ShellEscape"
                                r"|\\pdfshellescape|\\shellesc")),
    ("lua code", re.compile(r"\\(?:directlua|luaexec|luadirect|latelua|luafunction)(?![A-Za-z@])"
                            r"|\\begin\s*\{luacode\*?\}")),
    ("file write", re.compile(r"\\openout(?![A-Za-z@])")),
    ("file read", re.compile(r"\\(?:openin|read)(?![A-Za-z@])"
                             # a file's bytes copied into the PDF (pdfTeX, LuaTeX, xdvipdfmx)
                             r"|\\(?:pdfobj|pdfextension\s*obj)\b[^{}\\]*\bfile\b"
                             r"|pdf:fstream")),
    ("input outside the document",
     re.compile(r"\\(?:input|include|InputIfFileExists|openin\d*)\s*\{?\s*"
                r"(?:/|~|\.\./|[A-Za-z]:\\\\)"
                # an image by absolute path (XeTeX and LuaTeX would embed it)
                r"|\\(?:includegraphics\*?(?:\s*\[[^\]]*\])*|pgfimage(?:\s*\[[^\]]*\])*"
                r"|pdfximage|XeTeXpicfile|XeTeXpdffile)\s*[{\"]?\s*(?:/|~|[A-Za-z]:\\\\)")),
]


def unsafe_constructs(code: str) -> list[str]:
    """What in ``code`` would act outside the picture when compiled with shell escape."""
    return [what for what, pat in _UNSAFE if pat.search(code)]
