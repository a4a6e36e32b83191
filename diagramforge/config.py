"""``params.yaml`` loaded whole: every section composed into :class:`Params`, validated, then,
in one step, every section a plug-in owns checked by the registry that owns it.

Every number that changes what the dataset contains lives in a section model, not in code.
Each stage's section is beside its stage (``diagramforge/<stage>/settings.py``), a section a
lower package reads beside that package (``formats/``, ``graphs/``, ``synth/llm/``,
``builders/pdffigures/``, ``synth/referents/``, ``selection.py``), the cross-cutting ones and the
base types
in ``params.py`` (docs/ARCHITECTURE.md, "Settings").  This module, above every stage, is the
only one that imports them all at run time, and no module below it names :class:`Params`,
not even under ``TYPE_CHECKING`` (the import contract counts type-only imports): code there
takes the section it reads, or a ``Protocol`` naming the sections it reads
(``store.paths.ProjectSettings``, ``stage.StageSettings``, ``formats.settings.FormatSettings``,
a stage's own ``<Name>StageSettings``…), which the loaded ``Params`` satisfies.

The fixed sections are parsed first; then the filter registry parses ``filter.<name>``, the
format registry ``formats.<name>`` and the names ``twin.targets`` gives; every problem of
both steps is reported at once, each under its full key, as one
:class:`~diagramforge.params.ParamsError`.  Every command, test and benchmark loads params
through this module.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict, Field, field_validator

from diagramforge.builders.crawl.settings import CrawlParams
from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.builders.render.settings import RenderParams
from diagramforge.builders.twin.settings import TwinParams
from diagramforge.cards.evaluate.settings import EvaluateParams
from diagramforge.cards.publish.settings import PublishParams
from diagramforge.cards.validate.settings import ValidateParams
from diagramforge.filters.classifier.settings import ClassifierTrainParams
from diagramforge.filters.filter.base import check_sections as check_filters
from diagramforge.filters.filter.settings import FilterParams
from diagramforge.filters.split.settings import SplitParams
from diagramforge.formats.registry import check_sections as check_formats
from diagramforge.formats.registry import names
from diagramforge.formats.settings import FormatsParams
from diagramforge.graphs.settings import GraphParams
from diagramforge.params import (
    LicenceParams,
    ParamsError,
    ProjectParams,
    RunnerParams,
    Section,
    parse,
    read,
)
from diagramforge.selection import DEFAULT_SELECT, ConfigSelection
from diagramforge.synth.augment.settings import AugmentParams
from diagramforge.synth.edit.settings import EditParams
from diagramforge.synth.referents.settings import ReferentParams
from diagramforge.synth.synth.settings import SynthParams

__all__ = ["Params", "ParamsError", "check", "load_params", "parse_params"]


class Params(Section):
    """The whole of ``params.yaml``: one field per section, in the order the file has them
    (``diagramforge check-params`` prints it in this order)."""

    project: ProjectParams = ProjectParams()
    runner: RunnerParams = RunnerParams()
    licences: LicenceParams = LicenceParams()
    crawl: CrawlParams = CrawlParams()
    extract: ExtractParams = ExtractParams()
    render: RenderParams = RenderParams()
    classifier: ClassifierTrainParams = ClassifierTrainParams()
    filter: FilterParams = Field(default_factory=FilterParams)
    formats: FormatsParams = Field(default_factory=FormatsParams)
    split: SplitParams = SplitParams()
    validate_: ValidateParams = Field(ValidateParams(), alias="validate")
    publish: PublishParams = PublishParams()
    graph: GraphParams = GraphParams()
    edit: EditParams = EditParams()
    referents: ReferentParams = ReferentParams()
    augment: AugmentParams = AugmentParams()
    twin: TwinParams = Field(default_factory=TwinParams)
    synth: SynthParams = SynthParams()
    evaluate: EvaluateParams = EvaluateParams()
    select: dict[str, ConfigSelection] = DEFAULT_SELECT
    """Per published config (``generation``, ``sketch``, ``editing``…): the diagram types and
    token windows it takes from the pool (``diagramforge.selection``). A config left
    out keeps its default (a deleted line never silently widens a config)."""

    @field_validator("select", mode="after")
    @classmethod
    def _select_defaults(cls, v: dict[str, ConfigSelection]) -> dict[str, ConfigSelection]:
        return {**DEFAULT_SELECT, **v}

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def check(params: Params, origin: str = "params.yaml") -> Params:
    """``params`` with its plug-in sections parsed by their owners; raise
    :class:`ParamsError` naming every bad key."""
    filters, problems = check_filters(params.filter)
    formats, more = check_formats(params.formats, params.twin.targets)
    problems += more
    if problems:
        raise ParamsError(f"{origin} is invalid:\n" + "\n".join(f"  {p}" for p in problems))
    validate = params.validate_.model_copy()
    validate._registered = tuple(names())
    return params.model_copy(update={"filter": filters, "formats": formats,
                                     "validate_": validate})


def parse_params(data: dict | None, origin: str = "params.yaml") -> Params:
    """Validate a params mapping, fixed and plug-in sections."""
    return check(parse(Params, data, origin), origin)


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read and validate ``params.yaml`` (a missing file is an error: see
    :func:`diagramforge.params.read`)."""
    return parse_params(read(path), str(path))
