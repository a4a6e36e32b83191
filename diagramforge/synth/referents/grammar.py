"""The language of referring expressions: a structured :class:`Query`, the English it is
written as (:func:`render`), and the parser that reads English back (:func:`parse`,
:func:`phrases`).

The grammar is small and fixed, so a description can be read back and checked::

    the [leftmost|rightmost|topmost|bottommost] [second|third…] [empty] [colour] NOUN
        ["label"] [from the left|right|top|bottom] [in the top|bottom|second… row|column]
        [in "Container"] [below|above|to the left of|to the right of "Anchor"]
    the arrow|line [from NODE to NODE | between NODE and NODE] [labelled "label"]
    "label"                                   (a node by its text alone)

The parser also accepts the synonyms a person or a model rewording the instruction would
use (``rectangle`` for box, ``unlabelled`` for empty, ``labeled``, ``connection``, curly or
single quotes, ``pale``/``gray``…), so a faithful rewording still parses; it never guesses
beyond them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from diagramforge.formats.colours import MODIFIERS, colour_word
from diagramforge.formats.scenes import EDGE_NOUNS, FRAMED, GENERIC_NODE, WORD_CLASS

ELLIPSIS = "…"
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth")
EXTREMES = {"leftmost": ("x", False), "rightmost": ("x", True), "topmost": ("y", False),
            "uppermost": ("y", False), "highest": ("y", False), "bottommost": ("y", True),
            "lowest": ("y", True), "lowermost": ("y", True)}
_EXTREME_WORD = {("x", False): "leftmost", ("x", True): "rightmost",
                 ("y", False): "topmost", ("y", True): "bottommost"}
_SIDES = {"left": ("x", False), "right": ("x", True), "top": ("y", False),
          "bottom": ("y", True)}
_SIDE_WORD = {v: k for k, v in _SIDES.items()}
EMPTY_WORDS = ("empty", "unlabelled", "unlabeled", "blank", "untitled")
LABEL_WORDS = ("labelled", "labeled", "reading", "named", "called", "marked", "saying",
               "titled", "showing")
DIRECTIONS = ("below", "above", "left of", "right of")
_BELOW = ("below", "under", "beneath", "underneath")
_CLOSE = ("directly", "just", "immediately", "right")


@dataclass(frozen=True)
class Rank:
    """The n-th (1-based) along an axis (``x``: from the left; ``y``: from the top),
    counted from the other end when ``from_end``."""

    axis: str
    n: int
    from_end: bool = False


@dataclass(frozen=True)
class Line:
    """A row (``axis="row"``) or column, the n-th from the top/left (``from_end``: from the
    bottom/right); ``n == 0`` is the middle one."""

    axis: str
    n: int
    from_end: bool = False


@dataclass(frozen=True)
class Query:
    """A parsed or generated description. Unset fields constrain nothing."""

    kind: str = "node"  # "node" | "edge"
    noun: str | None = None
    """Node class (:data:`~diagramforge.formats.scenes.NOUNS`), or ``None`` for any node;
    for edges the word ``arrow`` sets :attr:`arrow`."""
    arrow: bool = False
    label: str | None = None
    prefix: bool = False
    """``label`` is the start of the text (written with a trailing ellipsis)."""
    empty: bool = False
    colour: str | None = None
    inside: Query | None = None
    near: tuple[str, Query] | None = None
    rank: Rank | None = None
    line: Line | None = None
    ends: tuple[Query, Query] | None = None
    between: bool = False
    noun_word: str | None = None
    """The word written for the noun (``oval`` for a long circle); rendering only."""


# -- writing ------------------------------------------------------------------------------
def _quote(label: str, prefix: bool) -> str:
    return f'"{label} {ELLIPSIS}"' if prefix else f'"{label}"'


def _ordinal(n: int) -> str:
    return ORDINALS[n - 1] if 1 <= n <= len(ORDINALS) else f"{n}th"


def _line_text(ln: Line) -> str:
    if ln.n == 0:
        return f"in the middle {ln.axis}"
    if ln.n == 1:
        side = ("bottom" if ln.from_end else "top") if ln.axis == "row" else \
            ("right" if ln.from_end else "left")
        return f"in the {side} {ln.axis}"
    end = (" from the bottom" if ln.axis == "row" else " from the right") if ln.from_end \
        else ""
    return f"in the {_ordinal(ln.n)} {ln.axis}{end}"


def render(q: Query) -> str:
    """The English of a query (the inverse of :func:`parse`)."""
    if q.kind == "node" and q.noun is None and q.label is not None and not (
            q.empty or q.colour or q.inside or q.near or q.rank or q.line or q.noun_word):
        return _quote(q.label, q.prefix)  # a node by its text alone
    words = ["the"]
    if q.rank is not None and q.rank.n == 1:
        words.append(_EXTREME_WORD[(q.rank.axis, q.rank.from_end)])
    elif q.rank is not None:
        words.append(_ordinal(q.rank.n))
    if q.empty:  # an empty box, but an unlabelled icon or line
        words.append("empty" if q.kind == "node" and q.noun in FRAMED else "unlabelled")
    if q.colour:
        words.append(q.colour)
    if q.kind == "edge":
        words.append("arrow" if q.arrow else "line")
    else:
        words.append(q.noun_word or (q.noun if q.noun else GENERIC_NODE[0]))
    if q.kind == "node" and q.label is not None:
        words.append(_quote(q.label, q.prefix))
    if q.rank is not None and q.rank.n > 1:
        words.append(f"from the {_SIDE_WORD[(q.rank.axis, q.rank.from_end)]}")
    if q.line is not None:
        words.append(_line_text(q.line))
    if q.inside is not None:
        words.append(f"in {render(q.inside)}")
    if q.near is not None:
        d, anchor = q.near
        words.append(("to the " + d if d in ("left of", "right of") else d) + " "
                     + render(anchor))
    if q.ends is not None:
        a, b = (render(e) for e in q.ends)
        words.append(f"between {a} and {b}" if q.between else f"from {a} to {b}")
    if q.kind == "edge" and q.label is not None:
        words.append(f"labelled {_quote(q.label, q.prefix)}")
    return " ".join(words)


# -- reading ------------------------------------------------------------------------------
_TOKEN = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|‘([^’\n]+)’|(?<![\w])\'([^\'\n]+)\'(?![\w])'
                    r"|([A-Za-z]+)|(\S)")


@dataclass(frozen=True)
class Tok:
    kind: str  # "q" (quoted), "w" (word, lower case), "p" (punctuation)
    value: str
    start: int
    end: int


def tokens(text: str) -> list[Tok]:
    out = []
    for m in _TOKEN.finditer(text):
        q = next((g for g in m.groups()[:4] if g is not None), None)
        if q is not None:
            out.append(Tok("q", q, m.start(), m.end()))
        elif m.group(5):
            out.append(Tok("w", m.group(5).casefold(), m.start(), m.end()))
        else:
            out.append(Tok("p", m.group(6), m.start(), m.end()))
    return out


def _label(value: str) -> tuple[str, bool]:
    v = value.strip()
    for tail in (ELLIPSIS, "..."):
        if v.endswith(tail):
            return v[:-len(tail)].strip(), True
    return v, False


class _Reader:
    def __init__(self, toks: list[Tok]) -> None:
        self.t = toks

    def w(self, i: int) -> str | None:
        return self.t[i].value if i < len(self.t) and self.t[i].kind == "w" else None

    def q(self, i: int) -> str | None:
        return self.t[i].value if i < len(self.t) and self.t[i].kind == "q" else None

    def words(self, i: int, *ws: str) -> bool:
        return all(self.w(i + k) == w for k, w in enumerate(ws))

    # a noun phrase: a bare quoted label, or "the …"
    def np(self, i: int, depth: int = 0) -> tuple[Query, int] | None:
        if depth > 3:
            return None
        if self.q(i) is not None:
            label, prefix = _label(self.q(i) or "")
            return Query(label=label, prefix=prefix), i + 1
        if self.w(i) != "the":
            return None
        j = i + 1
        f: dict = {}
        ordinal: int | None = None
        while True:  # pre-modifiers
            w = self.w(j)
            if w in EXTREMES and "rank" not in f:
                axis, end = EXTREMES[w]
                f["rank"] = Rank(axis, 1, end)
                j += 1
            elif w in ORDINALS and ordinal is None:
                ordinal = ORDINALS.index(w) + 1
                j += 1
            elif w == "last" and ordinal is None:
                ordinal = -1
                j += 1
            elif w in EMPTY_WORDS:
                f["empty"] = True
                j += 1
            elif w in MODIFIERS and self.w(j + 1) and colour_word(f"{w} {self.w(j + 1)}"):
                f["colour"] = colour_word(f"{w} {self.w(j + 1)}")
                j += 2
            elif w and colour_word(w) and "colour" not in f:
                f["colour"] = colour_word(w)
                j += 1
            elif self.q(j) is not None and "label" not in f:
                f["label"], f["prefix"] = _label(self.q(j) or "")
                j += 1
            else:
                break
        w = self.w(j)
        if w in WORD_CLASS:
            kind, f["noun"] = "node", WORD_CLASS[w]
        elif w in GENERIC_NODE:
            kind = "node"
        elif w in EDGE_NOUNS:
            kind, f["arrow"] = "edge", EDGE_NOUNS[w]
        else:
            return None
        j += 1
        if self.w(j) == "of":  # "the text of …", "the shape of …": a property, not a thing
            return None
        while True:  # post-modifiers
            w = self.w(j)
            if self.q(j) is not None and "label" not in f:
                f["label"], f["prefix"] = _label(self.q(j) or "")
                j += 1
            elif w in LABEL_WORDS and self.q(j + 1) is not None and "label" not in f:
                f["label"], f["prefix"] = _label(self.q(j + 1) or "")
                j += 2
            elif w == "with" and "label" not in f and (
                    (self.w(j + 1) in ("label", "text") and self.q(j + 2) is not None) or
                    (self.w(j + 1) in ("the", "a") and self.w(j + 2) in ("label", "text")
                     and self.q(j + 3) is not None)):
                k = j + 2 if self.w(j + 1) in ("label", "text") else j + 3
                f["label"], f["prefix"] = _label(self.q(k) or "")
                j = k + 1
            elif w == "from" and self.w(j + 1) == "the" and self.w(j + 2) in _SIDES \
                    and ordinal is not None and "side" not in f:
                f["side"] = _SIDES[self.w(j + 2) or ""]
                j += 3
            elif w in ("in", "inside", "within"):
                ln = self._line(j + 1)
                if ln is not None and "line" not in f:
                    f["line"], j = ln
                    continue
                sub = self.np(j + 1, depth + 1)
                if sub is None or sub[0].kind != "node" or "inside" in f:
                    break
                f["inside"], j = sub
            elif kind == "node" and (rel := self._relation(j)) is not None and "near" not in f:
                d, k = rel
                sub = self.np(k, depth + 1)
                if sub is None or sub[0].kind != "node":
                    break
                f["near"], j = (d, sub[0]), sub[1]
            elif kind == "edge" and w in ("from", "between") and "ends" not in f:
                a = self.np(j + 1, depth + 1)
                if a is None or a[0].kind != "node":
                    break
                sep = "to" if w == "from" else "and"
                if self.w(a[1]) != sep:
                    break
                b = self.np(a[1] + 1, depth + 1)
                if b is None or b[0].kind != "node":
                    break
                f["ends"], f["between"], j = (a[0], b[0]), w == "between", b[1]
            else:
                break
        if ordinal is not None:
            line = f.get("line")
            axis, end = f.pop("side", None) or (
                ("y", False) if line is not None and line.axis == "column" else ("x", False))
            f["rank"] = Rank(axis, 1, not end) if ordinal == -1 else Rank(axis, ordinal, end)
        f.pop("side", None)
        return Query(kind=kind, **f), j

    def _relation(self, j: int) -> tuple[str, int] | None:
        if self.w(j) in _CLOSE and self._relation(j + 1) is not None:
            return self._relation(j + 1)
        w = self.w(j)
        if w in _BELOW:
            return "below", j + 1
        if w in ("above", "over"):
            return "above", j + 1
        for side in ("left", "right"):
            if self.words(j, "to", "the", side, "of"):
                return f"{side} of", j + 4
            if self.words(j, side, "of"):
                return f"{side} of", j + 2
        return None

    def _line(self, j: int) -> tuple[Line, int] | None:
        if self.w(j) != "the":
            return None
        w, axis = self.w(j + 1), self.w(j + 2)
        if axis not in ("row", "column"):
            return None
        k = j + 3
        if w == "middle":
            return Line(axis, 0), k
        if w in ("top", "left") and (axis == "row") == (w == "top"):
            return Line(axis, 1), k
        if w in ("bottom", "right") and (axis == "row") == (w == "bottom"):
            return Line(axis, 1, True), k
        if w == "last":
            return Line(axis, 1, True), k
        if w in ORDINALS:
            n = ORDINALS.index(w) + 1
            far = "bottom" if axis == "row" else "right"
            if self.words(k, "from", "the", far):
                return Line(axis, n, True), k + 3
            near = "top" if axis == "row" else "left"
            if self.words(k, "from", "the", near):
                k += 3
            return Line(axis, n), k
        return None


def parse(text: str) -> Query | None:
    """The query a whole description states, or ``None`` when it is not one."""
    toks = tokens(text)
    got = _Reader(toks).np(0)
    return got[0] if got is not None and got[1] == len(toks) else None


@dataclass(frozen=True)
class Phrase:
    query: Query
    start: int
    end: int
    """Character span in the text."""


def phrases(text: str) -> list[Phrase]:
    """Every description that starts at some word of ``text`` (nested ones included),
    read greedily."""
    toks = tokens(text)
    r = _Reader(toks)
    out = []
    for i in range(len(toks)):
        got = r.np(i)
        if got is not None and got[1] > i:
            out.append(Phrase(got[0], toks[i].start, toks[got[1] - 1].end))
    return out


def maximal(found: list[Phrase]) -> list[Phrase]:
    """The phrases not inside another one."""
    return [p for p in found if not any(o is not p and o.start <= p.start and p.end <= o.end
                                        and (o.start, o.end) != (p.start, p.end)
                                        for o in found)]


def without_text(q: Query) -> Query:
    """``q`` with no rendering hint (two queries that mean the same compare equal)."""
    return replace(q, noun_word=None)
