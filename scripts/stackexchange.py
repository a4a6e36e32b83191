"""A small TeX Stack Exchange dump in the official schema (used by make_samples.py).

Every post, user and revision here was written for the embedded corpus (none is copied from
the site); each post exercises something the ``stackexchange`` source must handle, and the
comment on it says what.  Bodies are the HTML Stack Exchange renders from Markdown: code in
``<pre><code>`` with ``<``, ``>`` and ``&`` escaped.  The dump follows the schema the field
notes give (no ``ContentLicense`` attribute, as in dumps before 2020), so each post's licence
comes from the date of its latest revision in PostHistory.xml.
"""

from __future__ import annotations

import hashlib
from html import escape

from papers import PIPELINE_FIGURE

_END = "\\end{tikzpicture}"
PIPELINE_PICTURE = PIPELINE_FIGURE[PIPELINE_FIGURE.index("\\begin{tikzpicture}"):
                                   PIPELINE_FIGURE.index(_END) + len(_END)] + "\n"
"""The picture of sample paper 2401.00101's pipeline figure, posted again on TeX.SE."""

SITE = "tex.stackexchange.com"


def code(text: str) -> str:
    return f"<pre><code>{escape(text.strip(chr(10)) + chr(10), quote=False)}</code></pre>\n"


def p(text: str) -> str:
    return f"<p>{text}</p>\n"


USERS = [
    {"Id": -1, "DisplayName": "Community", "CreationDate": "2010-07-26T19:05:34.000"},
    {"Id": 101, "DisplayName": "Paula Graf", "CreationDate": "2010-08-02T09:12:00.000"},
    {"Id": 102, "DisplayName": "knot_theorist", "CreationDate": "2010-09-14T17:40:11.000"},
    {"Id": 103, "DisplayName": "Jörg Knüpfer", "CreationDate": "2012-01-20T08:00:00.000"},
    {"Id": 104, "DisplayName": "Q&A Fan", "CreationDate": "2014-06-30T12:30:00.000"},
    {"Id": 105, "DisplayName": "Mirela Dobre", "CreationDate": "2015-11-03T21:15:42.000"},
]

POSTS: list[dict] = []
HISTORY: list[tuple[int, int, str, int | None]] = []
"""(post id, PostHistoryTypeId, date, user id) of every revision."""


def post(pid: int, ptype: int, created: str, body: str, owner: int | None = None,
         parent: int | None = None, score: int = 1, title: str | None = None,
         tags: str | None = None, accepted: int | None = None, edits: tuple[str, ...] = (),
         deleted_owner: str | None = None, community_wiki: str | None = None) -> None:
    """A post and its revisions: the initial ones at ``created``, a body edit at each of
    ``edits`` (by its owner)."""
    last = edits[-1] if edits else None
    POSTS.append({
        "Id": pid, "PostTypeId": ptype, "AcceptedAnswerId": accepted, "ParentId": parent,
        "CreationDate": created, "Score": score, "ViewCount": 40 * score + 7 if ptype == 1
        else None, "Body": body, "OwnerUserId": owner, "OwnerDisplayName": deleted_owner,
        "LastEditorUserId": owner if edits else None, "LastEditDate": last,
        "LastActivityDate": last or created, "Title": title, "Tags": tags,
        "AnswerCount": None, "CommentCount": 0, "CommunityOwnedDate": community_wiki})
    types = (1, 2, 3) if ptype == 1 else (2,)
    HISTORY.extend((pid, t, created, owner) for t in types)
    HISTORY.extend((pid, 5, when, owner) for when in edits)


# Q 1001 (CC BY-SA 2.5, 2010): a fragment, HTML entities in prose and code (<->).
post(1001, 1, "2010-11-15T10:03:00.000", owner=101, score=12, accepted=1002,
     title="Double-headed arrow between two nodes", tags="<tikz-pgf><arrows>", body=p(
         "I want an arrow with tips at both ends (<code>&lt;-&gt;</code>) between two boxes "
         "&amp; a label above it. This is what I have:") + code(r"""
\begin{tikzpicture}
\node[draw] (a) {Start};
\node[draw] (b) at (3,0) {End};
\draw[<->] (a) -- node[above] {both ways} (b);
\end{tikzpicture}
""") + p("The arrow tips look too small. How can I make them bigger?"))

# A 1002 (accepted; created under 2.5, body edited 2012: 3.0): several code blocks — a
# complete document, a fragment whose library line must reach the preamble, a shell line.
post(1002, 2, "2010-11-16T08:30:00.000", owner=102, parent=1001, score=20,
     edits=("2012-03-01T14:00:00.000",), body=p(
         "Use the <code>arrows.meta</code> library and scale the tips. A complete example:")
     + code(r"""
\documentclass[border=4pt]{standalone}
\usepackage{tikz}
\usetikzlibrary{arrows.meta}
\begin{document}
\begin{tikzpicture}
\node[draw, rounded corners] (a) {Start};
\node[draw, rounded corners] (b) at (4,0) {End};
\draw[{Latex[length=3mm]}-{Latex[length=3mm]}, thick] (a) -- node[above] {both ways} (b);
\end{tikzpicture}
\end{document}
""") + p("Or, keeping your nodes, with open tips:") + code(r"""
\usetikzlibrary{arrows.meta}
\begin{tikzpicture}
\node[draw] (a) {Start};
\node[draw] (b) at (3,0) {End};
\draw[{Stealth[open, scale=1.6]}-{Stealth[open, scale=1.6]}] (a) -- (b);
\end{tikzpicture}
""") + p("Compile it with") + code("pdflatex -interaction=nonstopmode answer.tex"))

# Q 1003 (3.0, 2016): a matrix fragment full of & (escaped &amp; in the HTML).
post(1003, 1, "2016-05-10T19:45:10.000", owner=103, score=7, accepted=1005,
     title="Arrows between the cells of a matrix of nodes",
     tags="<tikz-pgf><tikz-matrix><arrows>", body=p(
         "In a <code>matrix of nodes</code> the cells are separated by <code>&amp;</code> and "
         "rows end with <code>\\\\</code>. How do I draw arrows between cells?") + code(r"""
\usetikzlibrary{matrix}
\begin{tikzpicture}
\matrix (m) [matrix of nodes, column sep=1cm, row sep=8mm, nodes={draw}] {
  A & B \\
  C & D \\
};
\draw[->] (m-1-1) -- (m-1-2);
\draw[->] (m-1-2) -- (m-2-2);
\draw[->] (m-2-1) -- (m-1-1);
\end{tikzpicture}
"""))

# A 1004 (3.0): the owner's account was deleted — the dump keeps only a display name.
post(1004, 2, "2016-05-11T07:20:00.000", deleted_owner="user4711", parent=1003, score=4,
     body=p("Name the cells and use <code>edge</code>; full code:") + code(r"""
\documentclass[tikz,border=5pt]{standalone}
\usetikzlibrary{matrix}
\begin{document}
\begin{tikzpicture}
\matrix (m) [matrix of math nodes, column sep=12mm, row sep=10mm] {
  X & Y \\
  Z & W \\
};
\path[->, thick] (m-1-1) edge node[above] {$f$} (m-1-2)
                 (m-1-1) edge node[left] {$g$} (m-2-1)
                 (m-1-2) edge node[right] {$h$} (m-2-2)
                 (m-2-1) edge node[below] {$k$} (m-2-2);
\end{tikzpicture}
\end{document}
"""))

# A 1005 (accepted; created 2017 under 3.0, body edited 2019: its latest revision is 4.0):
# a tikz-cd fragment whose \usepackage line must reach the preamble.
post(1005, 2, "2017-02-01T11:11:11.000", owner=101, parent=1003, score=15,
     edits=("2019-06-20T16:00:00.000",), body=p(
         "For commutative diagrams <code>tikz-cd</code> is simpler:") + code(r"""
\usepackage{tikz-cd}
\begin{tikzcd}[column sep=large]
A \arrow[r, "\phi"] \arrow[d, "\psi"'] & B \arrow[d, "\chi"] \\
C \arrow[r, "\omega"'] & D
\end{tikzcd}
""") + p("<em>Edit:</em> labels on both sides, as asked in the comments."))

# A 1006 (3.0, edited 2017: still 3.0): a fragment using a style it never defines — it
# does not compile (ledgered by render).
post(1006, 2, "2017-03-01T09:00:00.000", owner=104, parent=1003, score=1,
     edits=("2017-03-02T10:00:00.000",), body=p("I use my own style for this:") + code(r"""
\begin{tikzpicture}
\node[mybox] (a) {one};
\node[mybox, right=of a] (b) {two};
\draw[->] (a) -- (b);
\end{tikzpicture}
"""))

# Q 1007 (4.0): prose only — no code block.
post(1007, 1, "2019-09-01T12:00:00.000", owner=105, score=4,
     title="Changing the main font with fontspec", tags="<fonts><fontspec><xetex>",
     body=p("I compile with XeLaTeX. How do I set the main font to a system font?"))

# A 1008 (4.0): code, but no picture in it.
post(1008, 2, "2019-09-02T08:15:00.000", owner=102, parent=1007, score=6, body=p(
    "Load <code>fontspec</code> and call <code>\\setmainfont</code>:") + code(r"""
\documentclass{article}
\usepackage{fontspec}
\setmainfont{DejaVu Serif}
\begin{document}
Hello, world!
\end{document}
"""))

# Q 1009 (4.0): a complete pgfplots document.
post(1009, 1, "2020-01-10T15:30:00.000", owner=103, score=9, accepted=1011,
     title="Plot a function and its derivative with pgfplots", tags="<tikz-pgf><pgfplots>",
     body=p("My plot of sin(x) works, but how do I add its derivative in another colour "
            "with a legend?") + code(r"""
\documentclass{standalone}
\usepackage{pgfplots}
\pgfplotsset{compat=1.18}
\begin{document}
\begin{tikzpicture}
\begin{axis}[domain=0:6.3, samples=60, xlabel=$x$, ylabel=$y$]
\addplot[blue, thick] {sin(deg(x))};
\end{axis}
\end{tikzpicture}
\end{document}
"""))

# A 1010 (4.0): downvoted — below the minimum score.
post(1010, 2, "2020-01-11T09:00:00.000", owner=104, parent=1009, score=-2, body=p(
    "Just draw it by hand:") + code(r"""
\begin{tikzpicture}
\draw[->] (0,0) -- (6.5,0);
\draw[red] plot[domain=0:6.3, samples=40] (\x, {cos(\x r)});
\end{tikzpicture}
"""))

# A 1011 (4.0, community wiki, accepted): a forest tree, its \usepackage hoisted.
post(1011, 2, "2020-02-01T10:00:00.000", owner=105, parent=1009, score=30,
     community_wiki="2020-02-01T10:00:00.000", body=p(
         "Community wiki: a tree of the derivatives, for reference.") + code(r"""
\usepackage{forest}
\begin{forest}
for tree={draw, rounded corners, l sep=8mm, s sep=6mm}
[$\sin x$ [$\cos x$ [$-\sin x$] [$-\cos x$]] [$\int \sin x \, dx$ [$-\cos x + C$]]]
\end{forest}
"""))

# Q 1013 (4.0): prose only; its answer is hostile.
post(1013, 1, "2021-03-04T18:00:00.000", owner=105, score=2,
     title="Why does my picture never finish compiling?", tags="<tikz-pgf><errors>",
     body=p("pdflatex runs forever on my picture and I have to kill it. Why?"))

# A 1014 (4.0): hostile — shell escape, reading /etc/passwd, an endless loop.
post(1014, 2, "2021-03-05T08:00:00.000", owner=102, parent=1013, score=3, body=p(
    "Three things that go wrong, do not run these:") + code(r"""
\begin{tikzpicture}
\immediate\write18{cat /etc/passwd > leaked.txt}
\node[draw] {shell escape};
\end{tikzpicture}
""") + code(r"""
\begin{tikzpicture}
\node[draw, text width=8cm] {\input{/etc/passwd}};
\end{tikzpicture}
""") + code(r"""
\def\spin{\spin}
\begin{tikzpicture}
\node[draw] {\spin};
\end{tikzpicture}
"""))

# A 1015 (4.0): a figure also drawn in a sample arXiv paper (2401.00101's pipeline),
# posted here as a complete example — the two land in one near-duplicate cluster.
post(1015, 2, "2022-07-01T13:37:00.000", owner=101, parent=1009, score=11, body=p(
    "Not a plot, but the same styling trick in a block diagram from my paper:") + code(r"""
\documentclass[border=2pt]{standalone}
\usepackage{amsmath,amssymb}
\usepackage{tikz}
\usetikzlibrary{arrows.meta,positioning}
\definecolor{accent}{RGB}{200,60,40}
\newcommand{\vect}[1]{\mathbf{#1}}
\newcommand{\R}{\mathbb{R}}
\tikzset{
  block/.style={draw, rounded corners, minimum width=2cm, minimum height=8mm, fill=accent!15},
  arrow/.style={-Stealth, thick}
}
\begin{document}
""" + PIPELINE_PICTURE + r"""\end{document}
"""))

# 1016: a tag wiki excerpt (PostTypeId 4) — not a question or an answer.
post(1016, 4, "2012-05-05T05:05:05.000", owner=-1, score=0,
     body=p("TikZ and PGF are TeX packages for creating graphics programmatically."))

# A 1018 (created exactly 2018-05-02T00:00: the first instant of 4.0): the same picture in
# two code blocks — kept once.
CIRCLE = r"""
\begin{tikzpicture}
\foreach \a/\t in {90/A, 0/B, -90/D, 180/C}
  \node[draw, circle] (\t) at (\a:1.5) {\t};
\draw[->] (A) to[bend left] (B);
\draw[->] (B) to[bend left] (D);
\draw[->] (C) to[bend left] (A);
\end{tikzpicture}
"""
post(1018, 2, "2018-05-02T00:00:00.000", owner=103, parent=1003, score=2, body=p(
    "A circular version:") + code(CIRCLE) + p("Full code again for copying:") + code(CIRCLE))

# A 1019 (4.0): its question (999) is not in the dump.
post(1019, 2, "2023-01-15T10:00:00.000", owner=104, parent=999, score=5, body=p(
    "Like this:") + code(r"""
\begin{tikzpicture}
\draw[fill=gray!20] (0,0) rectangle (2,1) node[midway] {orphan};
\end{tikzpicture}
"""))


def _guid(*parts: object) -> str:
    h = hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def history_rows() -> list[dict]:
    """PostHistory.xml: one row per revision, in date order as the site numbers them."""
    by_id = {q["Id"]: q for q in POSTS}
    rows = []
    for k, (pid, t, when, user) in enumerate(sorted(HISTORY, key=lambda h: (h[2], h[0], h[1])),
                                             start=1):
        q = by_id[pid]
        text = {1: q.get("Title"), 2: q["Body"], 3: q.get("Tags"), 5: q["Body"]}[t]
        rows.append({"Id": 5000 + k, "PostHistoryTypeId": t, "PostId": pid,
                     "RevisionGUID": _guid(pid, when), "CreationDate": when, "UserId": user,
                     "UserDisplayName": q["OwnerDisplayName"] if user is None else None,
                     "Comment": "added details" if t == 5 else None, "Text": text})
    return rows


def user_rows() -> list[dict]:
    return [{"Id": u["Id"], "Reputation": 1 if u["Id"] < 0 else 100 + u["Id"],
             "CreationDate": u["CreationDate"], "DisplayName": u["DisplayName"],
             "LastAccessDate": "2023-12-31T23:59:59.000", "Views": 10, "UpVotes": 5,
             "DownVotes": 0, "AccountId": 900000 + u["Id"] if u["Id"] > 0 else -1}
            for u in USERS]


def post_rows() -> list[dict]:
    """Posts.xml, by id; a question counts its answers."""
    return [{**q, "AnswerCount": sum(a.get("ParentId") == q["Id"] for a in POSTS)}
            if q["PostTypeId"] == 1 else q for q in sorted(POSTS, key=lambda q: q["Id"])]


def tables() -> dict[str, list[dict]]:
    return {"posts": post_rows(), "users": user_rows(), "post_history": history_rows()}
