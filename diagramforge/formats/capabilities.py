"""A format's capabilities found by its folder, without importing its handler.

A format is a folder ``formats/<name>/`` holding a ``handler.py``; what else the toolkit
knows of it is a module beside the handler, a *capability* (``evidence`` its type evidence,
``difficulty`` its tier settings and measures, ``caps`` its element caps and counts, ``edit``,
``twin``…), declared absent by being absent.  The handler loads the format's engine (TeX,
Chromium, OCR); a stage that only reads code (the classifier, the filters, split) asks for a
capability here, by the format's name — the folder is named as the format
(``tests/formats/test_registry.py`` holds the registry to it) — and loads no engine, nor any
other format's code.  :meth:`~diagramforge.formats.registry.DiagramFormat.capability` is the
same lookup from a handler class.

Only the standard library is imported here, so a stage that looks a capability up depends on
this module and on the capability modules it loads (declared with a glob in its ``code``,
``"formats/*/evidence.py"``), not on every handler.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path
from types import ModuleType

PACKAGE = __name__.rpartition(".")[0]
ROOT = Path(__file__).resolve().parent


@cache
def folders() -> tuple[str, ...]:
    """Every format folder's name (a subpackage of ``formats`` holding a ``handler.py``),
    sorted: the formats, found by being there."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules([str(ROOT)])
                        if m.ispkg and (ROOT / m.name / "handler.py").is_file()))


def load(package: str, name: str) -> ModuleType | None:
    """The module ``<package>.<name>``, or ``None`` when that very module does not exist;
    a module that is there but fails to import (something it imports is missing) raises."""
    module = f"{package}.{name}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return None


def of(fmt: str, name: str) -> ModuleType | None:
    """Format ``fmt``'s capability ``name`` (``formats/<fmt>/<name>.py``), or ``None`` when
    the format has none or no such format exists."""
    return load(f"{PACKAGE}.{fmt}", name) if fmt in folders() else None


def every(name: str) -> dict[str, ModuleType]:
    """Format → its capability ``name``, for every format that has it, by name."""
    return {fmt: m for fmt in folders() if (m := of(fmt, name)) is not None}
