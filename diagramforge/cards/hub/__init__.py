"""Versioned publishing to the Hugging Face Hub (push, changelog)."""
