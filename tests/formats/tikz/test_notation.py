from diagramforge.formats.tikz.notation import (
    find_root,
    flatten,
    origin_at,
    preamble_blocks,
    read_group,
    split_document,
    strip_comments,
    strip_markers,
)


def test_strip_comments_keeps_escaped_percent():
    src = "a % gone\n50\\% kept % gone\n% whole line\nb"
    assert strip_comments(src) == "a \n50\\% kept \nb"


def test_read_group_balanced_and_escaped():
    text = r"{a{b}\}c}rest"
    inner, end = read_group(text, 0)
    assert inner == r"a{b}\}c" and text[end:] == "rest"
    assert read_group("{never closes", 0) is None


def test_find_root_prefers_real_documents():
    files = {
        "sections/app.tex": r"\documentclass[../main.tex]{subfiles}\begin{document}x\end{document}",
        "main.tex": r"\documentclass{article}\begin{document}\input{a}\end{document}",
        "old/draft.tex": r"\documentclass{article}\begin{document}\end{document}",
        "macros.tex": r"\newcommand{\x}{y}",
    }
    assert find_root(files) == "main.tex"
    assert find_root({"notes.txt": "hi"}) is None


def test_flatten_all_include_forms_and_origins():
    files = {
        "main.tex": "\\documentclass{article}\n\\begin{document}\n\\input{sec/a}\n"
                    "\\include{sec/b}\n\\subfile{sec/c.tex}\n\\import{figs/}{d}\n"
                    "\\end{document}\n",
        "sec/a.tex": "AAA % comment\n",
        "sec/b.tex": "BBB",
        "sec/c.tex": "\\documentclass[../main]{subfiles}\\begin{document}CCC\\end{document}",
        "figs/d.tex": "DDD \\subimport{inner/}{e}",
        "figs/inner/e.tex": "EEE",
    }
    res = flatten(files, "main.tex")
    text = strip_markers(res.text)
    for token in ("AAA", "BBB", "CCC", "DDD", "EEE"):
        assert token in text
    assert "comment" not in text and "subfiles" not in text
    assert res.missing == []
    assert origin_at(res.text, res.text.index("EEE")) == "figs/inner/e.tex"
    assert origin_at(res.text, res.text.index("BBB")) == "sec/b.tex"
    assert origin_at(res.text, res.text.index("\\end{document}")) == "main.tex"


def test_flatten_missing_and_cycles_keep_going():
    files = {"main.tex": "\\input{a}\\input{nothere}\\input{/etc/passwd}", "a.tex": "A\\input{a}"}
    res = flatten(files, "main.tex")
    assert "nothere" in res.missing and "/etc/passwd" in res.missing
    assert any("cycle" in m for m in res.missing)
    # unresolved inputs stay in the text: the sandbox, not the reader, refuses them
    assert "\\input{/etc/passwd}" in strip_markers(res.text)


def test_split_document():
    pre, body = split_document("\\documentclass{x}\\usepackage{y}\\begin{document}B\\end{document}")
    assert "usepackage" in pre and body == "B"
    assert split_document("no body") is None


def test_preamble_blocks_keep_each_construct_whole():
    """Lines join until every group, option list and environment opened is closed; data
    inside a raw environment is not read as TeX (an unbalanced brace in a CSV row)."""
    pre = "\n".join([
        "\\documentclass{article}",
        "\\usepackage{tikz}",
        "",
        "\\tikzset{",
        "  box/.style={draw, % a comment with a { brace",
        "             fill=red!10},",
        "}",
        "\\tikzstyle{mid}=[",
        "    draw=blue, text width=1cm]",
        "\\begin{filecontents*}[overwrite]{loss.csv}",
        "epoch,{loss",
        "1,2.31",
        "\\end{filecontents*}",
        "\\newcommand{\\startlist}{\\begin{itemize}}  % an environment opened inside a group",
        "\\newcommand{\\brace}{\\{}",
        "\\makeatletter",
        "\\def\\my@x{1}",
        "\\makeatother",
        "\\pgfplotsset{compat=1.18}",
    ])
    blocks = preamble_blocks(pre)
    assert [b.split("\n")[0] for b in blocks] == [
        "\\documentclass{article}", "\\usepackage{tikz}", "\\tikzset{", "\\tikzstyle{mid}=[",
        "\\begin{filecontents*}[overwrite]{loss.csv}",
        "\\newcommand{\\startlist}{\\begin{itemize}}  % an environment opened inside a group",
        "\\newcommand{\\brace}{\\{}", "\\makeatletter", "\\pgfplotsset{compat=1.18}"]
    assert blocks[2].endswith("\n}") and blocks[4].endswith("\\end{filecontents*}")
    assert blocks[7] == "\\makeatletter\n\\def\\my@x{1}\n\\makeatother"
    assert "\n".join(blocks) == pre.replace("\n\n", "\n")  # as written, blank lines aside


def test_preamble_blocks_leave_a_catcode_change_open_around_package_loads():
    """``\\makeatletter`` joins what it wraps, but never a package load (a page may not
    load packages) nor a preamble it never closes."""
    pre = "\\makeatletter\n\\usepackage{x}\n\\makeatother\n\\makeatletter\n\\def\\a@b{}"
    assert preamble_blocks(pre) == pre.split("\n")
