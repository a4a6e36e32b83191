"""The LLM layer: structured-output calls through an offline, OpenAI or Gemini backend, with
a content cache, schema validation and one repair, budget, rate limits and cost metrics.

Stages build ``Request`` objects and get ``Outcome`` objects back; a failure is a ledger
reason (``llm_error``, ``llm_invalid_output``, ``budget_exhausted``), never an exception, so
one bad answer cannot stop a run::

    llm = LLM.from_params(LLMParams(...), cache_dir="data/cache/content")
    outcome = llm.complete(Request(task="qa", system=..., user=..., json_schema=...))
    outcomes = llm.complete_many(requests)        # batch API / threads per params
    estimate = llm.dry_run(requests)              # calls and dollars, nothing sent
    metrics = llm.meter.as_dict()                 # tokens and dollars per task
"""

from diagramforge.llm.client import LLM, make_backend, repair_message, validate
from diagramforge.llm.meter import Meter
from diagramforge.llm.types import (
    BUDGET_EXHAUSTED,
    LLM_ERROR,
    LLM_INVALID_OUTPUT,
    BackendCall,
    Completion,
    LLMCallError,
    Outcome,
    Request,
)
from diagramforge.params import LLMParams

__all__ = ["BUDGET_EXHAUSTED", "LLM", "LLM_ERROR", "LLM_INVALID_OUTPUT", "BackendCall",
           "Completion", "LLMCallError", "LLMParams", "Meter", "Outcome", "Request",
           "make_backend", "repair_message", "validate"]
