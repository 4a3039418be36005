"""arbitro: a referee for traditional card games."""
