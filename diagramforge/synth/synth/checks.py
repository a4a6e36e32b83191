"""Code's checks on what a model wrote: grounding, forbidden references, kept answers.

These are deliberately simple, explainable rules (a reviewer can predict each verdict): a
quoted span must be a text the diagram shows; an edit instruction may not name element ids,
coordinates or markup attribute names; a paraphrased question must keep every referent, its
question form and its polarity, so the answer code computed is still the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from diagramforge.synth.synth.facts import norm

_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|‘([^’\n]+)’|(?<![\w])\'([^\'\n]+)\'(?![\w])')


def quoted_spans(text: str) -> list[str]:
    """Spans between double, curly or (word-bounded) single quotes."""
    return [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text)]


def ungrounded_quotes(text: str, vocabulary: set[str]) -> list[str]:
    """Quoted spans that are not a (normalised) text of the diagram."""
    return [q for q in quoted_spans(text)
            if norm(q.strip(" .,;:")) not in vocabulary]


def mentions(text: str, phrase: str) -> bool:
    """Whether ``text`` contains ``phrase`` as a whole (case/space-insensitive; word-bounded
    where the phrase starts or ends with a word character)."""
    p = re.escape(norm(phrase)).replace(r"\ ", r"\s+")
    left = r"(?<!\w)" if re.match(r"\w", norm(phrase)) else ""
    right = r"(?!\w)" if re.search(r"\w$", norm(phrase)) else ""
    return re.search(left + p + right, norm(text)) is not None


# -- edit instructions ----------------------------------------------------------------------
_ATTRIBUTES = (
    # mxGraph style keys and XML vocabulary
    "fillColor", "strokeColor", "fontColor", "strokeWidth", "fontSize", "fontStyle",
    "fontFamily", "whiteSpace", "edgeStyle", "endArrow", "startArrow", "endFill",
    "startFill", "labelBackgroundColor", "dashPattern", "verticalAlign", "gradientColor",
    "arcSize", "exitX", "exitY", "entryX", "entryY", "mxCell", "mxGeometry", "mxGraphModel",
    "mxPoint", "mxfile", "vertex", "parent",
    # SVG presentation attributes
    "stroke-width", "stroke-dasharray", "fill-opacity", "stroke-opacity", "text-anchor",
    "font-size", "font-family", "viewBox", "xlink:href",
)
_ATTR_RE = re.compile(r"(?<![\w-])(" + "|".join(re.escape(a) for a in _ATTRIBUTES) + r")(?![\w-])")
_FORBIDDEN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("attribute", _ATTR_RE),
    ("attribute", re.compile(r"\b[A-Za-z_][\w:-]*\s*=\s*[\"'#\w]")),   # key=value / attr="…"
    ("markup", re.compile(r"</?[A-Za-z][\w:-]*(\s[^>]*)?/?>")),        # an XML/SVG tag
    ("markup", re.compile(r"\\[A-Za-z]+")),                             # a TeX command
    ("coordinate", re.compile(r"\(\s*-?\d+(\.\d+)?\s*,\s*-?\d+(\.\d+)?\s*\)")),
    ("coordinate", re.compile(r"\b-?\d+(\.\d+)?\s*(px|pt|cm|mm)\b")),
    ("coordinate", re.compile(r"\b[xy]\s*[:=]\s*-?\d")),
    ("coordinate", re.compile(r"\b(x|y)-?(coordinate|position|axis value)s?\b", re.I)),
)


_ID_LIKE = re.compile(r"[\d_:.\-]|[a-z][A-Z]|^.{16,}$")


def forbidden_references(text: str, ids: Iterable[str], words: set[str]) -> list[str]:
    """What an edit instruction must not say: element ids, coordinates, attribute names and
    markup. An id counts when it looks like one (a digit, ``_-:.``, camelCase, 16+
    characters) and is not a word of the diagram's texts (``words``, normalised): ids such
    as ``start`` or ``new`` are English and cannot be told from prose."""
    found = [f"{kind}: {m.group(0)!r}" for kind, rx in _FORBIDDEN for m in [rx.search(text)]
             if m]
    for i in ids:
        if not i or norm(i) in words or not _ID_LIKE.search(i):
            continue
        if re.search(r"(?<![\w-])" + re.escape(i) + r"(?![\w-])", text):
            found.append(f"id: {i!r}")
    return found


# -- paraphrased questions ------------------------------------------------------------------
_FORMS = {
    "count": re.compile(r"\b(how many|number of|count)\b", re.I),
    "yesno": re.compile(r"(^\W*|[,:;]\s*)(is|are|does|do|can|could|will|would|was|were|has|"
                        r"have|did|may|might|should)\b|\bwhether\b", re.I),
    "which": re.compile(r"\b(which|what|who|name)\b", re.I),
}
_NEGATION = re.compile(r"\b(not|no|never|none|neither|nor|without|cannot)\b|n't\b", re.I)


def paraphrase_problems(template: str, paraphrase: str, form: str, referents: list[str],
                        answer: str, others: Iterable[str], keywords: Iterable[str] = (),
                        order: tuple[str, str] | None = None) -> list[str]:
    """Why ``paraphrase`` might no longer have ``answer`` (empty when it keeps it).

    It must: name every referent; keep the question form (a count, a yes/no, a which); keep
    the template's polarity (no added or dropped negation); keep each qualifier keyword
    (``a|b``: one of the alternatives, each a word stem: ``connection`` matches
    ``connections``);
    not reveal the answer (unless the answer is yes/no or a number); not quote another
    label of the diagram; and for a directed question (``order`` = from, to) not swap the
    ends ("from B" where the template said "from A").
    """
    out = [f"missing referent {r!r}" for r in referents if not mentions(paraphrase, r)]
    if not _FORMS[form].search(paraphrase):
        out.append(f"not a {form} question")
    if bool(_NEGATION.search(template)) != bool(_NEGATION.search(paraphrase)):
        out.append("polarity changed")
    out += [f"missing qualifier {k!r}" for k in keywords
            if not any(re.search(r"(?<!\w)" + re.escape(norm(alt)), norm(paraphrase))
                       for alt in k.split("|"))]
    if form == "which" and answer and not any(norm(answer) == norm(r) for r in referents) \
            and (mentions(paraphrase, answer) if len(answer) > 2
                 else norm(answer) in {norm(q) for q in quoted_spans(paraphrase)}):
        out.append("reveals the answer")
    allowed = {norm(r) for r in referents}
    others_n = {norm(o) for o in others}
    out += [f"quotes another label {q!r}" for q in quoted_spans(paraphrase)
            if norm(q) not in allowed and norm(q) in others_n]
    if order:
        a, b = order
        rx = r"\bfrom\s+(the\s+)?(node|element|box|state|step|block)?\s*[\"'“‘]?"
        if re.search(rx + re.escape(norm(b)), norm(paraphrase)) and norm(a) != norm(b):
            out.append("direction swapped")
    return out
