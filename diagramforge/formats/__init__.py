"""What a diagram *is*: one module per format (parse, validate, standalone, render)."""
