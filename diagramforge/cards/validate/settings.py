"""The ``validate`` section of ``params.yaml``: how many rows a published config needs and
which formats a published diagram may have.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, PrivateAttr

from diagramforge.params import Section


class ValidateParams(Section):
    min_rows: Annotated[int, Field(ge=0)] = 1
    formats: list[str] | None = None
    """Formats a published diagram may have; ``null``: every registered format handler."""

    _registered: tuple[str, ...] | None = PrivateAttr(None)
    """The format registry's names, set when the loader checks params (this module sits
    below the registry and never imports it)."""

    def format_names(self) -> list[str]:
        if self.formats is not None:
            return list(self.formats)
        if self._registered is None:
            raise LookupError("validate.formats: params never checked, so the registered "
                              "formats are unknown; load params with diagramforge.config")
        return sorted(self._registered)
