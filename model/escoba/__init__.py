"""Escoba (escoba de 15): the executable reference model.

`ESCOBA` implements `arbitro.model.game.GameModel`. Modules, one rule concept each: `cards` (the pack and
its tables), `seats` (players, turn order, the dealer), `dealing` (opening deal, opening sweep,
later deals), `capture` (capture groups, legal plays), `turn` (a play and what follows it),
`scoring` and `setenta` (the points of a hand), `game_end` (the 21 rule), `checks` (violations),
`codec` (JSON), `clauses` (which clauses decided a play).
"""

from __future__ import annotations

from arbitro.model.escoba.capture import capture_groups, legal_actions
from arbitro.model.escoba.cards import card, card_name, cards_of, mask_of, parse_card, parse_cards
from arbitro.model.escoba.checks import violations
from arbitro.model.escoba.dealing import deal, deals_in_hand, new_game
from arbitro.model.escoba.game_end import game_winner
from arbitro.model.escoba.model import ESCOBA, EscobaModel
from arbitro.model.escoba.scoring import score_hand, score_piles
from arbitro.model.escoba.seats import seatings
from arbitro.model.escoba.state import CATEGORIES, EscobaState, Play, Tally
from arbitro.model.escoba.turn import apply

__all__ = [
    "CATEGORIES",
    "ESCOBA",
    "EscobaModel",
    "EscobaState",
    "Play",
    "Tally",
    "apply",
    "capture_groups",
    "card",
    "card_name",
    "cards_of",
    "deal",
    "deals_in_hand",
    "game_winner",
    "legal_actions",
    "mask_of",
    "new_game",
    "parse_card",
    "parse_cards",
    "score_hand",
    "score_piles",
    "seatings",
    "violations",
]
