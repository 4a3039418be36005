"""The error types of arbitro: every refusal names what is wrong and where."""

from __future__ import annotations

from typing import Any


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
        return f"unknown rulebook {name!r}; known: {', '.join(self.known)}"


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
