"""Builders: crawl sources, extract diagram candidates, compile and render them."""
