"""The settings base: the types every section of ``params.yaml`` is built from, the sections
no one stage owns, and the parsing helpers that turn a bad key into a message naming it.

Each stage's section lives beside its stage (``diagramforge/<stage>/settings.py``), a section
read by a lower package beside that package (``formats/settings.py``, ``graphs/settings.py``,
``synth/llm/settings.py``…), and ``config.py`` composes them all into :class:`Params` — the only
module that imports every stage's settings at run time (docs/ARCHITECTURE.md, "Settings").
What stays here is what sits below every one of them:

* :class:`Section`, the base of a fixed section (unknown keys are errors: a typo must not
  silently fall back to a default), and the base types of the sections plug-ins bring (a
  filter's ``filter.<name>``, a format's ``formats.<name>``) — a third-party filter
  subclasses :class:`FilterSection` from here;
* the cross-cutting sections: ``project``, ``runner`` (with ``runner.dask``), ``licences``;
* :func:`validate_sections`, the one routine both plug-in registries check with;
* :class:`ParamsError` and the helpers that read ``params.yaml`` and phrase every problem
  under its full key path (:func:`parse`, :func:`read`).

It imports no other part of diagramforge.  The plug-in sections are held as written until
their owners check them — the filter registry, the format registry — in one step after
loading (:func:`diagramforge.config.load_params`, the loader every command uses).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Section(BaseModel):
    """Base of every fixed section: frozen, and an unknown key is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PluginSection(BaseModel):
    """Base of a section a plug-in declares for itself (its registry validates it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class FilterSection(PluginSection):
    """Base of every filter's params section (``filter.<name>``; see ``filters/filter/base.py``)."""

    enabled: bool = True


class FormatSection(PluginSection):
    """Base of a format's own params section (``formats.<name>``), declared by its handler
    (``formats/<name>/handler.py``: ``params_model = ...``)."""


class PluginSections(BaseModel):
    """A section whose sub-sections belong to plug-ins: held as written by this module,
    replaced by the parsed models of their owners when the loader checks them
    (:func:`diagramforge.config.check`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def written(self) -> dict[str, Any]:
        """The plug-in sub-sections (as written, or parsed once checked)."""
        return dict(self.__pydantic_extra__ or {})

    def section(self, name: str, model: type[BaseModel] | None = None) -> Any:  # noqa: ANN401
        """The parsed sub-section ``name``. Params that were never checked (built in code,
        ``Params()``) hold it as written: the owner's ``model`` then parses it here."""
        got = (self.__pydantic_extra__ or {}).get(name)
        if isinstance(got, BaseModel):
            return got
        if model is None:
            raise LookupError(f"{name}: this params section was never checked; load params "
                              "with diagramforge.config.load_params / parse_params")
        return model.model_validate(got or {})


class ProjectParams(Section):
    name: str = "diagramforge-samples"
    seed: int = 1234
    data_dir: str = "data"
    metrics_dir: str = "metrics"


class DaskParams(Section):
    address: str | None = None
    """A running scheduler (``tcp://host:8786``); ``None`` starts a LocalCluster per run."""
    workers: Annotated[int, Field(ge=0)] = 0
    """LocalCluster workers; 0 means ``runner.workers``."""
    memory_limit: str = "auto"
    connect_timeout_s: Annotated[float, Field(gt=0)] = 30.0


class RunnerParams(Section):
    workers: Annotated[int, Field(ge=0)] = 2
    shard_size: Annotated[int, Field(ge=1)] = 64
    item_timeout_s: Annotated[float, Field(gt=0)] = 120.0
    progress: bool = True
    executor: Literal["local", "dask"] = "local"
    dask: DaskParams = DaskParams()


class LicenceParams(Section):
    allow: list[str] = ["MIT", "MIT-0", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC",
                        "0BSD", "Zlib", "BSL-1.0", "CC-BY-4.0", "CC-BY-3.0", "CC0-1.0",
                        "Unlicense", "CC-BY-SA-4.0", "CC-BY-SA-3.0", "CC-BY-SA-2.5"]
    """The permissive and public-domain licences, and CC BY-SA (4.0, and the 3.0 and 2.5 of
    Stack Exchange posts before 2018-05-02; ``params.yaml`` says why each family is in or
    out); non-commercial and no-derivatives licences are opt-in."""


def validate_sections(written: dict, models: dict[str, type[BaseModel]], prefix: str
                      ) -> tuple[dict[str, BaseModel], list[str]]:
    """Parse each plug-in's section of ``written`` with the model its plug-in declares —
    filters and formats bring their own params — and gather every problem, each with its
    full key (``filter.tokens.max``); the one routine both registries check with."""
    parsed, problems = {}, []
    for name, model in models.items():
        raw = written.get(name) or {}
        try:
            parsed[name] = raw if isinstance(raw, model) else model.model_validate(raw)
        except ValidationError as exc:
            problems += [".".join([prefix, name, *map(str, e["loc"])]) + f": {e['msg']}"
                         for e in exc.errors()]
    return parsed, problems


class ParamsError(ValueError):
    """A params.yaml problem, phrased for the person editing the file."""


MOVED_KEYS = {"graph.node_weight": "evaluate.scores.node_weight"}
"""Keys an older params.yaml has in another place: the error says where they went (the
graph scores' settings moved to ``evaluate.scores`` with their per-metric thresholds)."""


def describe(err: dict) -> str:
    """One pydantic error as a line naming its full key (``split.train``), what was wrong
    and what was given."""
    loc = ".".join("validate" if p == "validate_" else str(p) for p in err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = (f"moved to {MOVED_KEYS[loc]}" if loc in MOVED_KEYS
               else "unknown key (check the spelling; see params.yaml for the valid keys)")
    got = err.get("input")
    shown = "" if err["type"] in {"extra_forbidden", "missing"} or isinstance(got, dict) else (
        f" (got {got!r})"
    )
    return f"  {loc or '<root>'}: {msg}{shown}"


M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], data: dict | None, origin: str = "params.yaml") -> M:
    """Validate a params mapping with ``model`` (the whole :class:`~diagramforge.config.Params`);
    raise :class:`ParamsError` naming every bad key.  The plug-in sections stay as written:
    :func:`diagramforge.config.parse_params` is this plus their owners' check, what every
    command and test uses."""
    try:
        return model.model_validate(data or {})
    except ValidationError as exc:
        lines = [describe(e) for e in exc.errors()]
        raise ParamsError(f"{origin} is invalid:\n" + "\n".join(lines)) from None


def read(path: str | Path = "params.yaml") -> dict | None:
    """The mapping ``params.yaml`` holds (``None`` for an empty file), unvalidated.

    A missing file is an error, not the defaults: a mistyped ``-p`` or a stage run from
    the wrong directory would otherwise build a dataset nobody asked for, into a ``data/``
    that is not the project's."""
    p = Path(path)
    if not p.is_file():
        where = p.resolve().parent
        raise ParamsError(
            f"{p} not found (looked in {where}): run diagramforge from a project directory "
            f"(the one with params.yaml and dvc.yaml), or name the file with -p FILE")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ParamsError(f"{p} is not valid YAML: {exc}") from None
    if data is not None and not isinstance(data, dict):
        raise ParamsError(f"{p} must be a mapping of sections, got {type(data).__name__}")
    return data
