"""The oracle: what is legal and what a hand scores, over the JSON-lines protocol.

`Oracle` (core.py) answers one request; protocol.py validates requests against the schemas;
states.py reads and writes positions; server.py serves the protocol; transcript.py reads and
writes transcripts; check.py replays a transcript and names the first disagreement; jsonio.py is
the strict JSON reader; variants.py applies house-rule overrides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arbitro.oracle.core import Oracle

__all__ = ["Oracle"]


def __getattr__(name: str) -> Any:
    # `Oracle` is imported on first use, so that reading one module of the package (jsonio, say)
    # does not load the engines
    if name == "Oracle":
        from arbitro.oracle.core import Oracle

        return Oracle
    raise AttributeError(f"module 'arbitro.oracle' has no attribute {name!r}")
