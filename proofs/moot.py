"""Open points that never decide anything: a question a book leaves open, proved never to come up
in play, so that its readings always agree.

Each check is an exhaustive computation over the model's own functions and data, and names the
clauses it rests on; where a rule it rests on is changed (capture no longer forced, a pack that
leaves the opponents ten cards), the check no longer proves anything and says nothing.

- Escoba, the rest when nobody captured (*:rest-without-capturer): had nobody captured before
  the hand's last card, that card would face every other card of the pack on the table; the
  model's capture function finds a capture for every card against the other 39, and under
  forced capture (*:capture-forced) it must be taken, so someone has always captured.
- Escoba, the optional double for the cards (*:variant-cards-double-rule): the model's
  `cards_double` under each reading gives the same answer for every way of sharing the pack's
  cards between the sides.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from arbitro.model.escoba.family import FAMILY as ESCOBA
from arbitro.model.schema import EscobaRules


@dataclass(frozen=True)
class Moot:
    """An open point proved never to decide anything: which clause, why, and what was computed."""

    rulebook: str
    clause: str
    why: str
    core: tuple[str, ...]
    checked: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "how": "never-arises",
            "found": True,
            "rulebook": self.rulebook,
            "clause": self.clause,
            "text": self.why,
            "core": list(self.core),
            "checked": self.checked,
            **self.data,
        }


def rest_without_capturer(rules: EscobaRules) -> Moot | None:
    """Proved: someone has always captured by the end of the hand, so the rest never lacks a taker."""
    from arbitro.model.escoba.capture import capture_groups
    from arbitro.model.escoba.model import EscobaModel

    if not rules.capture_forced:
        return None
    model = EscobaModel()
    # every seating deals the whole pack; the largest pack any seating uses is the one checked
    cards = max((tuple(model.deck(rules, s)) for s in model.seatings(rules)), key=len)
    everything = 0
    for c in cards:
        everything |= 1 << c
    lonely = [
        model.card_name(c) for c in cards if not capture_groups(rules, everything & ~(1 << c), c)
    ]
    if lonely:
        return None
    return Moot(
        rules.rulebook,
        rules.cid("rest_without_capturer"),
        f"the case never arises: had nobody captured before the last card, it would face the"
        f" other {len(cards) - 1} cards on the table, every one of the {len(cards)} cards can"
        " take from those, and a card that can capture must",
        (rules.cid("capture_forced"), rules.cid("rest_without_capturer")),
        "the model's capture function, for every card against the rest of the pack",
        {"cards": len(cards)},
    )


def _shares(total: int, sides: int) -> Iterator[list[int]]:
    """Every way of giving at most `total` cards to `sides` sides, as counts."""
    if sides == 1:
        for n in range(total + 1):
            yield [n]
        return
    for n in range(total + 1):
        for rest in _shares(total - n, sides - 1):
            yield [n, *rest]


def cards_double_rule(rules: EscobaRules) -> Moot | None:
    """Proved: each reading of the optional double gives the same answer for every share of the
    cards, so which one the book means never matters."""
    from arbitro.model.escoba.model import EscobaModel
    from arbitro.model.escoba.scoring import cards_double

    model = EscobaModel()
    on = replace(rules, variant_cards_double=True)
    each = replace(on, variant_cards_double_rule="each_opponent")
    together = replace(on, variant_cards_double_rule="opponents_together")
    tried = 0
    for seating in model.seatings(rules):
        total = len(model.deck(rules, seating))
        for counts in _shares(total, seating.sides):
            for side in range(seating.sides):
                tried += 1
                if cards_double(each, counts, side) != cards_double(together, counts, side):
                    return None
    return Moot(
        rules.rulebook,
        rules.cid("variant_cards_double_rule"),
        "the readings never disagree: for every way of sharing the pack between the sides"
        f" ({tried} cases, every seating), each opposing side under ten cards and the opponents"
        " together under ten give the same answer",
        (rules.cid("variant_cards_double_rule"), rules.cid("variant_cards_double")),
        "the model's cards_double under both readings, for every share of the cards",
        {"cases": tried},
    )


CHECKS = (rest_without_capturer, cards_double_rule)


def book_moot(rules: Any) -> list[Moot]:
    """Every open point of one rule set proved never to decide anything."""
    if not ESCOBA.owns(rules):
        return []  # the open points proved moot are Escoba's
    return [m for check in CHECKS if (m := check(rules)) is not None]


__all__ = ["CHECKS", "Moot", "book_moot", "cards_double_rule", "rest_without_capturer"]
