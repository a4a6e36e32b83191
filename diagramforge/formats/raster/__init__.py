"""The raster-figure format: what the toolkit knows about it, in one folder (its handler registers
it)."""
