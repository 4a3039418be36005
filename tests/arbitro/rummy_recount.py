"""An independent recount of a finished Samba/Canasta hand, from the rules and the state's JSON only.

Written from the spec fields' meaning (model/schema.py), not from the engine's scoring code, so the
stateful tests can compare the two.
"""

from __future__ import annotations

from typing import Any

from arbitro.model.schema import RummyRules

WILD = {"JK", "2C", "2D", "2H", "2S"}
RED_THREES = {"3D", "3H"}
BLACK_THREES = {"3C", "3S"}


def points(rules: RummyRules, card: str) -> int:
    """A card's points (*:card-points); red threes are honours, not card points."""
    p = rules.card_points
    if card == "JK":
        return p.joker
    rank = card[:-1]
    if rank == "2":
        return p.two
    if rank == "3":
        return 0 if card in RED_THREES else p.black_three
    if rank == "A":
        return p.ace
    if rank in ("8", "9", "10", "J", "Q", "K"):
        return p.high
    return p.low


def recount(rules: RummyRules, state: dict[str, Any]) -> list[dict[str, int]]:
    """Per side: melds, hand, canastas, canaston, red-threes, black-threes, going-out, penalties."""
    sides = state["sides"]
    reason = state["result"]["reason"]
    packs = (
        next((lay.packs for lay in rules.layouts if lay.name == state["layout"]), 0) or rules.packs
    )
    all_reds, all_blacks = 2 * packs, 2 * packs
    hands = state["hands"]
    went_out = None
    if reason == "went-out":
        empty = [s for s, h in enumerate(hands) if not h]
        assert len(empty) == 1, "exactly one player has gone out"
        went_out = empty[0] % sides
    out: list[dict[str, int]] = []
    for side in range(sides):
        table = state["table"][side]
        melds = table["melds"]
        seats = [s for s in range(len(hands)) if s % sides == side]
        held = [c for s in seats for c in hands[s]]
        score_melds = went_out is None or went_out == side or rules.score_losing_melds
        completed = [
            m
            for m in melds
            if len(m["cards"]) >= rules.completed_size and m["kind"] != "black-threes"
        ]
        canastas = 0
        for m in completed:
            wild = sum(c in WILD for c in m["cards"])
            if m["kind"] == "escalera":
                canastas += rules.bonus_samba
            elif wild == len(m["cards"]):
                canastas += rules.wild_canasta_bonus
            elif wild == 0:
                canastas += rules.bonus_clean_canasta
            else:
                canastas += rules.bonus_dirty_canasta
        n_done = len(completed)
        canaston = 0
        if rules.canasta_de_canastas_count and n_done >= rules.canasta_de_canastas_count:
            canaston = rules.canasta_de_canastas_bonus
        elif rules.canaston_count and n_done >= rules.canaston_count:
            canaston = rules.canaston_bonus
        reds = len(table["red_threes"])
        if reds == 0:
            red = 0
        elif n_done >= rules.red_three_positive_min_completed:
            red = rules.red_three_all if reds == all_reds else reds * rules.red_three_each
        elif n_done < rules.red_three_negative_below_completed:
            every = reds == all_reds and rules.red_three_negative_all
            red = rules.red_three_negative_all if every else -reds * rules.red_three_each
        else:
            red = 0
        blacks_held = sum(c in BLACK_THREES for c in held)
        black = -rules.black_three_hand_penalty * blacks_held
        if any(sum(c in BLACK_THREES for c in hands[s]) == all_blacks for s in seats):
            black -= rules.black_threes_all_in_hand_penalty
        melded_blacks = sum(c in BLACK_THREES for m in melds for c in m["cards"])
        if melded_blacks == all_blacks:
            black += rules.black_threes_all_melded_bonus
        out.append(
            {
                "melds": sum(points(rules, c) for m in melds for c in m["cards"])
                if score_melds
                else 0,
                "hand": -sum(points(rules, c) for c in held if c not in RED_THREES),
                "canastas": canastas,
                "canaston": canaston,
                "red-threes": red,
                "black-threes": black,
                "going-out": rules.bonus_going_out if went_out == side else 0,
                "penalties": -rules.red_three_undeclared_penalty
                * sum(c in RED_THREES for c in held),
            }
        )
    return out
