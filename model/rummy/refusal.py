"""The internal form of a refusal, and the judge that either raises it or collects every one.

Rule modules refuse an action through a `Judge`, naming a RummyRules field, a reason and, where
the book prices the act, the priced act; the engine turns each into `model.errors.IllegalAction`
carrying the clause id and the book's penalty. A rule module checks an action's clauses from the
most specific (the cards of a meld) to the most general (the opening, going out, the turn), so
the first refusal is the root cause.

`STRICT` raises the first refusal, which is what `apply` and the list of legal actions need;
`LISTED` is `STRICT` for an action already found legal, whose refusal-only checks are skipped.
A collecting judge (`Judge(collect=True)`) records a refusal and lets the rule module go on
judging the rest of the action, for `refusals`; where nothing further can be judged (the cards
are not even held), the module calls `halt`, which ends the judging.
"""

from __future__ import annotations

from typing import Final, NoReturn


class Refusal(Exception):
    """An action the rules forbid, before it is given its clause id."""

    def __init__(self, key: str, reason: str, act: str | None = None) -> None:
        self.key = key
        self.reason = reason
        self.act = act
        super().__init__(reason)


class Halt(Exception):
    """A collecting judge stops: what is left of the action cannot be judged."""


class Judge:
    """Raises (strict) or collects (collect=True) the refusals of one action."""

    __slots__ = ("found",)

    def __init__(self, collect: bool = False) -> None:
        self.found: list[Refusal] | None = [] if collect else None

    def refuse(self, key: str, reason: str, act: str | None = None) -> None:
        """The action breaks this clause; a collecting judge notes it and judging goes on."""
        found = self.found
        if found is None:
            raise Refusal(key, reason, act)
        if all(r.key != key for r in found):
            found.append(Refusal(key, reason, act))

    def halt(self, key: str, reason: str, act: str | None = None) -> NoReturn:
        """The action breaks this clause and nothing after it can be judged."""
        self.refuse(key, reason, act)
        raise Halt

    def stop(self) -> None:
        """A collecting judge that has found something ends here: the state the action would
        lead to is not one the rules reach, so nothing more is judged on it."""
        if self.found:
            raise Halt


STRICT: Final = Judge()
"""The judge of `apply` and `legal_actions`: the first refusal is raised."""

LISTED: Final = Judge()
"""The judge of `apply` for an action `legal_actions` listed as legal: it raises as `STRICT`
does, but the rule modules may leave out the checks that could only refuse the action (a
listed action passes them all), keeping every one that shapes the state reached."""
