"""Who plays, who sits where, and whose turn comes next.

Seats are numbered clockwise as seen from above: seat ``s + 1`` sits on the left of seat ``s``. A
side is ``seat % sides``, so with four players in two teams seats 0 and 2 are partners facing each
other. Implements escoba-es:player-counts, escoba-es:team-player-counts, escoba-es:play-direction
and escoba-es:dealer-rotation.
"""

from __future__ import annotations

from arbitro.model.errors import OptionError
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules

TEAMS = "teams"
"""The layout name of a partnership seating."""


def seatings(rules: EscobaRules) -> tuple[Seating, ...]:
    """Every seating the book allows: each player alone, then the partnership seatings."""
    alone = tuple(Seating(n, n) for n in rules.player_counts)
    teams = tuple(Seating(n, 2, TEAMS) for n in rules.team_player_counts)
    return alone + teams


def check_seating(rules: EscobaRules, seating: Seating) -> None:
    """OptionError unless the book allows this seating."""
    allowed = seatings(rules)
    if seating not in allowed:
        known = ", ".join(f"{s.players} players in {s.sides} sides" for s in allowed)
        raise OptionError(
            f"{rules.rulebook} is not played by {seating.players} players in {seating.sides} sides"
            f" ({rules.cid('player_counts')}); seatings: {known}"
        )


def next_seat(rules: EscobaRules, players: int, seat: int) -> int:
    """The seat that plays after ``seat``: the right-hand neighbour when play goes right."""
    # seats are numbered clockwise, so the right-hand neighbour has the lower number
    if rules.play_direction == "right":
        return (seat - 1) % players
    return (seat + 1) % players


def next_dealer(rules: EscobaRules, players: int, dealer: int) -> int:
    """Who deals the next hand (the dealer keeps every deal of a hand until it is over)."""
    if rules.dealer_rotation == "next_player":
        return next_seat(rules, players, dealer)
    raise OptionError(f"unknown dealer rotation {rules.dealer_rotation!r}")  # pragma: no cover


def turn_order(rules: EscobaRules, players: int, dealer: int) -> tuple[int, ...]:
    """The seats in the order they receive cards and play, starting next to the dealer."""
    order = []
    seat = dealer
    for _ in range(players):
        seat = next_seat(rules, players, seat)
        order.append(seat)
    return tuple(order)
