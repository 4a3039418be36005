"""arbitro: a referee for traditional card games.

`arbitro.Oracle` answers what is legal and what a hand scores; the `arbitro` command line lists,
shows, compares and checks the rulebooks, simulates, plays, checks transcripts and serves the oracle.
"""

from arbitro import native

native.install()  # before any engine module is imported: the compiled engine where it is usable

from arbitro.oracle import Oracle  # noqa: E402

__all__ = ["Oracle"]
