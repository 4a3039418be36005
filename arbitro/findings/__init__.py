"""What the books leave open, say twice, say wrongly or make impossible (core.py), the rulebooks
compared clause by clause (compare.py), dead ends seen in play (dead_ends.py), the witnesses of
differences (witnesses.py) and the verified cache of derived results (cache.py)."""
