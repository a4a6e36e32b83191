"""Builders: crawl sources, extract diagrams, render them with their real engines, write twins."""
