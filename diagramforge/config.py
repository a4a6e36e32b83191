"""``params.yaml`` loaded whole: the fixed sections (``params.py``), then, in one step, every
section a plug-in owns checked by the registry that owns it.

``params.py`` sits at the bottom of the house and never goes looking for plug-ins (it used to:
its validators imported the filter and format registries, which import ``params.py`` back).
Here, above the registries, the filter registry parses ``filter.<name>``, the format registry
``formats.<name>`` and the names ``twin.targets`` gives; every problem of both steps is
reported at once, each under its full key, as one :class:`~diagramforge.params.ParamsError`.
Every command, test and benchmark loads params through this module.
"""

from __future__ import annotations

from pathlib import Path

from diagramforge import params as fixed
from diagramforge.filter.base import check_sections as check_filters
from diagramforge.formats.registry import check_sections as check_formats
from diagramforge.formats.registry import names
from diagramforge.params import Params, ParamsError

__all__ = ["Params", "ParamsError", "check", "load_params", "parse_params"]


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
    return check(fixed.parse_params(data, origin), origin)


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read and validate ``params.yaml`` (a missing file is an error: see
    :func:`diagramforge.params.load_params`)."""
    return check(fixed.load_params(path), str(path))
