"""The error types of arbitro: every refusal names what is wrong and where."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def did_you_mean(word: str, known: Iterable[str], n: int = 3) -> str:
    """`"; did you mean X?"` naming the known names closest in spelling to a mistyped one (- and _
    alike, case aside), or "" when none is close."""
    import difflib

    def norm(s: str) -> str:
        return s.lower().replace("_", "-")

    by: dict[str, str] = {}
    for k in known:
        by.setdefault(norm(k), k)
    typed = norm(word[:100])
    scored = sorted(
        ((difflib.SequenceMatcher(None, typed, k).ratio(), k) for k in by), key=lambda x: -x[0]
    )
    if not scored or scored[0][0] < 0.6:
        return ""
    # the closest, and any as close as it: never a list of every name that shares some letters
    close = [k for r, k in scored[:n] if r >= scored[0][0] - 0.05]
    return f"; did you mean {', '.join(by[c] for c in close)}?"


class ArbitroError(Exception):
    """Root of every error arbitro raises on purpose."""


class SpecError(ArbitroError, ValueError):
    """A rulebook spec is malformed or incomplete; names the file and the key."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        # a problem of the whole file has no key to name: the path says where
        where = f"{file}: " if key == "<file>" else f"{file}: {key}: "
        super().__init__(f"{where}{problem}")


class UnknownRulebook(ArbitroError, KeyError):
    """A rulebook id that no spec file defines."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(name)

    def __str__(self) -> str:
        name = self.name if len(self.name) <= 60 else self.name[:60] + "…"
        hint = did_you_mean(self.name, self.known)
        return f"unknown rulebook {name!r}; known: {', '.join(self.known)}{hint}"


class OptionError(ArbitroError, ValueError):
    """A variant option that the rulebook does not offer, or a value it cannot take."""


class MalformedInput(ArbitroError, ValueError):
    """Input (a state, an action, a transcript line) that is not well formed; says what was expected."""


class IllegalAction(ArbitroError, ValueError):
    """A well-formed action that the rules forbid; carries the clause it breaks."""

    def __init__(
        self,
        action: Any,
        clause: str,
        reason: str,
        penalty: int | None = None,
    ) -> None:
        self.action = action
        self.clause = clause
        self.reason = reason
        self.penalty = penalty
        priced = f"; the book prices it at {penalty} points" if penalty is not None else ""
        super().__init__(f"{reason} ({clause}){priced}")
