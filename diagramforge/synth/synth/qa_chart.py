"""Chart QA: questions about a chart's axes, series and values, answered from its own data.

As ChartQA and PlotQA ask theirs from the table behind the chart, every answer here is
computed from what the source says the chart draws (:mod:`diagramforge.formats.charts`, read
by the picture's format: pgfplots coordinates, tables and expressions for TikZ), never from
its structure graph (whose "nodes" are tick labels) and never guessed. A text is quoted only
when it is on the chart's render (``shows``: the render's own text runs), so a question
never names what the picture does not show. A question is asked only when its answer is the
one right answer:

* ``chart_axes`` — the label of the x- or y-axis ("What is the label of the x-axis?"; not
  when the label is the axis's own letter, which the question gives away);
* ``chart_series`` — how many entries the legend has; how many series the chart plots
  (only when the legend names every plotted series once, so the count is the legend's);
* ``chart_values`` — a series' y value at an x it has (a point it lists, or a round
  x inside an expression's domain and the axis's y range: :func:`round_xs`), the series
  named by its legend entry, or unnamed when the chart has one series; answered to three
  significant digits.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from diagramforge.formats.charts import Chart, Series
from diagramforge.synth.synth.qa_common import Question, numbers, q

Shows = Callable[[str], bool]


def fmt(v: float) -> str:
    """A value as an answer: three significant digits, no trailing zeros, no ``-0``."""
    s = f"{v:.3g}"
    if "e" in s:
        s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "0") else s


def axes(chart: Chart, shows: Shows, rng: random.Random, n: int) -> list[Question]:
    out = []
    texts = [t for t in (chart.xlabel, chart.ylabel, chart.title, *chart.legend)
             if t and shows(t)]
    for axis, label in (("x", chart.xlabel), ("y", chart.ylabel)):
        if not label or not shows(label) or label.strip().casefold() == axis:
            continue  # "the label of the x-axis" that is "x" answers itself
        others = [t for t in dict.fromkeys(texts) if t != label]
        if not others:
            continue
        out.append(Question("chart_axes", f"axis:{axis}",
                            f"What is the label of the {axis}-axis?", "which", label,
                            rng.sample(others, min(n, len(others))),
                            keywords=[f"{axis}-axis|{axis} axis|{axis}axis"]))
    return out


def series(chart: Chart, shows: Shows, rng: random.Random, n: int) -> list[Question]:
    out = []
    legend = [t for t in chart.legend if t]
    if legend and all(shows(t) for t in legend) and len(set(legend)) == len(legend):
        out.append(Question("chart_series", "legend", "How many entries does the legend "
                            "have?", "count", str(len(legend)), numbers(len(legend), rng, n),
                            keywords=["legend"]))
        if chart.named():
            k = len(chart.plotted)
            out.append(Question("chart_series", "series", "How many data series does the "
                                "chart plot?", "count", str(k), numbers(k, rng, n),
                                keywords=["series|line|curve|plot"]))
    return out


def _points(s: Series, chart: Chart, rng: random.Random) -> list[tuple[float | str, float]]:
    """Points of a series a question may ask about: those it lists (each x once), or a
    round x inside an expression's domain — both inside the axis's x limits, the value
    inside its y limits (the plot is cut to them)."""
    if s.surface:
        return []
    if s.points:
        xs = [x for x, _ in s.points]
        return [(x, y) for x, y in s.points if xs.count(x) == 1
                and (isinstance(x, str) or chart.visible(x))]
    if s.expression is None or s.domain is None:
        return []
    out = []
    lo, hi = s.domain
    lo, hi = max(lo, chart.xmin if chart.xmin is not None else lo), \
        min(hi, chart.xmax if chart.xmax is not None else hi)
    if lo >= hi:
        return []
    for x in round_xs(lo, hi):
        y = s.at(x)
        if y is None or (chart.ymin is not None and y < chart.ymin) \
                or (chart.ymax is not None and y > chart.ymax):
            continue
        out.append((x, y))
    return out


def round_xs(lo: float, hi: float) -> list[float]:
    """Round x values inside ``[lo, hi]`` a reader finds on the axis: multiples of the power
    of ten that splits the domain into about four to forty steps (``-3:3`` → the integers,
    ``-360:360`` → the hundreds, ``0:1`` → tenths)."""
    step = 10.0 ** math.floor(math.log10((hi - lo) / 4))
    first = math.ceil(lo / step - 1e-9)
    return [round(k * step, 10) for k in range(first, math.floor(hi / step + 1e-9) + 1)]


def values(chart: Chart, shows: Shows, rng: random.Random, n: int) -> list[Question]:
    named = chart.named()
    if named:
        pool = [(name, s) for name, s in named if shows(name)]
    elif len(chart.series) == 1 and not chart.legend:
        pool = [("", chart.series[0])]
    else:
        return []
    out = []
    for name, s in pool:
        pts = _points(s, chart, rng)
        if not pts:
            continue
        x, y = rng.choice(pts)
        if isinstance(x, str) and not shows(x):
            continue
        at = q(x) if isinstance(x, str) else fmt(x)
        answer = fmt(y)
        others = list(dict.fromkeys(fmt(v) for _, v in pts if fmt(v) != answer))
        if not others:
            others = numbers_around(y, answer)
        whose = f" of {q(name)}" if name else ""
        refs = [name] if name else []
        if isinstance(x, str):
            refs.append(x)
        out.append(Question("chart_values", f"value:{name}:{x}",
                            f"What is the y value{whose} at x = {at}?", "which", answer,
                            rng.sample(others, min(n, len(others))), referents=refs,
                            keywords=["value"]))
    return out


def numbers_around(y: float, answer: str) -> list[str]:
    """Distractors for a series with one value: nearby values, each a different answer."""
    step = abs(y) * 0.25 or 1.0
    return [v for v in dict.fromkeys(fmt(y + k * step) for k in (-2, -1, 1, 2)) if v != answer]


GENERATORS = {"chart_axes": axes, "chart_series": series, "chart_values": values}
