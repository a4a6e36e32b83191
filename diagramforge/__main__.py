"""``python -m diagramforge`` is the ``diagramforge`` command."""

from diagramforge.cli import app

app()
