"""Samba and Canasta as constraints: card kinds, melds, moves, scoring, and their properties."""
