"""arbitro: a referee for traditional card games.

`arbitro.Oracle` answers what is legal and what a hand scores; the `arbitro` command line lists,
shows, compares and checks the rulebooks, simulates, plays, checks transcripts and serves the oracle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arbitro import native

native.install()  # before any engine module is imported: the compiled engine where it is usable

if TYPE_CHECKING:
    from arbitro.oracle.board import Board
    from arbitro.oracle.core import Oracle

__all__ = ["Board", "Oracle"]


def __getattr__(name: str) -> Any:
    # imported on first use: `import arbitro` stays cheap for a command that needs no engine
    if name == "Oracle":
        from arbitro.oracle.core import Oracle

        return Oracle
    if name == "Board":
        from arbitro.oracle.board import Board

        return Board
    raise AttributeError(f"module 'arbitro' has no attribute {name!r}")
