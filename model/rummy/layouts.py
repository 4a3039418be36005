"""Seatings and layouts: how many play, in how many sides, with how many cards; the deck; a new game.

Seat s belongs to side s % sides and play passes to seat + 1 (the book's direction, left or right,
only names that neighbour). A layout of a book fixes the players, the sides, the cards dealt to
each and, where the book says so, the packs. Implements *:layouts, *:play-direction, *:packs,
*:jokers-per-pack.
"""

from __future__ import annotations

from arbitro.model.errors import MalformedInput
from arbitro.model.game import Seating
from arbitro.model.rummy.state import State, new_state
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import Layout, RummyRules


def seatings(rules: RummyRules) -> tuple[Seating, ...]:
    """One seating per layout of the book. *:layouts."""
    return tuple(Seating(lay.players, lay.sides, lay.name) for lay in rules.layouts)


def layout_of(rules: RummyRules, players: int, sides: int, name: str) -> Layout:
    """The layout a seating names (by name, else by players and sides). *:layouts."""
    for lay in rules.layouts:
        if lay.name == name and lay.players == players and lay.sides == sides:
            return lay
    for lay in rules.layouts:
        if not name and lay.players == players and lay.sides == sides:
            return lay
    known = ", ".join(f"{x.name} ({x.players} players, {x.sides} sides)" for x in rules.layouts)
    raise MalformedInput(
        f"{rules.rulebook} has no layout {name!r} for {players} players in {sides} sides; layouts: {known}"
    )


def new_game(rules: RummyRules, seating: Seating, dealer: int = 0) -> State:
    """A game before its first deal."""
    lay = layout_of(rules, seating.players, seating.sides, seating.layout)
    if not 0 <= dealer < seating.players:
        raise MalformedInput(f"dealer must be a seat from 0 to {seating.players - 1}, got {dealer}")
    return new_state(lay.players, lay.sides, lay.name, dealer)


def deck(rules: RummyRules, seating: Seating) -> tuple[int, ...]:
    """The sorted deck of the seating's layout. *:packs, *:jokers-per-pack."""
    lay = layout_of(rules, seating.players, seating.sides, seating.layout)
    return tables(rules).deck(lay)
