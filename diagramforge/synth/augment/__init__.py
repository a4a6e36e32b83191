"""Augmentation (the ``augment`` stage): hand-drawn sketches from the real engines, scan- and
photo-like image degradations (albumentations), and code variations through the LLM layer
(AugTikZ; rule-based with the offline backend), each kept only when it passes its checks.
"""
