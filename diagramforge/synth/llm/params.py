"""Parameters of the LLM layer: backend, model, sampling, limits, prices and budget.

Every number that changes what a call returns or costs is a param, so the cache key and the
cost metrics follow from params alone.  The API key is *not* a param: only the *names* of the
environment variables that may hold it are, so a key can never reach ``params.yaml``, a DVC
lock file, a record or a cache key.

Defined in ``diagramforge/params.py`` (the ``synth`` section is a :class:`LLMParams` with the
task knobs added) and re-exported here, where the LLM layer imports it from.
"""

from diagramforge.params import DEFAULT_KEY_ENV, LLMBackend, LLMParams

Backend = LLMBackend

__all__ = ["DEFAULT_KEY_ENV", "Backend", "LLMParams"]
