"""PlantUML text: a file's diagrams and Markdown's fences as written, and what reaches
outside the text refused with a reason that names it (before the engine sees it)."""

from __future__ import annotations

import pytest

from diagramforge.formats.plantuml import source
from diagramforge.formats.plantuml.engine import PumlError, PumlReason


def test_a_file_splits_into_its_diagrams_of_any_kind():
    text = ("' a comment\n@startuml first\nA -> B\n@enduml\n\nnoise\n"
            "@startmindmap\n* root\n** leaf\n@endmindmap\n"
            "@startuml\nclass X\n")  # the last one never ends: up to the end of the file
    assert source.split_diagrams(text) == [
        "@startuml first\nA -> B\n@enduml\n",
        "@startmindmap\n* root\n** leaf\n@endmindmap\n",
        "@startuml\nclass X\n@enduml\n"]
    assert source.split_diagrams("no diagram here\n") == []


def test_markdown_fences_with_or_without_their_start_line():
    assert source.fence_diagrams("@startuml\nA -> B\n@enduml") == ["@startuml\nA -> B\n@enduml\n"]
    assert source.fence_diagrams("class X") == ["@startuml\nclass X\n@enduml\n"]
    assert source.fence_diagrams("@startuml\nA\n@enduml\n@startmindmap\n* r\n@endmindmap") == [
        "@startuml\nA\n@enduml\n", "@startmindmap\n* r\n@endmindmap\n"]
    assert source.fence_diagrams(" \n") == []


@pytest.mark.parametrize(("code", "names"), [
    ("!include /etc/passwd", "!include '/etc/passwd'"),
    ("!include ../../secret.puml", "!include '../../secret.puml'"),
    ("!include https://example.org/C4.puml", "!include 'https://example.org"),
    ("!includeurl http://example.org/x.puml", "!includeurl"),
    ("!includesub lib.puml!PART", "!includesub"),
    ("!include_many *.puml", "!include_many"),
    ("!include <../../etc/passwd>", "!include '<../../etc/passwd>'"),
    ("!import lib.zip", "!import"),
    ('A -> B : %getenv("HOME")', "%getenv"),
    ('A -> B : %get_env("HOME")', "%getenv"),
    ("!$x = %load_json(\"data.json\")", "reads files"),
    ('A -> B : %filename()', "reads files"),
    ('A -> B : %dirpath()', "reads files"),
    ('A -> B : %date("yyyy")', "%date"),
    ("!dump_memory", "!dump_memory"),
    ("!theme spacelab from https://example.org/themes", "!theme"),
    ("A -> B : <img:/etc/hostname>", "<img:"),
    ("A -> B : <img:https://example.org/a.png>", "<img:"),
    ('A -> B : <img src="/etc/x.png">', "<img src"),
    ("sprite $logo /home/me/logo.png", "sprite from a file"),
    ("sprite $logo https://example.org/logo.png", "sprite from a file"),
    ("!pragma svek_trace on", "!pragma"),
    ("!pragma graphviz_dot /bin/sh", "!pragma"),
    ("skinparam dotExecutable /bin/sh", "skinparam"),
])
def test_what_reaches_outside_the_text_is_refused_with_its_name(code, names):
    with pytest.raises(PumlError) as e:
        source.check(f"@startuml\n{code}\n@enduml\n")
    assert e.value.reason == PumlReason.UNSAFE
    assert names in e.value.detail and "line 2" in e.value.detail


def test_raw_dot_is_the_dot_formats_not_plantumls():
    for code in ("@startdot\ndigraph G { a [image=\"/etc/x\"] }\n@enddot\n",
                 "@startuml\n' dot inside\ndigraph G {\n a -> b\n}\n@enduml\n"):
        with pytest.raises(PumlError, match="raw Graphviz DOT"):
            source.check(code)


def test_what_stays_inside_passes():
    source.check("@startuml\n!include <tupadr3/font-awesome/server>\n"
                 "sprite $bug [15x15/16z] PKzR2i0m2BFMi15p__FEjQEqB1z27aeqCqixa8S4OT7C53cKpsHp\n"
                 "sprite $x {\n FFF\n}\n!pragma layout smetana\n"
                 "A -> B : images are <b>not</b> here (see img: in prose)\n@enduml\n")


def test_size_caps_name_the_cap():
    big = "@startuml\n" + "A -> B\n" * 50 + "@enduml\n"
    with pytest.raises(PumlError, match="lines > 20") as e:
        source.check(big, source.Caps(max_lines=20))
    assert e.value.reason == PumlReason.TOO_LARGE
    with pytest.raises(PumlError, match="bytes > 100"):
        source.check(big, source.Caps(max_bytes=100))
