"""What the books leave open, say twice, say wrongly or make impossible (core.py), the rulebooks
compared clause by clause (compare.py), and dead ends and endless games seen in play
(dead_ends.py)."""
