"""Which model plays which game, and how a user names a seating."""

from __future__ import annotations

import importlib
from typing import Any, cast

from arbitro.model.errors import OptionError
from arbitro.model.game import GameModel, Seating

_MODELS = {
    "escoba": ("arbitro.model.escoba", "ESCOBA"),
    "samba": ("arbitro.model.rummy", "RUMMY"),
    "canasta": ("arbitro.model.rummy", "RUMMY"),
}


def model_for(game: str) -> GameModel:
    """The game model for a game name."""
    module, name = _MODELS[game]
    return cast(GameModel, getattr(importlib.import_module(module), name))


def choose_seating(
    model: GameModel, rules: Any, players: int | None, teams: bool, layout: str | None
) -> Seating:
    """The seating a user asked for, or a clear error listing the ones the rulebook allows."""
    options = list(model.seatings(rules))

    def describe(s: Seating) -> str:
        kind = "alone" if s.sides == s.players else f"in {s.sides} sides"
        return f"{s.layout or s.players} ({s.players} players {kind})"

    known = "; ".join(describe(s) for s in options)
    if layout is not None:
        hits = [s for s in options if s.layout == layout]
        if not hits:
            raise OptionError(f"{rules.rulebook} has no layout {layout!r}; layouts: {known}")
        return hits[0]
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
            raise OptionError(
                f"{rules.rulebook} has no team play for {players} players; seatings: {known}"
            )
    elif players is not None and len(hits) > 1:
        alone = [s for s in hits if s.sides == s.players]
        hits = alone or hits
    if len(hits) > 1 and players is None:
        # the book's first (usual) seating unless the user says otherwise
        return hits[0]
    return hits[0]
