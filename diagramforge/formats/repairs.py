"""What a format's ``repair`` capability declares (``formats/<name>/repair.py``).

The ``repair`` stage (``synth/repair``) takes the diagrams render could not draw because
their code is broken, asks the LLM layer for a fix (the engine's error in the prompt), and
keeps a fix that renders and keeps the original's node texts. What is broken, how it is
mended and what must survive are the format's knowledge, so they live in its folder, found
by :meth:`~diagramforge.formats.registry.DiagramFormat.capability` ``("repair")``; a format
without one is not repaired. Such a module declares, with these names (:class:`Repair`):

* ``LANGUAGE: str`` — how a message names the code ("TikZ");
* ``FAILURES: tuple[str, ...]`` — the prefixes of render's rejection reasons it repairs
  (the engine's error is the ledger row's ``detail``);
* ``UNFIXABLE: frozenset[str]`` — those of its failures no fix of the code mends (a
  timeout, the sandbox refusing a file);
* ``SYSTEM: str`` and ``ask(code, error) -> str`` — the model's instructions and question;
* ``fix(code, error) -> (fixed code, what was done)`` — the rule-based fix the offline
  backend answers with (the code unchanged and ``""`` when no rule applies);
* ``texts(code) -> list[str]`` — the node texts a fix must keep (read from the code).
"""

from __future__ import annotations

from typing import Protocol


class Repair(Protocol):
    """A format's ``repair`` module, as the stage uses it."""

    LANGUAGE: str
    FAILURES: tuple[str, ...]
    UNFIXABLE: frozenset[str]
    SYSTEM: str

    def ask(self, code: str, error: str) -> str: ...

    def fix(self, code: str, error: str) -> tuple[str, str]: ...

    def texts(self, code: str) -> list[str]: ...
