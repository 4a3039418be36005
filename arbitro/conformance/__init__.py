"""`arbitro conform`: another implementation's answers compared with the oracle's, each
disagreement blamed on the clause whose change makes it vanish (conform.py), and the adapter
process that speaks for that implementation (conform_adapter.py)."""
