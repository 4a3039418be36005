"""Escoba as constraints: the pack, captures, moves, scoring and the setenta, and their properties."""
