"""The LLM layer: structured-output calls through an offline, OpenAI or Gemini backend, with
a content cache, schema validation and one repair, budget, rate limits and cost metrics.

Stages build ``Request`` objects and get ``Outcome`` objects back; a failure is a ledger
reason, never an exception, so one bad answer cannot stop a run.
"""

from diagramforge.synth.llm.client import LLM, make_backend
from diagramforge.synth.llm.meter import Meter
from diagramforge.synth.llm.params import LLMParams
from diagramforge.synth.llm.types import Completion, LLMCallError, Outcome, Request

__all__ = ["LLM", "Completion", "LLMCallError", "LLMParams", "Meter", "Outcome", "Request",
           "make_backend"]
