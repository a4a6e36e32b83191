"""Synthesis: captions and QA, atomic edits, augmentations and repairs, with every verifiable claim
computed by code."""
