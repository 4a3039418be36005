"""The game families, each registered once: code outside a family's folder asks here, never
`if game == "escoba"` or `isinstance(rules, EscobaRules)`.

A family is one folder of model/ (escoba/, rummy/) whose engine plays one or more of the games a
spec names (`game = "samba"`, `"canasta"`). The folder's `family.py` builds one `GameFamily`; the
folder is listed once in `_REGISTERED`. A third family is a folder and one line there (see
docs/architecture.md for a skeleton).

The registry holds what the model knows about a family. Layers above keep their own per-family
hooks keyed by `GameFamily.name` (positions in arbitro/oracle/states.py, proof encodings in
proofs/), since the model imports nothing above it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeGuard, TypeVar

from arbitro.model.errors import OptionError
from arbitro.model.game import Game

R = TypeVar("R")
"""The family's typed rules (a class of arbitro.model.schema)."""
S = TypeVar("S", bound=Hashable)
"""The family's state."""


@dataclass(frozen=True, eq=False)
class GameFamily(Generic[R, S]):
    """One game family: its engine and what code outside its folder needs to know of it."""

    name: str
    """The family's name, also `GameModel.game` and the `game` field of its JSON states."""
    games: tuple[str, ...]
    """The spec games it plays (a spec's `[rulebook] game`)."""
    rules_type: type[R]
    """The class of its typed rules (`schema.rules_for` builds them)."""
    state_type: type[S]
    """The class of its engine's states."""
    engine: Game[R, S, Any]
    """The engine: legal actions, apply, the codec, the card notation."""
    categories: tuple[str, ...]
    """The scoring categories of a hand, in the order results list them."""
    end_hand: Callable[[R, S, str, int], S]
    """The state after the hand in a state ended for a reason, a seat having gone out (-1:
    nobody): the hand scored, and the game on to the next deal or over. Used to score a position
    the engine did not reach by itself."""

    def plays(self, game: str) -> bool:
        """Whether a spec's game (`[rulebook] game`) is one of this family's."""
        return game in self.games

    def owns(self, rules: object) -> TypeGuard[R]:
        """Whether these typed rules are this family's: what code that covers one family only
        (a proof about melds, Escoba's moot points) asks before it reads them."""
        return isinstance(rules, self.rules_type)

    def holds(self, state: object) -> TypeGuard[S]:
        """Whether this is a state of this family's engine."""
        return isinstance(state, self.state_type)


_REGISTERED = ("arbitro.model.escoba.family", "arbitro.model.rummy.family")
"""The module of each family, which defines `FAMILY`."""

_LOADED: list[GameFamily[Any, Any]] = []


def families() -> tuple[GameFamily[Any, Any], ...]:
    """Every registered family, in registration order."""
    if not _LOADED:
        for module in _REGISTERED:
            family = importlib.import_module(module).FAMILY
            if not isinstance(family, GameFamily):
                raise TypeError(f"{module}.FAMILY is not a GameFamily")
            _LOADED.append(family)
    return tuple(_LOADED)


def family_named(name: str) -> GameFamily[Any, Any]:
    """The family with this name (`escoba`, `rummy`)."""
    for f in families():
        if f.name == name:
            return f
    known = ", ".join(f.name for f in families())
    raise OptionError(f"unknown game family {name!r}; known: {known}")


def family_of_game(game: str) -> GameFamily[Any, Any]:
    """The family that plays a spec's game (`samba` -> the rummy family)."""
    for f in families():
        if game in f.games:
            return f
    known = ", ".join(g for f in families() for g in f.games)
    raise OptionError(f"unknown game {game!r}; known: {known}")


def family_of_rules(rules: object) -> GameFamily[Any, Any]:
    """The family whose typed rules these are."""
    for f in families():
        if isinstance(rules, f.rules_type):
            return f
    raise TypeError(f"{type(rules).__name__} are not the rules of a registered family")


def family_holding(state: object) -> GameFamily[Any, Any] | None:
    """The family whose engine's state this is; None for a state of no registered family (a
    test's own engine)."""
    for f in families():
        if f.holds(state):
            return f
    return None


def same_family(a: object, b: object) -> bool:
    """Whether two typed rules belong to the same family."""
    return family_of_rules(a) is family_of_rules(b)


__all__ = [
    "GameFamily",
    "families",
    "family_holding",
    "family_named",
    "family_of_game",
    "family_of_rules",
    "same_family",
]
