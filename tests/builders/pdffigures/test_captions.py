"""Caption lines, multi-line captions and figure references, on hand-made text."""

from __future__ import annotations

import pytest

from diagramforge.builders.pdffigures.captions import (
    caption_start,
    referenced_numbers,
    split_captions,
)
from diagramforge.builders.pdffigures.page import Block, Line, PageContent, join_lines
from diagramforge.builders.pdffigures.settings import DEFAULT_CAPTION_PATTERNS, PdfFigureParams

P = DEFAULT_CAPTION_PATTERNS


def line(text: str, y: float, x0: float = 100, x1: float = 400, bold: bool = False,
         size: float = 10) -> Line:
    return Line((x0, y, x1, y + size), text, size, bold)


@pytest.mark.parametrize(("text", "bold", "want"), [
    ("Figure 3: A tree.", False, ("Figure", "3")),
    ("Fig. 12. Results", False, ("Figure", "12")),
    ("FIGURE 2 | Overview", False, ("Figure", "2")),
    ("Figure S4: Supplement", False, ("Figure", "S4")),
    ("Figure 4.1: An image", False, ("Figure", "4.1")),
    ("Figure 4.1 An image", True, ("Figure", "4.1")),
    ("Table 1: Numbers", False, ("Table", "1")),
    ("Figure 2 Overview of the method", True, ("Figure", "2")),  # bold label, no delimiter
    ("Figure 2 shows the processing flow.", False, None),  # running text
    ("As Figure 2: no", False, None),  # not at the start
])
def test_caption_start(text: str, bold: bool, want: tuple[str, str] | None) -> None:
    assert caption_start(line(text, 0, bold=bold), P) == want


def test_multiline_caption_and_split_from_labels() -> None:
    # one PyMuPDF block holding figure labels and then the caption; the caption continues
    # in a second block right below
    labels_and_caption = Block((100, 0, 400, 50), [
        line("Encoder Decoder", 0, 150, 300),
        line("Figure 1: The model. Its encoder reads the input and", 20),
        line("the decoder writes the output.", 32, x1=260),
    ])
    continuation = Block((100, 44, 400, 54), [line("Dashed arrows are optional.", 44, x1=250)])
    body = Block((100, 80, 400, 120), [line("Running text that follows the figure and has", 80),
                                         line("nothing to do with its caption at all.", 92)])
    page = PageContent(0, (0, 0, 612, 792), [labels_and_caption, continuation, body], [])
    caps, others = split_captions(page, PdfFigureParams().caption_patterns)
    assert [c.label for c in caps] == ["Figure 1"]
    assert caps[0].text == ("Figure 1: The model. Its encoder reads the input and the decoder "
                            "writes the output. Dashed arrows are optional.")
    assert caps[0].bbox[1] == 20  # the labels above are not caption
    assert [b.text for b in others] == ["Encoder Decoder", body.text]


def test_caption_mid_paragraph_is_running_text() -> None:
    # "Figure 3." wrapped onto the start of a full line inside a paragraph: not a caption
    para = Block((100, 0, 400, 40), [line("the results are summarised in", 0),
                                     line("Figure 3. They show a clear gain over the", 12),
                                     line("baseline.", 24, x1=150)])
    caps, _ = split_captions(PageContent(0, (0, 0, 612, 792), [para], []), P)
    assert caps == []


@pytest.mark.parametrize(("text", "want"), [
    ("as shown in Figure 3.", {"3"}),
    ("see Fig. 3(b) and Fig.~4", {"3", "4"}),
    ("Figs. 2 and 3 compare", {"2", "3"}),
    ("Figures 2\u20134 show", {"2", "3", "4"}),
    ("Figs. 1, 5, and 7", {"1", "5", "7"}),
    ("in Figure S2", {"S2"}),
    ("see Figure 4.1. Then Figures 2.1 and 2.3", {"4.1", "2.1", "2.3"}),
    ("Table 3 and figure skating", set()),
])
def test_referenced_numbers(text: str, want: set[str]) -> None:
    assert referenced_numbers(text) == want


def test_join_lines_undoes_hyphenation() -> None:
    joined = join_lines(["as the fig-", "ure shows", "", "Figure 2"])
    assert joined == "as the figure shows Figure 2"
