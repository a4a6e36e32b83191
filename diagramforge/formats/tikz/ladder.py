"""The ladder of documents a picture climbs until one compiles (``preamble_mode``).

1. ``minimal``  the picture with only the preamble definitions it uses (extract_paper);
2. ``preamble`` the source's own preamble, verbatim (in the standalone class);
3. ``setup``    that, plus the body-level statements made before the picture;
4. ``source``   the source document itself: for a document that is a figure
   (``standalone``, active ``preview``), the file as the author wrote it; for a picture
   inside a paper, the paper's own class and preamble, the body-level setup, the picture.

The last rung is what makes the toolkit's yield at least plain pdfLaTeX's on any corpus:
whatever compiles as the author wrote it compiles here, the minimal rungs only add
smaller documents on top.  The files a source document reads (the paper's own classes and
packages, data, images) travel with it, in ``meta``'s ``assets``.
"""

from __future__ import annotations

import base64
import posixpath
import re
from collections.abc import Callable
from enum import StrEnum

from diagramforge.formats.tikz import notation as latex
from diagramforge.formats.tikz.needs import loaded_by, table
from diagramforge.formats.tikz.pictures import (
    TIKZ_PROVIDERS,
    Picture,
    Standalone,
    unsafe_constructs,
    usable,
)
from diagramforge.formats.tikz.preamble import SKIP_PACKAGES, skip_groups


class PreambleMode(StrEnum):
    """The rungs of the preamble ladder, in the order they are tried (``preamble_mode``)."""

    MINIMAL = "minimal"  # only the definitions the picture uses, in source order
    PREAMBLE = "preamble"  # the source's own preamble, verbatim
    SETUP = "setup"  # that, plus the body-level statements before the picture
    SOURCE = "source"  # the source document itself, as written


_CLASS = re.compile(r"\\documentclass\s*(?:\[([^\]]*)\])?\s*\{([^}]*)\}")
_CLASS_LINE = re.compile(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{[^}]*\}")
USEPKG = re.compile(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
XCOLOR_CLASS_OPTIONS = frozenset({"dvipsnames", "svgnames", "x11names", "table",
                                  "usenames"})


PLAIN_CLASSES = frozenset({"", "article", "report", "book", "standalone", "minimal",
                           "scrartcl", "scrreprt", "scrbook", "memoir", "amsart"})
"""Classes that define no picture macros: a picture in one gets the packages its macros
need; in any other (beamer's ``\\only``, a journal's own) only libraries are added."""


def class_name(preamble: str) -> str:
    m = _CLASS.search(preamble)
    return m.group(2).strip() if m else ""


def class_head(preamble: str) -> list[str]:
    """What the source's class line does for its pictures, as blocks the standalone
    document (another class) can carry: class options that reach xcolor (``svgnames``…)
    passed on, and TikZ itself when the class loads it (``\\documentclass[tikz]{standalone}``).
    """
    m = _CLASS.search(preamble)
    opts = [o.strip() for o in (m.group(1) or "").split(",")] if m else []
    colour_opts = [o for o in opts if o in XCOLOR_CLASS_OPTIONS]
    head = ([f"\\PassOptionsToPackage{{{','.join(colour_opts)}}}{{xcolor}}"]
            if colour_opts else [])
    if m and m.group(2).strip() == "standalone" and "tikz" in opts:
        head.append(r"\usepackage{tikz}")
    return head


def verbatim_preamble(source_pre: str, available: Callable[[str], bool]) -> str:
    """The source's preamble as it is, for the ladder's second rung: only the class line,
    page-shaping packages (which fight the standalone class) and packages not installed
    here are taken out."""
    text = _CLASS_LINE.sub("", latex.strip_comments(source_pre), count=1)

    def repl(m: re.Match) -> str:
        names = [n.strip() for n in m.group(1).split(",") if n.strip()]
        opts = re.match(r"\\(?:usepackage|RequirePackage)\s*\[([^\]]*)\]", m.group(0))
        keep = [n for n in names if n not in SKIP_PACKAGES
                and usable(n, opts.group(1) if opts else None, available)]
        if keep == names:
            return m.group(0)
        if not keep:
            return ""
        opt = re.match(r"\\(?:usepackage|RequirePackage)\s*(\[[^\]]*\])?", m.group(0))
        return f"\\usepackage{(opt.group(1) or '') if opt else ''}{{{','.join(keep)}}}"

    text = USEPKG.sub(repl, text)
    text = _drop_statements(text, _PAGE_COMMANDS)
    return re.sub(r"\n\s*\n+", "\n", text).strip()


# Statements that configure the page-shaping packages we leave out (or the front matter):
# without their package they are errors, and a figure never needs them.
_PAGE_COMMANDS = re.compile(
    r"\\(?:hypersetup|geometry|captionsetup|setlist|crefname|Crefname|bibliographystyle|"
    r"addbibresource|pagestyle|thispagestyle|linenumbers|doublespacing|onehalfspacing|"
    r"title|author|date|affil|keywords|PreviewEnvironment|PreviewMacro|"
    r"(?:setlength|addtolength)\s*\{?\s*\\Preview[A-Za-z]*\}?)(?![A-Za-z@])")


def _drop_statements(text: str, pattern: re.Pattern[str]) -> str:
    out, pos = [], 0
    for m in pattern.finditer(text):
        if m.start() < pos:
            continue
        out.append(text[pos:m.start()])
        pos = skip_groups(text, m.end())
    out.append(text[pos:])
    return "".join(out)


_ACTIVE_PREVIEW = re.compile(
    r"\\usepackage\s*\[[^\]]*\bactive\b[^\]]*\]\s*\{[^}]*\bpreview\b[^}]*\}")


def source_document(preamble: str, pic: Picture, setup: list[str],
                    as_written: str | None, preview_pages: bool = False) -> str:
    """The ladder's last rung: the picture in its source document.

    ``as_written`` is the whole file when the document is itself one figure (a one-page
    ``standalone`` or ``preview`` document): then that file is the document, unchanged.
    Otherwise the paper's own class and preamble (``preamble``, flattened), the
    body-level setup made before the picture, and the picture — on a page with no header
    or footer (the crop must find only the picture), inside a ``preview`` environment when
    the document's pages are those (``preview_pages``; a document that declares the
    picture's environment a preview environment needs no wrapper).
    """
    if as_written is not None:
        return as_written
    m = _CLASS.search(preamble)
    standalone_class = bool(m) and m.group(2).strip() == "standalone"
    preview = bool(_ACTIVE_PREVIEW.search(preamble))
    body = pic.text.strip()
    if preview and preview_pages:
        body = f"\\begin{{preview}}\n{body}\n\\end{{preview}}"
    elif not standalone_class and not preview:
        body = f"\\pagestyle{{empty}}\\thispagestyle{{empty}}\n\\noindent\n{body}"
    return "\n".join([preamble.strip(), r"\begin{document}", *setup, body,
                      r"\end{document}", ""])


SUPPORT_EXTENSIONS = (".sty", ".cls", ".clo", ".def", ".cfg", ".fd", ".ldf", ".tex", ".tikz",
                      ".pgf", ".bst")
_NAMED = re.compile(r"\\(?:usepackage|RequirePackage|documentclass|LoadClass|input|include"
                    r"|InputIfFileExists|usetheme|usecolortheme|usefonttheme)"
                    r"\s*(?:\[[^\]]*\]\s*)?\{([^}]*)\}")


_TOKEN = re.compile(r"[\w./-]+")


def support_files(raw: dict[str, bytes], root: str, text: str, max_bytes: int
                  ) -> dict[str, bytes]:
    """The source's own files a document reads (its local classes and packages, their own
    local dependencies, the data and images it names), by the name relative to the root's
    directory; none when together they exceed ``max_bytes`` (the rung then fails, as the
    paper would without them)."""
    base = posixpath.dirname(root)
    rel = {posixpath.relpath(k, base) if base else k: k for k in raw}
    rel = {r: k for r, k in rel.items() if not r.startswith("../") and k != root}
    out: dict[str, bytes] = {}
    todo = [text]
    while todo:
        chunk = todo.pop()
        names = {n.strip() for group in _NAMED.findall(chunk) for n in group.split(",")}
        for name in names:
            for cand in (name, *(name + e for e in SUPPORT_EXTENSIONS)):
                if cand in rel and cand not in out:
                    out[cand] = raw[rel[cand]]
                    if cand.endswith(SUPPORT_EXTENSIONS):
                        todo.append(latex.decode(out[cand]))
    # data and images named anywhere in the document (\addplot table {data.csv},
    # \includegraphics{fig}): by name or by name without extension, as TeX finds them
    tokens = set(_TOKEN.findall(text))
    for r, k in rel.items():
        if r not in out and not r.endswith(SUPPORT_EXTENSIONS) and (
                r in tokens or posixpath.splitext(r)[0] in tokens):
            out[r] = raw[k]
    if sum(len(v) for v in out.values()) > max_bytes:
        return {}
    return out


def ladder(doc: Standalone, pic: Picture, head: list[str], verbatim: str,
           setup: list[str], data: list[str], source: Standalone | None) -> list[dict]:
    """The documents to try, in order, when the minimal one does not compile (each once;
    a rung whose code does something unsafe is left out)."""
    head = list(head)
    names = {n.strip() for group in USEPKG.findall("\n".join([*head, verbatim]))
             for n in group.split(",")}
    # the loads the picture's names need (found for the minimal document), less what the
    # source's own preamble loads
    need = doc.needs.without(table().provides(loaded_by([*head, verbatim])))
    head += [b for b, p in zip(need.package_blocks(), need.packages, strict=True)
             if p not in names]
    names |= set(need.packages)
    if not names & TIKZ_PROVIDERS:
        head.append(r"\usepackage{tikz}")
    tikz_first = bool(loaded_by(head) & {f"package:{p}" for p in TIKZ_PROVIDERS})
    libs = need.library_blocks()
    pre = [*head, *libs, verbatim] if tikz_first else [*head, verbatim, *libs]
    blocks = [*[b for b in pre if b], *data]
    added = need.meta()
    rungs = [(PreambleMode.PREAMBLE, Standalone(blocks=blocks, body=doc.body))]
    if setup:
        rungs.append((PreambleMode.SETUP,
                      Standalone(blocks=blocks, body="\n".join([*setup, doc.body]))))
    if source is not None:
        rungs.append((PreambleMode.SOURCE, source))
    out, codes = [], {doc.code}
    for mode, rung in rungs:
        if rung.code in codes or unsafe_constructs(rung.code):
            continue
        codes.add(rung.code)
        if rung.document is not None:
            out.append({"mode": mode, "document": rung.document,
                        "assets": {k: base64.b64encode(v).decode()
                                   for k, v in rung.assets.items()}})
        else:
            out.append({"mode": mode, "blocks": rung.blocks, "body": rung.body, **added})
    return out
