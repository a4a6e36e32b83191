"""Many pictures in one TeX run: which may share a run, and the document that holds them.

Each picture becomes one page of a ``standalone`` document. Its preamble holds the blocks
that must be global (packages, preamble-only commands, document defaults); each page holds
the picture's own definitions inside a group, so they cannot leak into the next page. A
page-local block that a later global block depends on (``\\let\\Im\\relax`` before
``\\DeclareMathOperator{\\Im}{Im}``) is global too, in its place: moving the global block
ahead of it would reverse what the author wrote.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from diagramforge.formats.tikz.notation import control_sequences
from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.preamble import parse_preamble

RANDOM_SEED = 20240101
CLASS_LINE = r"\documentclass[multi=dfpage,border=2pt]{standalone}"
PAGE_ENV = "\n".join([r"\newenvironment{dfpage}{}{}", r"\standaloneenv{dfpage}"])
PAGE_MARK = "dfpage-start "
# Packages safe to preload into a shared format when a document loads them first, without
# options: loading them is all they do to a picture, and they are the slow part of a run.
PRELOADABLE = frozenset({
    "tikz", "pgf", "pgfplots", "amsmath", "amssymb", "amsfonts", "amsthm", "mathtools", "bm",
    "xcolor", "graphicx", "tikz-cd", "circuitikz", "forest", "array", "calc",
})
_PLAIN_PKG = re.compile(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}")
_PASS_OPTIONS = re.compile(r"\\PassOptionsToPackage\{[^{}]*\}\{[^{}]*\}")

# Blocks that must stay in the preamble of a batch (packages; what only the preamble
# allows; what changes the document's defaults), as opposed to a page's own definitions,
# which go inside its page, a group, so that they cannot leak into the next page.
_GLOBAL = re.compile(
    r"^\\(?:usepackage|RequirePackage|PassOptionsToPackage|usetikzlibrary|usepgflibrary|"
    r"usepgfplotslibrary|DeclareMathOperator|DeclareUnicodeCharacter|DeclareFontFamily|"
    r"DeclareFontShape|DeclareSymbolFont|DeclareMathSymbol|DeclareMathAlphabet|"
    r"SetSymbolFont|AtBeginDocument|AtEndDocument|begin\s*\{filecontents)"
    r"|\\(?:familydefault|rmdefault|sfdefault|ttdefault|encodingdefault|seriesdefault|"
    r"shapedefault|normalsize|pgfplotsset\s*\{\s*compat)(?![A-Za-z@])")
_LIBRARY = re.compile(r"^\\use(?:tikz|pgf|pgfplots)library")


def split_preloadable(blocks: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The leading run of preloadable ``\\usepackage`` blocks (and the options passed to
    them), and the rest.

    Only a *prefix* goes into the format, so the document's load order is kept exactly; a
    format is keyed by its exact blocks, options included.
    """
    k = 0
    for b in blocks:
        if _PASS_OPTIONS.fullmatch(b.strip()):
            k += 1
            continue
        m = _PLAIN_PKG.fullmatch(b.strip())
        if not m or not all(p.strip() in PRELOADABLE for p in m.group(1).split(",")):
            break
        k += 1
    return tuple(blocks[:k]), list(blocks[k:])


def format_source(head: tuple[str, ...]) -> str:
    """The preamble a format is dumped from (also the skipped prefix of each document)."""
    return "\n".join([CLASS_LINE, *head, PAGE_ENV])


def is_global(block: str) -> bool:
    """Whether a preamble block must stay in the preamble when pages share a run, by its
    own kind (see :func:`global_flags` for the blocks global because of others)."""
    return bool(_GLOBAL.search(block.strip()))


@functools.lru_cache(maxsize=8192)
def _defines(block: str) -> frozenset[str]:
    """Control sequence names a block (re)defines."""
    return frozenset(n[1:] for d in parse_preamble(block) for n in d.defines
                     if n.startswith("\\"))


def global_flags(blocks: list[str]) -> list[bool]:
    """Per block: does it stay in the preamble of a batch?

    Global by kind (:func:`is_global`), or because a later global block mentions a name it
    defines (``\\let\\Im\\relax`` before ``\\DeclareMathOperator{\\Im}{Im}``): such a block
    keeps its place before the block that depends on it.
    """
    flags = [is_global(b) for b in blocks]
    needed: set[str] = set()
    for k in range(len(blocks) - 1, -1, -1):
        if not flags[k] and _defines(blocks[k]) & needed:
            flags[k] = True
        if flags[k]:
            needed |= control_sequences(blocks[k])
    return flags


def global_blocks(doc: Standalone) -> list[str]:
    return [b for b, g in zip(doc.blocks, global_flags(doc.blocks), strict=True) if g]


def local_blocks(doc: Standalone) -> list[str]:
    return [b for b, g in zip(doc.blocks, global_flags(doc.blocks), strict=True) if not g]


def batch_key(doc: Standalone) -> tuple[str, ...]:
    """Documents with the same key can share one run (one page each).

    The key is every global block but the TikZ libraries, in order: pages of one run share
    packages and document defaults exactly; libraries are unioned (loading one more
    library does not change a picture), and each page's own definitions stay in its page.
    A whole document (``doc.document``) shares a run with nothing.
    """
    if doc.document is not None:
        return ("% document", hashlib.sha256(doc.document.encode()).hexdigest())
    key = tuple(b for b in global_blocks(doc) if not _LIBRARY.match(b.strip()))
    # pages share a directory: pictures with files of their own run only with pictures
    # that have the very same files
    return key + (f"% assets {assets_digest(doc)}",) if doc.assets else key


def assets_digest(doc: Standalone) -> str:
    h = hashlib.sha256()
    for name in sorted(doc.assets):
        h.update(name.encode() + b"\0" + hashlib.sha256(doc.assets[name]).digest())
    return h.hexdigest()


def write_assets(docs: list[Standalone], job: Path) -> None:
    """The pictures' binary files, under the names their code uses (names were checked to
    stay inside the job directory at extraction; checked again here)."""
    for d in docs:
        for name, data in d.assets.items():
            target = (job / name).resolve()
            if not target.is_relative_to(job.resolve()):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def union_blocks(docs: list[Standalone]) -> list[str]:
    """The global preamble blocks of several documents, each once, in first-seen order."""
    blocks: list[str] = []
    for d in docs:
        for b in global_blocks(d):
            if b not in blocks:
                blocks.append(b)
    return blocks


def compose(docs: list[Standalone], head: tuple[str, ...] | None) -> str:
    """One compile document with one page per figure.

    The preamble holds the global blocks (see :func:`global_flags`); each page holds its own
    definitions and then its picture, inside ``dfpage`` (a group), announced in the log so
    a failure can be traced to its page.  With ``head`` (the blocks preloaded in a format)
    the preamble up to ``\\endofdump`` is the format's source, skipped at load.  A whole
    document (``docs[0].document``) is compiled as it is written.
    """
    if len(docs) == 1 and docs[0].document is not None:
        return docs[0].document
    blocks = union_blocks(docs)
    # every page starts from the same random state, so a figure using rnd draws the same
    # alone, in a batch, or from the cache; \message flushes the terminal, so the mark
    # reaches the watchdog (sandbox.run_sandboxed's step) before the page runs
    pages = "\n".join(
        f"\\typeout{{{PAGE_MARK}{k}}}\\message{{}}\\begin{{dfpage}}\\pgfmathsetseed{{{RANDOM_SEED}}}\n"
        + "".join(b + "\n" for b in local_blocks(d))
        + f"{d.body}\n\\end{{dfpage}}" for k, d in enumerate(docs))
    if head is not None:
        rest = blocks[len(head):]
        pre = format_source(head) + "\n\\endofdump\n" + "\n".join(rest)
    else:
        pre = "\n".join([CLASS_LINE, *blocks, PAGE_ENV])
    return f"{pre}\n\\begin{{document}}\n{pages}\n\\end{{document}}\n"


def pages_begun(out: str) -> set[int]:
    """The pages a batch's run began, from the page marks in its terminal output (each is
    flushed before its page runs, so a run killed on a page has that page's mark)."""
    return {int(m) for m in re.findall(re.escape(PAGE_MARK) + r"(\d+)", out)}


def failed_page(log: str) -> int | None:
    """The page being typeset when the first error struck (from the page marks)."""
    first = log.find("\n!")
    text = log[:first] if first >= 0 else log
    marks = re.findall(re.escape(PAGE_MARK) + r"(\d+)", text)
    return int(marks[-1]) if marks else None
