"""Synthesis (captions, edit instructions, atomic edits, QA, augmentation) with LLM or
offline backends.  No stage uses it yet: the TikZ, mxGraph and SVG paths come first, and
everything here must be verifiable by code before a model is trusted with it."""
