"""The ``synth`` section of ``params.yaml``: the LLM (backend, model, prices, budget, limits)
plus what the language tasks generate.

``SynthParams`` *is* an :class:`~diagramforge.synth.llm.LLMParams` with the task knobs
added, so the budget is ``synth.budget_usd`` and the backend ``synth.backend`` — one flat
section a user edits — while the LLM layer still receives exactly its own model
(:meth:`SynthParams.llm`). Defined in ``diagramforge/params.py``, re-exported here.
"""

from diagramforge.params import SynthParams, SynthQAType, SynthTask

__all__ = ["SynthParams", "SynthQAType", "SynthTask"]
