"""The LLM layer: structured-output calls through an offline, OpenAI or Gemini backend, with
a content cache, schema validation and one repair, budget, rate limits and cost metrics.

Stages build ``Request`` objects and get ``Outcome`` objects back; a failure is a ledger
reason (``llm_error``, ``llm_invalid_output``, ``budget_exhausted``), never an exception, so
one bad answer cannot stop a run (``LLM`` is in :mod:`.client`, ``Request`` and ``Outcome``
in :mod:`.types`, the ``LLMParams`` settings in :mod:`.settings`)::

    llm = LLM.from_params(LLMParams(...), cache_dir="data/cache/content")
    outcome = llm.complete(Request(task="qa", system=..., user=..., json_schema=...))
    outcomes = llm.complete_many(requests)        # batch API / threads per params
    estimate = llm.dry_run(requests)              # calls and dollars, nothing sent
    metrics = llm.meter.as_dict()                 # tokens and dollars per task

This ``__init__`` imports nothing: ``config`` imports :mod:`.settings` with every other
section, and loading params must not load the client's cache, schema validator and HTTP
stack.
"""
