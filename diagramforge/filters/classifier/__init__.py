"""Diagram-type classifier: weak labels from code, generated negatives, a small trained
checkpoint, and batched ``transformers`` inference mapping types to keep / reject."""
