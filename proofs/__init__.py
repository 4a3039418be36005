"""Proofs about the rulebooks: Z3 encodings, invariants and the state-graph explorer."""
