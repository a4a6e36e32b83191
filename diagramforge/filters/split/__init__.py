"""Whole-corpus curation used by the ``split`` stage: near-duplicate detection
(:mod:`.near_dup`), difficulty tiers (:mod:`.difficulty`) and leakage-safe, stratified,
stable split assignment (:mod:`.splits`).

Kept apart from the stage module so the benchmark (``benchmarks/near_dup.py``) measures the
very code the pipeline runs, and each part is testable without a pipeline.
"""
