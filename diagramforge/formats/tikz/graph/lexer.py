"""Lexical reading of TikZ code: comments, balanced groups, top-level splits, statement ends,
``\\foreach`` lists and the tokens of a path.

Nothing here knows what a node or an edge is; the statement reader
(:mod:`.statements`) and the path reader (:mod:`.path_reader`) build on it.
"""

from __future__ import annotations

import re

from diagramforge.formats.tikz import notation as latex

# -- lexical helpers --------------------------------------------------------------------



def strip_comments(code: str) -> str:
    return latex.strip_line_comments(code)


def read_balanced(s: str, i: int, open_: str, close: str) -> tuple[str, int] | None:
    """``s[i]`` must be ``open_``; returns (inner text, index after the close)."""
    return latex.read_balanced(s, i, open_, close, brace_safe=True)


def split_top(s: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside braces, brackets and parentheses."""
    out, depth, cur = [], 0, []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur.append(s[i:i + 2])
            i += 2
            continue
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def _unbrace(s: str) -> str:
    s = s.strip()
    while s.startswith("{") and s.endswith("}"):
        g = read_balanced(s, 0, "{", "}")
        if g is None or g[1] != len(s):
            break
        s = g[0].strip()
    return s


def _skip_ws(s: str, i: int) -> int:
    while i < len(s) and s[i].isspace():
        i += 1
    return i


def _statement_end(s: str, i: int) -> int:
    """Index of the ``;`` ending the statement that starts at ``i`` (or the end)."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return i
        elif c == ";" and depth == 0:
            return i
        i += 1
    return len(s)


def _foreach_items(text: str) -> list[str] | None:
    items = split_top(text)
    out: list[str] = []
    for k, it in enumerate(items):
        if it in ("...", "…"):
            try:
                a = float(items[k - 2]) if k >= 2 else None
                b = float(items[k - 1])
                end = float(items[k + 1])
            except (ValueError, IndexError):
                return None
            step = (b - a) if a is not None else (1.0 if end >= b else -1.0)
            if step == 0 or abs((end - b) / step) > 1000:
                return None
            v = b + step
            while (step > 0 and v < end) or (step < 0 and v > end):
                out.append(_fmt(v))
                v += step
            continue
        if "\\" in it and not it.startswith("{"):
            return None
        out.append(_unbrace(it))  # {(0,2)/a}: a braced item keeps its commas
    return out


def _fmt(v: float) -> str:
    return str(int(v)) if abs(v - round(v)) < 1e-9 else f"{v:g}"


# -- paths ------------------------------------------------------------------------------

def _tokens(s: str) -> list[tuple[str, str]]:
    """Path tokens: ("opt", …), ("coord", …), ("rel", …), ("group", …), ("op", …),
    ("kw", word), ("cs", …)."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c == "[":
            g = read_balanced(s, i, "[", "]")
            if g is None:
                break
            out.append(("opt", g[0]))
            i = g[1]
            continue
        if c == "(":
            g = read_balanced(s, i, "(", ")")
            if g is None:
                break
            kind = "coord"
            if out and out[-1][0] == "plus":
                out.pop()
                kind = "rel"
            out.append((kind, g[0]))
            i = g[1]
            continue
        if c == "{":
            g = read_balanced(s, i, "{", "}")
            if g is None:
                break
            out.append(("group", g[0]))
            i = g[1]
            continue
        if s.startswith("--", i) or s.startswith("-|", i) or s.startswith("|-", i) \
                or s.startswith("..", i):
            out.append(("op", s[i:i + 2]))
            i += 2
            continue
        if c == "+":
            out.append(("plus", "+"))
            i += 2 if s.startswith("++", i) else 1
            continue
        if c.isalpha():
            m = re.match(r"[A-Za-z]+(?: (?:from parent|anchor|also|box))?", s[i:])
            word = m.group(0) if m else c
            out.append(("kw", word))
            i += len(word)
            continue
        if c == "\\":
            m = re.match(r"\\[A-Za-z@]+|\\.", s[i:])
            out.append(("cs", m.group(0) if m else c))
            i += len(m.group(0)) if m else 1
            continue
        if c == '"':
            j = s.find('"', i + 1)
            out.append(("quote", s[i + 1:j] if j > 0 else ""))
            i = j + 1 if j > 0 else n
            continue
        i += 1
    return out
