"""Which model plays which game, and how a user names a seating."""

from __future__ import annotations

from typing import Any

from arbitro.model.errors import OptionError
from arbitro.model.family import family_of_game
from arbitro.model.game import GameModel, Seating


def model_for(game: str) -> GameModel:
    """The engine of the family that plays a spec's game (`samba` -> the rummy engine)."""
    return family_of_game(game).engine


def describe_seating(s: Seating) -> str:
    """`teams (4 players in 2 sides)`, `3 players alone`: a seating as a person reads it."""
    kind = "alone" if s.sides == s.players else f"in {s.sides} sides"
    what = f"{s.players} players {kind}"
    return f"{s.layout} ({what})" if s.layout else what


def choose_seating(
    model: GameModel, rules: Any, players: int | None, teams: bool, layout: str | None
) -> Seating:
    """The seating a user asked for, or a clear error listing the ones the rulebook allows.

    `--layout` names a seating; `--players` and `--teams` pick one by its count and sides. Given
    together they must agree.
    """
    options = list(model.seatings(rules))
    known = "; ".join(describe_seating(s) for s in options)
    if layout is not None:
        hits = [s for s in options if s.layout and s.layout == layout]
        if not hits:
            named = [s for s in options if s.layout]
            unnamed = [s for s in options if not s.layout]
            names = "; ".join(describe_seating(s) for s in named) or "none"
            more = (
                "; the others have no name: choose them with --players ("
                + ", ".join(describe_seating(s) for s in unnamed)
                + ")"
                if unnamed
                else ""
            )
            raise OptionError(
                f"{rules.rulebook} has no layout {layout!r}; named layouts: {names}{more}"
            )
        chosen = hits[0]
        if players is not None and players != chosen.players:
            raise OptionError(
                f"--layout {layout} seats {chosen.players} players, but --players says {players}"
            )
        if teams and chosen.sides == chosen.players:
            raise OptionError(
                f"--layout {layout} seats every player alone, but --teams asks for partnerships"
            )
        return chosen
    hits = options
    if players is not None:
        hits = [s for s in hits if s.players == players]
        if not hits:
            raise OptionError(
                f"{rules.rulebook} is not played by {players} players; seatings: {known}"
            )
    if teams:
        hits = [s for s in hits if s.sides < s.players]
        if not hits:
            who = f"{players} players" if players is not None else "any player count"
            raise OptionError(f"{rules.rulebook} has no team play for {who}; seatings: {known}")
    elif players is not None and len(hits) > 1:
        alone = [s for s in hits if s.sides == s.players]
        hits = alone or hits
    # several left: the book's first (usual) seating unless the user says otherwise
    return hits[0]
