"""Format handlers: one module per format, each registering a ``DiagramFormat``."""
