"""Samba (three books) and Canasta: one rummy-family engine driven entirely by spec data.

`RUMMY` implements `arbitro.model.game.GameModel`. Modules, one rule concept each: `cards` (cards as small
ints, the deck), `tables` (per-rules lookups), `melds` (sets, escaleras, wild and black-three
melds), `laying` (candidate new melds), `arrange` (exact search over arrangements of a hand),
`layouts` (seatings, the deck, a new game), `dealing` (the deal, the upcard, the opening table),
`turn` (the start and end of a turn), `stock` (drawing, stock-out), `pile` (taking the discard
pile), `melding` (laying, adding, merging, cleaning, finishing the opening), `opening` (the
opening minimum), `red_threes`, `going_out` (requirements, asking the partner, dead ends),
`scoring` (a hand, the game), `state`, `actions`, `refusal` (judging an action), `engine` (the
legal actions, `apply`, every refusal), `trace` (the clauses an action used), `checks`
(violations), `codec` (JSON).
"""

from __future__ import annotations

from arbitro.model.rummy.actions import (
    Action,
    AddToMeld,
    Answer,
    AskPartner,
    Discard,
    Draw,
    FinishOpening,
    LayMeld,
    Merge,
    ReplaceWild,
    Stop,
    TakePile,
    action_from_json,
    action_to_json,
)
from arbitro.model.rummy.cards import JOKER, card, card_name, parse_card, parse_cards
from arbitro.model.rummy.checks import violations
from arbitro.model.rummy.dealing import RuleGap, deal, opening_minimum
from arbitro.model.rummy.engine import apply, legal_actions, refusals
from arbitro.model.rummy.layouts import deck, new_game, seatings
from arbitro.model.rummy.melds import Meld
from arbitro.model.rummy.model import RUMMY, RummyModel
from arbitro.model.rummy.scoring import CATEGORIES, score_hand
from arbitro.model.rummy.state import Result, Side, State

__all__ = [
    "CATEGORIES",
    "JOKER",
    "RUMMY",
    "Action",
    "AddToMeld",
    "Answer",
    "AskPartner",
    "Discard",
    "Draw",
    "FinishOpening",
    "LayMeld",
    "Meld",
    "Merge",
    "ReplaceWild",
    "Result",
    "RuleGap",
    "RummyModel",
    "Side",
    "State",
    "Stop",
    "TakePile",
    "action_from_json",
    "action_to_json",
    "apply",
    "card",
    "card_name",
    "deal",
    "deck",
    "legal_actions",
    "new_game",
    "opening_minimum",
    "parse_card",
    "parse_cards",
    "refusals",
    "score_hand",
    "seatings",
    "violations",
]
