"""What a chart is to chart QA: its axes, legend and series, as its source says they are
drawn — the contract of the ``chart`` capability (``formats/<name>/chart.py``:
``charts(code, assets) -> list[Chart]``, one per chart the picture holds, ``[]`` when the
format reads none from this code).

ChartQA and PlotQA ask their questions from the table behind a chart; a format whose code
states that table (TikZ's pgfplots) reads it into these types, and
:mod:`diagramforge.synth.synth.qa_chart` asks from them without knowing the language.  A
series drawn from an expression keeps the expression and the format's own evaluator
(:meth:`Series.at`): the format knows its arithmetic, the questions only ask for values.
Nothing is guessed: what a reader does not understand is left unknown, and no question is
asked of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Evaluator = Callable[[str, "float | None"], "float | None"]
"""A format's arithmetic: an expression's value at ``x``, ``None`` when it reads none."""


@dataclass
class Series:
    """One plotted series: its points (x may be a symbolic coordinate) or its expression."""

    points: list[tuple[float | str, float]] = field(default_factory=list)
    expression: str | None = None
    domain: tuple[float, float] | None = None
    forget: bool = False
    """Drawn, but no legend entry of its own (pgfplots' ``forget plot``)."""
    surface: bool = False
    """A surface or a 3-D curve, never read."""
    evaluator: Evaluator | None = field(default=None, repr=False, compare=False)
    """How the format computes :attr:`expression` (``None``: it cannot)."""

    def at(self, x: float) -> float | None:
        """The expression's value at ``x`` by the format's evaluator, ``None`` when there is
        no expression, no evaluator, or the evaluator reads no finite value."""
        if self.expression is None or self.evaluator is None:
            return None
        return self.evaluator(self.expression, x)


@dataclass
class Chart:
    xlabel: str = ""
    ylabel: str = ""
    title: str = ""
    legend: list[str] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    ymin: float | None = None
    ymax: float | None = None
    xmin: float | None = None
    xmax: float | None = None

    def visible(self, x: float) -> bool:
        """Whether ``x`` is inside the axis's x limits (the plot is cut to them)."""
        return (self.xmin is None or x >= self.xmin) and (self.xmax is None or x <= self.xmax)

    @property
    def plotted(self) -> list[Series]:
        """The series a legend lists, in order (``forget`` ones are not)."""
        return [s for s in self.series if not s.forget]

    def named(self) -> list[tuple[str, Series]]:
        """Series paired with their legend entries — only when the legend names each
        plotted series exactly once (one entry per series, in order); else none."""
        plotted = self.plotted
        if not self.legend or len(self.legend) != len(plotted) \
                or len({" ".join(t.casefold().split()) for t in self.legend}) < len(self.legend):
            return []  # an entry for two series ("x" and "\cos x" read alike) names neither
        return list(zip(self.legend, plotted, strict=True))
