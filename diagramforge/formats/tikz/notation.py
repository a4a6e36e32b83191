"""LaTeX source handling: comments, balanced groups, root detection, flattening.

Sources come from strangers, so nothing here executes TeX: it is a careful reader of the
text.  Flattening inlines ``\\input``, ``\\include``, ``\\subfile``, ``\\import`` and
``\\subimport`` and leaves invisible markers (``\\x01path\\x02`` … ``\\x03``) so a picture
found later can say which file it came from.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

FILE_START = "\x01"
FILE_NAME_END = "\x02"
FILE_END = "\x03"
_MARKERS = re.compile("\x01[^\x02]*\x02|\x03")

_COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%.*")
_VERBATIM = re.compile(r"\\begin\{(verbatim\*?|lstlisting|minted|comment)\}.*?\\end\{\1\}", re.S)
MAX_DEPTH = 16


def strip_comments(text: str) -> str:
    """Remove ``%`` comments (not ``\\%``), then verbatim-like blocks (in that order, so a
    commented-out ``\\begin{lstlisting}`` cannot swallow the text after it).

    TeX's ``%`` also eats the end of its line, which would otherwise be a space: ``{%`` at
    the end of a ``\\pgfmathdeclarefunction`` body keeps a space out of every evaluation
    (200 samples of a plot = 200 spaces, and the figure lands a page-width to the right).
    So a comment right after a non-blank character joins its line to the next (whose
    leading blanks TeX skips anyway) — exactly what TeX reads, with no ``%`` left for the
    readers of the text downstream (``\\tikzset{%`` keys, macro names) to trip over. After a
    blank, the line end is a redundant space and only the comment goes; a line that was
    only a comment goes whole (it must not become a paragraph break).
    """
    out: list[str] = []
    join = False  # the previous line's end was eaten by its comment
    for line in text.split("\n"):
        guarded = False
        if "%" in line:
            m = _COMMENT.search(line)
            if m is not None:
                before = line[m.start() - 1] if m.start() else ""
                guarded = bool(m.group(1)) or (bool(before) and not before.isspace())
                stripped = line[:m.start()] + m.group(1)
                if not stripped.strip() and line.strip():
                    continue  # comment-only: gone, and a pending join carries over
                line = stripped
        if join and out and line.strip():
            out[-1] += line.lstrip()
        else:
            out.append(line)
        join = guarded
    return _VERBATIM.sub("", "\n".join(out))


def strip_markers(text: str) -> str:
    return _MARKERS.sub("", text)


def strip_line_comments(text: str) -> str:
    """Remove ``%`` comments (not ``\\%``) line by line, keeping every line."""
    return "\n".join(_COMMENT.sub(r"\1", line) for line in text.split("\n"))


def read_balanced(text: str, i: int, open_: str, close: str, brace_safe: bool = False
                  ) -> tuple[str, int] | None:
    """The group that opens at ``text[i]`` (which must be ``open_``): (inner, index after).

    ``brace_safe`` skips ``{…}`` groups inside a ``[…]``/``(…)`` group, so ``[label={a]b}]``
    closes at the right bracket. None when no group starts there or it never closes.
    """
    n = len(text)
    if i >= n or text[i] != open_:
        return None
    depth = 0
    j = i
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return text[i + 1 : j], j + 1
        elif brace_safe and c == "{" and open_ != "{":
            g = read_balanced(text, j, "{", "}", brace_safe)
            if g is None:
                return None
            j = g[1]
            continue
        j += 1
    return None


def read_group(text: str, pos: int, open_: str = "{", close: str = "}") -> tuple[str, int] | None:
    """Read a balanced group starting at ``pos`` (after whitespace); return (inner, end).

    Returns None when no group starts there or it never closes.
    """
    i = pos
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return read_balanced(text, i, open_, close)


def split_top(text: str) -> list[str]:
    """Split an option list (``\\tikzset``'s, a key's value) on commas outside braces,
    brackets and parentheses, each part stripped (empty ones left out); an unmatched
    closer does not take the depth below 0."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def read_optional(text: str, pos: int) -> tuple[str | None, int]:
    """Read an optional ``[...]`` argument if present."""
    g = read_group(text, pos, "[", "]")
    return (g[0], g[1]) if g else (None, pos)


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_DOCCLASS = re.compile(r"\\documentclass\s*(\[[^\]]*\])?\s*\{([^}]*)\}")
_BEGIN_DOC = re.compile(r"\\begin\s*\{document\}")
_END_DOC = re.compile(r"\\end\s*\{document\}")
_ROOT_NAMES = ("main.tex", "ms.tex", "paper.tex", "article.tex", "root.tex")


def find_root(files: dict[str, str]) -> str | None:
    """Pick the root .tex file: a real documentclass (not a subfile) with a document body.

    Ties go to conventional names, then to the file that pulls in most others, then size.
    """
    cands = []
    for name, raw in files.items():
        if not name.lower().endswith((".tex", ".ltx")):
            continue
        text = strip_comments(raw)
        m = _DOCCLASS.search(text)
        if not m or m.group(2).strip() == "subfiles" or not _BEGIN_DOC.search(text):
            continue
        includes = len(re.findall(r"\\(?:input|include|subfile|import|subimport)\b", text))
        depth = name.count("/")
        cands.append((
            posixpath.basename(name).lower() not in _ROOT_NAMES, depth, -includes, -len(text),
            name,
        ))
    return min(cands)[-1] if cands else None


_INCLUDE = re.compile(r"\\(input|include|subfile|import|subimport|InputIfFileExists)\b\s*")


@dataclass
class FlattenResult:
    text: str
    missing: list[str]
    files_used: list[str]


def _resolve(files: dict[str, str], base_dir: str, name: str) -> str | None:
    name = name.strip().strip('"')
    cand = posixpath.normpath(posixpath.join(base_dir, name)) if base_dir else posixpath.normpath(
        name)
    for c in (cand, cand + ".tex"):
        if c in files:
            return c
    return None


def flatten(files: dict[str, str], root: str) -> FlattenResult:
    """Inline included files into one text with origin markers (comments stripped)."""
    missing: list[str] = []
    used: list[str] = []

    def body_of_subfile(text: str) -> str:
        b = _BEGIN_DOC.search(text)
        e = _END_DOC.search(text)
        if b and e and e.start() > b.end():
            return text[b.end() : e.start()]
        return text

    def expand(path: str, import_dir: str, depth: int, stack: tuple[str, ...]) -> str:
        used.append(path)
        text = strip_comments(files[path])
        out = []
        pos = 0
        for m in _INCLUDE.finditer(text):
            if m.start() < pos:
                continue
            cmd = m.group(1)
            end = m.end()
            if cmd in ("import", "subimport"):
                g1 = read_group(text, end)
                g2 = read_group(text, g1[1]) if g1 else None
                if not (g1 and g2):
                    continue
                sub_dir = posixpath.join(import_dir if cmd == "subimport" else "", g1[0].strip())
                target_dir, target, end = sub_dir, g2[0], g2[1]
            else:
                g = read_group(text, end)
                if not g:  # TeX primitive form: \input file
                    mm = re.match(r"([\w./-]+)", text[end:])
                    if not mm:
                        continue
                    g = (mm.group(1), end + mm.end())
                target_dir, target, end = import_dir, g[0], g[1]
            out.append(text[pos : m.start()])
            resolved = _resolve(files, target_dir, target) or _resolve(files, "", target)
            if resolved is None:  # keep the command: the sandbox, not us, decides
                missing.append(target)
                out.append(text[m.start() : end])
            elif resolved in stack or depth >= MAX_DEPTH:
                missing.append(f"{target} (cycle or too deep)")
            else:
                inner = expand(resolved, posixpath.dirname(resolved) if cmd in (
                    "import", "subimport") else import_dir, depth + 1, (*stack, resolved))
                if cmd == "subfile" or _DOCCLASS.search(inner):
                    # a subfile, or an \\input of a file that is a document of its own
                    # (the standalone package): only its body belongs here
                    inner = body_of_subfile(inner)
                sep = "\n\\clearpage\n" if cmd == "include" else ""
                out.append(f"{sep}{FILE_START}{resolved}{FILE_NAME_END}{inner}{FILE_END}{sep}")
            pos = end
        out.append(text[pos:])
        return "".join(out)

    text = f"{FILE_START}{root}{FILE_NAME_END}" + expand(root, "", 0, (root,)) + FILE_END
    return FlattenResult(text=text, missing=missing, files_used=used)


def origin_at(text: str, pos: int) -> str:
    """The file a position of flattened text came from."""
    stack: list[str] = []
    for m in _MARKERS.finditer(text, 0, pos):
        tok = m.group(0)
        if tok == FILE_END:
            if stack:
                stack.pop()
        else:
            stack.append(tok[1:-1])
    return stack[-1] if stack else ""


def split_document(text: str) -> tuple[str, str] | None:
    """(preamble, body) of a flattened document, or None without a document environment."""
    b = _BEGIN_DOC.search(text)
    if not b:
        return None
    e = _END_DOC.search(text, b.end())
    return text[: b.start()], text[b.end() : e.start() if e else len(text)]


_RAW_ENV = re.compile(r"\\begin\s*\{(filecontents\*?|verbatim\*?|comment)\}")
_ENV_TOKEN = re.compile(r"\\(begin|end)\s*\{")
_PACKAGE_LOAD = re.compile(r"\s*\\(?:usepackage|RequirePackage)(?![A-Za-z@])")


def _scan_line(line: str, depth: int, brackets: int) -> tuple[int, int, int, int | None]:
    """One line of TeX as the block splitter needs it: the brace depth after it, the
    option brackets open at brace depth 0 (``\\tikzstyle{box}=[`` … ``]``), the
    environments it opens minus those it closes at depth 0, and where a raw environment
    (``filecontents``…) begins at depth 0 (its text is data, not TeX: not scanned)."""
    envs, i, n = 0, 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            m = _ENV_TOKEN.match(line, i)
            if m and depth == 0:
                if m.group(1) == "begin" and _RAW_ENV.match(line, i):
                    return depth, brackets, envs, i
                envs += 1 if m.group(1) == "begin" else -1
            i += 2
            continue
        if c == "%":
            break
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "[" and depth == 0:
            brackets += 1
        elif c == "]" and depth == 0:
            brackets = max(0, brackets - 1)
        i += 1
    return depth, brackets, envs, None


def preamble_blocks(preamble: str) -> list[str]:
    """A preamble's top-level constructs, each whole and as written, in order.

    A line starts a new block only where every brace group, option list and environment
    opened before it is closed: ``\\tikzset{`` … ``}`` over four lines is one block, and so
    is a ``filecontents`` environment, whose lines are data (a batch moves blocks between
    its preamble and its pages; moving the data lines of
    ``\\begin{filecontents*}{loss.csv}`` without their opening line made the environment
    swallow the document, and an edit of a plot that pdfLaTeX typesets in half a second
    ran out of its 10 CPU-s). ``\\makeatletter`` … ``\\makeatother`` is one block too (the
    catcode change belongs to what it wraps, as extraction writes it) unless a package is
    loaded between them. Blank lines between blocks are dropped: ``"\\n".join(blocks)`` is
    the preamble without them.
    """
    blocks: list[str] = []
    cur: list[str] = []
    depth = brackets = envs = 0
    raw: str | None = None  # the raw environment whose end is awaited
    for line in preamble.split("\n"):
        if not cur and not line.strip():
            continue
        cur.append(line)
        while True:  # a line may close a raw environment and open another
            if raw is not None:
                end = re.search(r"\\end\s*\{" + re.escape(raw) + r"\}", line)
                if end is None:
                    break
                raw, line = None, line[end.end():]
            depth, brackets, opened, raw_at = _scan_line(line, depth, brackets)
            envs += opened
            if raw_at is None:
                break
            m = _RAW_ENV.match(line, raw_at)
            assert m is not None  # _scan_line found it there
            raw, line = m.group(1), line[m.end():]
        if raw is None and depth <= 0 and brackets == 0 and envs <= 0:
            blocks.append("\n".join(cur))
            cur, depth, envs = [], 0, 0
    if cur:
        blocks.append("\n".join(cur))
    return _join_makeat(blocks)


def _join_makeat(blocks: list[str]) -> list[str]:
    """Each ``\\makeatletter`` block joined with the blocks up to its ``\\makeatother``."""
    out: list[str] = []
    k = 0
    while k < len(blocks):
        if blocks[k].strip() == "\\makeatletter":
            end = next((j for j in range(k + 1, len(blocks))
                        if blocks[j].strip() in ("\\makeatother", "\\makeatletter")), None)
            if (end is not None and blocks[end].strip() == "\\makeatother"
                    and not any(_PACKAGE_LOAD.match(b) for b in blocks[k + 1:end])):
                out.append("\n".join(blocks[k:end + 1]))
                k = end + 1
                continue
        out.append(blocks[k])
        k += 1
    return out


_CS = re.compile(r"\\([A-Za-z@]+)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*[A-Za-z0-9]|[A-Za-z]")


def control_sequences(text: str) -> set[str]:
    return set(_CS.findall(text))


def words(text: str) -> set[str]:
    """Candidate style/colour names: identifiers, with inner spaces kept (TikZ allows them)."""
    out: set[str] = set()
    for part in re.split(r"[,=\[\]{}()!;:$\\/.\n]", text):
        p = part.strip()
        if p and _WORD.fullmatch(p):
            out.add(p)
            out.update(p.split())
    return out
