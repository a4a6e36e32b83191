"""What a picture needs loaded that its document does not load, read from the generated table.

A TeX.SE answer (and many an ``\\input``-ed figure) shows the ``tikzpicture`` and not the
preamble: ``\\node[state, initial]`` needs ``\\usetikzlibrary{automata}``, ``-Stealth``
``arrows.meta``, ``\\lstick`` ``\\usepackage{quantikz}``, an ``axis`` pgfplots.  The table of
which library or package defines which key, shape, arrow tip, decoration, pattern, plot
mark, pic, coordinate system, macro and environment is generated from TeX Live
(:mod:`tikz_table`); here a picture's text is read for those names — option lists split into
keys and values, arrow specifications matched against the tip names, control sequences
and ``\\begin{…}`` looked up in a dict — and whatever names a file the document neither
loads (directly or through what it loads) nor defines itself comes back as a load to add.
One pass over the text and dictionary look-ups: no TeX run per key.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from diagramforge.formats.tikz.notation import read_balanced, split_top
from diagramforge.formats.tikz.preamble import SKIP_PACKAGES

TABLE_PATH = Path(__file__).with_name("tikz_libraries.json")
"""The generated table (``diagramforge tikz-table`` writes it; :mod:`tikz_table` says how)."""
_KEY_ROOT = re.compile(r"^/(?:tikz|pgf|pgfplots)/")
_DEFINING = re.compile(r"/\.(?:style|code|estyle|ecode|initial|is choice|is if|is family|"
                       r"store in|pic|style \d+ args|code \d+ args|style n args|code n args|"
                       r"style args|code args|search also|forward to|get|link)\s*$")
_HANDLER = re.compile(r"/\.[A-Za-z ]+(?:\s+\d+\s+args)?\s*$")
_KEYLIST_CMDS = re.compile(r"\\(?:tikzset|pgfkeys|pgfplotsset|tikzcdset|pgfqkeys\s*\{[^{}]*\})"
                           r"\s*(?=\{)")
_CS = re.compile(r"\\(?:([A-Za-z]+)|.)")  # "\\\\of" is a line break and "of"
_BEGIN = re.compile(r"\\begin\s*\{([^{}]+)\}")
_PIC = re.compile(r"\bpic\s*(?:\[[^\]]*\]\s*)?(?:\([^)]*\)\s*)?(?:\[[^\]]*\]\s*)?\{([^{}]+)\}")
_CSYS = re.compile(r"\(\s*([A-Za-z][A-Za-z ]*?)\s+cs\s*:")
_CALC = re.compile(r"\(\s*\$[^$]*\([^$]*\$\s*\)")  # ($(a)!.5!(b)$), not ($-20$,3)
_LET = re.compile(r"\blet\s*\\[A-Za-z]+\d*\s*=")
_OF = re.compile(r"(?:^|\s)of\s+\S")
_FILL_BETWEEN = re.compile(r"\\addplot\b[^;]*?\bfill between\b")
"""pgfplots' ``\\addplot fill between[of=a and b]``: a plot handler, not a key; its library
is the one that defines ``every fill between plot``."""
_PLACES = frozenset(f"{a}{b}" for a in ("", "above ", "below ") for b in ("", "left", "right")
                    if a or b) | {"above", "below", "base left", "base right", "mid left",
                                  "mid right"}
_BINDERS = re.compile(
    r"\\(?:foreach|pgfplotsforeachungrouped|pgfplotsinvokeforeach)\s*((?:\\[A-Za-z]+\s*/?\s*)+)"
    r"|(?:count|variable|var)\s*=\s*\\([A-Za-z]+)"
    r"|\bas\s*\\([A-Za-z]+)"
    r"|\\(?:[egx]?def|let|pgfmathsetmacro|pgfmathtruncatemacro|pgfmathsetlengthmacro|"
    r"pgfmathsetcount|newcommand|renewcommand|providecommand|DeclareRobustCommand|"
    r"NewDocumentCommand|DeclareMathOperator|newlength|newcount|newdimen|newif|newsavebox|"
    r"pgfextractx|pgfextracty|pgfgetlastxy|pgfmathparse)\*?\s*\{?\s*\\([A-Za-z]+)"
    r"(?:\}\s*\{\s*\\([A-Za-z]+))?")
_TIKZMATH_VAR = re.compile(r"\\([A-Za-z]+)\s*(?:\{[^{}]*\})?\s*=")
KIND_ORDER = ("package", "library", "pgfplotslibrary")


@dataclass(frozen=True)
class Needs:
    """Loads to add, in the order a preamble takes them (packages, then libraries)."""

    packages: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    plot_libraries: tuple[str, ...] = ()
    why: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    """Per load, the first name in the picture that asked for it (``meta.added_for``)."""

    def __bool__(self) -> bool:
        return bool(self.packages or self.libraries or self.plot_libraries)

    def package_blocks(self) -> list[str]:
        return [f"\\usepackage{{{p}}}" for p in self.packages]

    def library_blocks(self) -> list[str]:
        out = [f"\\usetikzlibrary{{{','.join(self.libraries)}}}"] if self.libraries else []
        if self.plot_libraries:
            out.append(f"\\usepgfplotslibrary{{{','.join(self.plot_libraries)}}}")
        return out

    def meta(self) -> dict:
        """What the record says it was given (``added_packages``, ``added_libraries``,
        ``added_for``)."""
        out: dict = {}
        if self.packages:
            out["added_packages"] = list(self.packages)
        libs = [*self.libraries, *(f"pgfplots.{p}" for p in self.plot_libraries)]
        if libs:
            out["added_libraries"] = libs
        if out:  # and the name in the picture that asked for each
            out["added_for"] = {n: self.why[n] for n in
                                [*self.packages, *self.libraries, *self.plot_libraries]
                                if n in self.why}
        return out

    def without(self, have: set[str]) -> Needs:
        """These loads less those in ``have`` (table ids: ``library:calc``…)."""
        keep = {k: tuple(p for p in getattr(self, f) if f"{k}:{p}" not in have)
                for k, f in (("package", "packages"), ("library", "libraries"),
                             ("pgfplotslibrary", "plot_libraries"))}
        return Needs(keep["package"], keep["library"], keep["pgfplotslibrary"], self.why)


@dataclass
class Table:
    rows: dict[str, dict[str, str]]
    loads: dict[str, set[str]]
    tex: str
    arrows: re.Pattern[str] | None
    pgf: frozenset[str] = frozenset()
    """PGF's and pgfplots' own libraries and packages (TeX Live's ``pgf``, ``pgfplots``)."""
    others: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """For a row chosen among files that define the name independently, those others."""
    base: frozenset[str] = frozenset()
    """What TikZ itself loads (in LaTeX): never a name's provider."""
    tip_end: re.Pattern[str] | None = None
    """A tip name (any, TikZ's own too) right before a position: its options follow."""

    def served(self, kind: str, name: str, by: set[str]) -> bool:
        """Whether one of the other files that define the name is in ``by``."""
        return any(p in by for p in self.others.get(kind, {}).get(name, ()))

    def provides(self, loaded: Iterable[str]) -> set[str]:
        """Everything ``loaded`` brings, through what each loads in turn."""
        seen: set[str] = set()
        todo = list(loaded)
        while todo:
            p = todo.pop()
            if p not in seen:
                seen.add(p)
                todo += self.loads.get(p, ())
        return seen


@functools.cache
def table() -> Table:
    """The shipped table (read once per process)."""
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    rows = data["rows"]
    # a tip named by one character ((, *, o) is no evidence: poles, brackets, coordinates
    tips = sorted((t for t in rows.get("arrow", {}) if len(t) > 1 and t[0].isalpha()),
                  key=len, reverse=True)
    arrows = re.compile("(?<![A-Za-z])(?:" + "|".join(re.escape(t) for t in tips)
                        + ")(?![A-Za-z'])") if tips else None
    names = sorted({*rows.get("arrow", {}), "latex", "stealth"},
                   key=len, reverse=True)
    tip_end = re.compile("(?<![A-Za-z])(?:" + "|".join(re.escape(t) for t in names if len(t) > 1)
                         + r")\s*$")
    return Table(rows=rows, loads={k: set(v) for k, v in data["providers"].items()},
                 tex=data.get("tex", ""), arrows=arrows, pgf=frozenset(data.get("pgf", ())),
                 others=data.get("others", {}),
                 base=frozenset(data.get("base", ())) | {"package:tikz"}, tip_end=tip_end)


def _split_key(part: str) -> tuple[str, str, str]:
    """``key=value`` split at its first ``=`` outside braces and brackets
    (``{Latex[length=2mm]}-`` is an arrow, not a key ``{Latex[length``)."""
    depth = 0
    for k, ch in enumerate(part):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == "=" and depth == 0:
            return part[:k], "=", part[k + 1:]
    return part, "", ""


def _unbrace(text: str) -> str:
    text = text.strip()
    while text.startswith("{") and read_balanced(text, 0, "{", "}") == (text[1:-1], len(text)):
        text = text[1:-1].strip()
    return text


TIKZ, FOREIGN, SKIP = "tikz", "foreign", "skip"
_CORE_COMMANDS = frozenset({"node", "draw", "path", "fill", "filldraw", "shade", "shadedraw",
                            "clip", "coordinate", "matrix", "pic", "tikz", "scoped", "graph",
                            "useasboundingbox", "tikzset", "pattern", "tikzstyle"})
_TIKZ_ENVS = frozenset({"tikzpicture", "scope", "circuitikz", "pgfonlayer"})
_BEFORE = re.compile(r"(?:\\foreach(?P<each>(?:\s*\\[A-Za-z]+\s*/?)*)"
                     r"|\\begin\s*\{(?P<env>[^{}]+)\}|\\(?P<cmd>[A-Za-z]+)\d*[*+]?)\s*$")


def _context(text: str, at: int) -> str:
    """Whose keys an option list at ``at`` holds: TikZ's (after a path command, ``node``,
    ``edge``, ``to``, in a ``tikzpicture``'s or ``scope``'s options), another package's
    (``\\begin{axis}[…]``, ``\\addplot[…]``, tikz-cd's ``\\arrow[r]``: their keys are not
    TikZ's, whatever a package defines under the same name) or none (``\\foreach``'s)."""
    tips = table().tip_end
    if tips is not None and tips.search(text, max(0, at - 40), at):
        return SKIP  # an arrow tip's own options: Latex[length=2mm]
    m = _BEFORE.search(text, max(0, at - 120), at)
    if m is None:
        return TIKZ
    if m.group("each") is not None:
        return SKIP
    if m.group("env") is not None:
        return TIKZ if m.group("env").strip() in _TIKZ_ENVS else FOREIGN
    return TIKZ if m.group("cmd") in _CORE_COMMANDS else FOREIGN


def option_lists(text: str) -> Iterator[tuple[str, str]]:
    """(inner text, :func:`_context`) of every ``[…]`` group and of every
    ``\\tikzset{…}``-like key list; a group inside another list is read through that
    list's entries (a tip's ``[length=2mm]`` is the tip's, not a TikZ key)."""
    lists = []
    for m in _KEYLIST_CMDS.finditer(text):
        g = read_balanced(text, m.end(), "{", "}")
        if g:
            lists.append((m.end(), g[1]))
            yield g[0], TIKZ if m.group(0).startswith(("\\tikzset", "\\pgfkeys")) else FOREIGN
    i = text.find("[")
    while i >= 0:
        inside = next((b for a, b in lists if a <= i < b), None)
        if inside is not None:
            i = text.find("[", inside)
            continue
        g = read_balanced(text, i, "[", "]", brace_safe=True)
        if g:
            yield g[0], _context(text, i)
        i = text.find("[", g[1] if g else i + 1)


_OWN_VALUES = frozenset({"decoration", "pattern", "arrows", ">", "<", "mark", "shape", "font",
                         "label", "pin", "node contents", "text", "title", "xlabel", "ylabel",
                         "zlabel", "legend entries", "name", "alias", "evaluate", "count"})
"""Keys whose braced value is not an option list of TikZ keys (a decoration's own keys, a
label's text…): read for names by the key itself, never as keys."""


def entries(options: str, depth: int = 0) -> Iterator[tuple[str, str | None]]:
    """(key, value) of each entry of an option list, and of the option lists inside braced
    values (``nodes={state}``, ``every node/.style={diamond}``, ``label={[red]x}``)."""
    for part in split_top(options):
        key, eq, value = _split_key(part)
        key = re.sub(r"\s+", " ", _KEY_ROOT.sub("", key.strip()))
        val = value.strip() if eq else None
        yield key, val
        if val and depth < 4 and ("{" in val or "[" in val) and key not in _OWN_VALUES:
            inner = _unbrace(val)
            for sub, ctx in option_lists(inner):
                if ctx != SKIP:
                    yield from entries(sub, depth + 1)
            if inner != val or val.startswith("{"):
                yield from entries(inner, depth + 1)


def bound_names(text: str) -> set[str]:
    """Control sequences the picture binds itself (``\\foreach \\x``, ``count=\\i``,
    ``\\pgfmathsetmacro\\r``, ``\\def\\a``, ``\\tikzmath{\\n = 3;}``): never a package's."""
    out: set[str] = set()
    for m in _BINDERS.finditer(text):
        if m.group(1):
            out |= set(re.findall(r"\\([A-Za-z]+)", m.group(1)))
        out |= {g for g in m.groups()[1:] if g}
    for m in re.finditer(r"\\tikzmath\s*\{", text):
        g = read_balanced(text, m.end() - 1, "{", "}")
        if g:
            out |= set(_TIKZMATH_VAR.findall(g[0]))
    return out


def _value_names(value: str) -> list[str]:
    """Names a value gives: ``{zigzag, amplitude=2pt}`` → ``zigzag``; ``{Lines[angle=45]}``
    → ``Lines``."""
    out = []
    for part in split_top(_unbrace(value)):
        if "=" not in part:
            out.append(re.sub(r"\s+", " ", re.sub(r"\[.*$", "", _unbrace(part))).strip())
    return out


def wanted(text: str, tbl: Table | None = None
           ) -> tuple[dict[str, list[tuple[str, str]]], set[str]]:
    """Every provider the picture's names point at (provider → its ``(kind, name)`` hits,
    in order), and the key names the picture defines itself (``mybox/.style=…``)."""
    tbl = tbl or table()
    rows = tbl.rows
    found: dict[str, list[tuple[str, str]]] = {}
    own: set[str] = set()

    def hit(kind: str, name: str, prov: str | None = None) -> None:
        prov = prov or rows.get(kind, {}).get(name)
        if prov and (kind, name) not in found.setdefault(prov, []):
            found[prov].append((kind, name))

    def tips(spec: str) -> None:
        if tbl.arrows is not None:
            for tip in tbl.arrows.findall(re.sub(r"\[[^\]]*\]", "", spec)):
                hit("arrow", tip)

    for options, ctx in option_lists(text):
        if ctx == SKIP:
            continue
        for key, val in entries(options):
            if _DEFINING.search(key):
                own.add(_HANDLER.sub("", key).strip())
                continue
            name = _HANDLER.sub("", key).strip()
            if ctx == TIKZ and name.startswith('"') and val is None:
                # to["Energy", sloped], node["$\\phi$"]: the quotes library's syntax, whose
                # file is the one that defines what a quoted entry means
                hit("syntax", "quotes", rows.get("key", {}).get("quotes mean label"))
            if val is None and "-" in name:
                tips(name)
            if rows.get("pgfplots_key", {}).get(name, "").startswith("pgfplotslibrary:"):
                hit("pgfplots_key", name)
            if ctx == TIKZ:  # another package's options are its keys, not TikZ's
                hit("key", name)
                if val is None:
                    hit("shape", name)
            if val is None:
                continue
            if name in (">", "<", "arrows", "arrow", "tips"):
                tips(val)
            elif name == "shape":
                hit("shape", _unbrace(val))
            elif name in ("decoration", "decorate with"):
                for n in _value_names(val):
                    hit("decoration", n)
            elif name == "pattern":
                names = _value_names(val)
                for n in names:
                    hit("pattern", n)
                if not any(n in rows.get("pattern", {}) for n in names):
                    # a pattern of the document's own (\pgfdeclarepatternformonly): TikZ's
                    # pattern key itself is the patterns library's, as most patterns are
                    hit("syntax", "pattern", _most_common(rows.get("pattern", {})))
            elif name == "mark":
                hit("mark", _unbrace(val))
            elif name in _PLACES and _OF.search(" " + val):
                hit("syntax", "of")
    for m in _PIC.finditer(text):
        hit("pic", m.group(1).strip())
    for m in _CSYS.finditer(text):
        hit("cs", m.group(1).strip())
    if _CALC.search(text):
        hit("syntax", "calc")
    if _LET.search(text):
        hit("syntax", "let")
    if _FILL_BETWEEN.search(text):
        hit("syntax", "fill between", rows.get("pgfplots_key", {}).get("every fill between plot"))
    for m in _BEGIN.finditer(text):
        hit("environment", m.group(1).strip())
    bound = bound_names(text)
    for name in dict.fromkeys(_CS.findall(text)):
        if len(name) > 1 and name not in bound:  # "" for \\ and other symbols
            hit("macro", name)
    return found, own


def _most_common(rows: dict[str, str]) -> str | None:
    counts: dict[str, int] = {}
    for prov in rows.values():
        counts[prov] = counts.get(prov, 0) + 1
    return max(counts, key=lambda p: (counts[p], p)) if counts else None


def _strong(kind: str, name: str, known: bool = False) -> bool:
    """A name that alone says which file a picture needs: an environment, a piece of
    syntax, a pic, a coordinate system, a macro of three letters or more, a name with a
    space (``matrix of nodes``).  A short word a package gives a key or shape of its own
    (``grid``, ``point``, ``r``) is evidence only with another name of the same file.  A
    macro of two letters (physics' ``\\vb``) is, when the document loads nothing the table
    does not know (``known``: a posted snippet) — no unknown package defines it there."""
    return kind in ("environment", "syntax", "pic", "cs") or " " in name or (
        kind == "macro" and len(name) >= (2 if known else 3))


def needs(text: str, loaded: Iterable[str], defined: Iterable[str] = (),
          available: Callable[[str], bool] | None = None,
          macro_packages: bool = True) -> Needs:
    """The loads a picture (``text``: the picture and the definitions it uses) needs beyond
    what its document loads (``loaded``: ``package:x``, ``library:y``, ``pgfplotslibrary:z``)
    and defines (``defined``: style and macro names, macros with their backslash).

    ``available`` tells whether a package is installed (the table may come from another TeX
    Live); with ``macro_packages`` false, no package is added for a macro alone (a document
    class of its own may define it).
    """
    tbl = table()
    found, own = wanted(text, tbl)
    loaded = set(loaded)
    have = tbl.provides(loaded)
    known = all(p in tbl.loads or p in tbl.base for p in loaded if p.startswith("package:"))
    mine = set(own) | {d.lstrip("\\") for d in defined}
    # a name something loaded gives already (circuitikz's ground shape) is served: another
    # file's key of the same name (circuits.ee's ground) would change what it means
    mine |= {n for prov, hits in found.items() if prov in have for _, n in hits}
    # the pattern key is served by any file that declares patterns (patterns.meta too)
    patterned = bool(have & set(tbl.rows.get("pattern", {}).values()))
    kept: dict[str, list[tuple[str, str]]] = {}
    for prov, hits in found.items():
        hits = [(k, n) for k, n in hits if n not in mine and not tbl.served(k, n, have)
                and not (k == "syntax" and n == "pattern" and patterned)
                and not (k == "macro" and not macro_packages and prov.startswith("package:"))]
        if prov in have or not hits or prov.split(":", 1)[1] in SKIP_PACKAGES:
            continue
        # PGF's own libraries are trusted on any name; another file on a strong one or two
        if prov not in tbl.pgf and len(hits) < 2 and not _strong(*hits[0], known):
            continue
        if prov.startswith("package:") and available is not None \
                and not available(prov.split(":", 1)[1]):
            continue
        kept[prov] = hits
    # a file whose every name another added file defines too is not needed (quantikz
    # defines \ket as physics does); a name two added files answer (circuitikz's ground
    # shape, circuits.ee's ground key) is the one's with more of the picture's names
    for prov in sorted(kept, key=lambda p: len(kept[p])):
        rivals = set(kept) - {prov}
        if all(tbl.served(k, n, rivals) or any(len(kept[q]) > len(kept[prov]) and
                                               n in {m for _, m in kept[q]} for q in rivals)
               for k, n in kept[prov]):
            del kept[prov]
    add = {prov: " ".join(hits[0]) for prov, hits in kept.items()}
    if any(p.startswith("pgfplotslibrary:") for p in add) and "package:pgfplots" not in have:
        add.setdefault("package:pgfplots", "pgfplots library")
    # a load another added load brings anyway is left out
    for p in list(add):
        if any(p != q and p in tbl.provides([q]) for q in add):
            del add[p]
    by = {k: sorted(n.split(":", 1)[1] for n in add if n.startswith(k + ":"))
          for k in KIND_ORDER}
    return Needs(tuple(by["package"]), tuple(by["library"]), tuple(by["pgfplotslibrary"]),
                 why={p.split(":", 1)[1]: w for p, w in add.items()})


def picture_environments(configured: Iterable[str], loaded: Iterable[str]) -> list[str]:
    """The picture environments to look for: the configured ones, then the table's
    environments that open a ``tikzpicture`` themselves (``chronology``, ``ganttchart``,
    ``quantikz``: its ``picture_environment`` rows) — those of the loaded packages, or any
    when the document loads nothing the table does not know."""
    tbl = table()
    loaded = set(loaded)
    have = tbl.provides(loaded)
    # a document that loads only what the table knows (a posted snippet) may use any of
    # them; one that loads another package may mean that package's environment of the name
    known = all(p in tbl.loads or p in tbl.base for p in loaded if p.startswith("package:"))
    out = list(configured)
    return out + sorted(e for e, p in tbl.rows.get("picture_environment", {}).items()
                        if (known or p in have) and e not in out)


_USE = re.compile(r"\\(usepackage|RequirePackage|usetikzlibrary|usepgflibrary|"
                  r"usepgfplotslibrary)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


def loaded_by(blocks: Iterable[str]) -> set[str]:
    """The providers preamble blocks load, as table ids."""
    kinds = {"usepackage": "package", "RequirePackage": "package", "usetikzlibrary": "library",
             "usepgflibrary": "library", "usepgfplotslibrary": "pgfplotslibrary"}
    out = set()
    for b in blocks:
        for m in _USE.finditer(b):
            out |= {f"{kinds[m.group(1)]}:{n.strip()}" for n in m.group(2).split(",")
                    if n.strip()}
    return out
