"""arbitro's rulebooks as OpenSpiel games: ``import arbitro.openspiel`` registers one per book.

Needs OpenSpiel (``pip install 'arbitro[openspiel]'``). Then ``pyspiel.load_game("arbitro_escoba_es")``
or `load` (``load("samba-fr", layout="6-pairs", max_hands=1)``) gives a pyspiel game played by
arbitro's own engine; docs/openspiel.md lists the games, their parameters, the action ids and the
observations.
"""

from __future__ import annotations

try:
    import pyspiel  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised only where OpenSpiel is missing
    raise ImportError(
        "arbitro.openspiel needs OpenSpiel: pip install 'arbitro[openspiel]' (package open_spiel)"
    ) from e

from arbitro.openspiel.encoding import ActionCodec, EscobaCodec, RummyCodec
from arbitro.openspiel.game import (
    REGISTERED,
    ArbitroGame,
    ArbitroObserver,
    ArbitroState,
    Variant,
    game_name,
    history_string,
    load,
    register,
    register_all,
    seen,
    set_config_loader,
    variant,
)

GAMES = register_all()
"""Rulebook id -> OpenSpiel short name of every shipped rulebook, registered on import."""

__all__ = [
    "GAMES",
    "REGISTERED",
    "ActionCodec",
    "ArbitroGame",
    "ArbitroObserver",
    "ArbitroState",
    "EscobaCodec",
    "RummyCodec",
    "Variant",
    "game_name",
    "history_string",
    "load",
    "register",
    "register_all",
    "seen",
    "set_config_loader",
    "variant",
]
