"""Where PlantUML files are found in bulk: the ``sources`` capability the crawl's
defaults are made of (``crawl.stack.subsets``, ``crawl.repo_search.extensions``: every
format's, in the formats' order; :mod:`diagramforge.builders.crawl.settings`)."""

STACK_SUBSETS: tuple[str, ...] = ("data/markdown",)
"""The Stack's per-language subsets (their ``data_dir``) that hold PlantUML files."""
SEARCH_EXTENSIONS: tuple[str, ...] = ()
"""File extensions GitHub's code search is asked for (``extension:…``): none by default."""
