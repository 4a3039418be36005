"""Observation tensors: a seat's view (`GameModel.view`) laid out as fixed-size float arrays.

Every number is read off the view itself, so a tensor shows exactly what the view shows and
nothing hidden from the seat. A layout is a list of named pieces; OpenSpiel receives them in order
as one flat tensor (`Layout.size` floats) and as named arrays (the observer's ``dict``). The pieces
of each game are listed in docs/openspiel.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Piece:
    """One named part of a tensor."""

    name: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Layout:
    """The pieces of a game's observation tensor and how to fill them from a view."""

    def __init__(
        self,
        pieces: Sequence[Piece],
        fill: Callable[[Mapping[str, Any], dict[str, Array]], None],
    ) -> None:
        self.pieces = tuple(pieces)
        self.size = sum(p.size for p in self.pieces)
        self._fill = fill

    def views(self, tensor: Array) -> dict[str, Array]:
        """Named, reshaped windows onto a flat tensor of `size` floats."""
        out: dict[str, Array] = {}
        i = 0
        for p in self.pieces:
            out[p.name] = tensor[i : i + p.size].reshape(p.shape)
            i += p.size
        return out

    def fill(self, view: Mapping[str, Any], named: dict[str, Array]) -> None:
        """Write a view into the named windows (zeroed first)."""
        for arr in named.values():
            arr.fill(0.0)
        self._fill(view, named)


def _one_hot(arr: Array, index: int | None) -> None:
    if index is not None and 0 <= index < arr.shape[0]:
        arr[index] = 1.0


def _cards_into(arr: Array, names: Sequence[str], index: Mapping[str, int]) -> None:
    for name in names:
        arr[index[name]] += 1.0


PHASES = ("deal", "play", "over")


def escoba_layout(players: int, sides: int, deck_names: Sequence[str]) -> Layout:
    """Escoba: the pieces of `arbitro.model.escoba.codec.view_to_json`."""
    k = len(deck_names)
    index = {n: i for i, n in enumerate(deck_names)}
    pieces = [
        Piece("viewer", (players,)),
        Piece("to_move", (players,)),
        Piece("dealer", (players,)),
        Piece("phase", (len(PHASES),)),
        Piece("hand", (k,)),
        Piece("table", (k,)),
        Piece("hand_sizes", (players,)),
        Piece("stock_size", (1,)),
        Piece("captured", (sides,)),
        Piece("escobas", (sides,)),
        Piece("last_capturer", (sides,)),
        Piece("scores", (sides,)),
        Piece("hand_number", (1,)),
        Piece("deal_number", (1,)),
    ]

    def fill(v: Mapping[str, Any], t: dict[str, Array]) -> None:
        _one_hot(t["viewer"], v["viewer"])
        _one_hot(t["to_move"], v["to_move"])
        _one_hot(t["dealer"], v["dealer"])
        _one_hot(t["phase"], PHASES.index(v["phase"]))
        _cards_into(t["hand"], v["hand"], index)
        _cards_into(t["table"], v["table"], index)
        t["hand_sizes"][:] = v["hand_sizes"]
        t["stock_size"][0] = v["stock_size"]
        t["captured"][:] = v["captured"]
        t["escobas"][:] = v["escobas"]
        _one_hot(t["last_capturer"], v["last_capturer"])
        t["scores"][:] = v["scores"]
        # hands dealt so far (the view numbers the hand being played from 0)
        t["hand_number"][0] = v["hand_number"] + (1 if v["phase"] == "play" else 0)
        t["deal_number"][0] = v["deal_number"]

    return Layout(pieces, fill)


STEPS = ("draw", "play", "answer", "freed")
MELD_KINDS = ("set", "escalera", "wilds", "black-threes")
FLAGS = ("pile_taken", "took_pile", "asked", "melded", "no_discard")


def rummy_layout(players: int, sides: int, kind_names: Sequence[str], meld_slots: int) -> Layout:
    """Samba and Canasta: the pieces of `arbitro.model.rummy.codec.view_to_json`; a card kind's
    count where several copies may be held, each side's melds in their order in ``meld_slots``
    rows (kind one-hot, then the count of each card kind)."""
    k = len(kind_names)
    index = {n: i for i, n in enumerate(kind_names)}
    kinds = len(MELD_KINDS)
    pieces = [
        Piece("viewer", (players,)),
        Piece("turn", (players,)),
        Piece("dealer", (players,)),
        Piece("phase", (len(PHASES),)),
        Piece("step", (len(STEPS),)),
        Piece("hand", (k,)),
        Piece("held", (k,)),
        Piece("hand_sizes", (players,)),
        Piece("held_size", (1,)),
        Piece("stock_size", (1,)),
        Piece("pile_top", (k,)),
        Piece("pile_size", (1,)),
        Piece("pile_frozen", (1,)),
        Piece("melds", (sides, meld_slots, kinds + k)),
        Piece("red_threes", (sides,)),
        Piece("opened", (sides,)),
        Piece("minimums", (sides,)),
        Piece("scores", (sides,)),
        Piece("owed", (players,)),
        Piece("flags", (len(FLAGS),)),
        Piece("answer", (2,)),
        Piece("top_points", (1,)),
        Piece("clean_start", (1,)),
        Piece("freed", (k,)),
        Piece("freed_meld", (meld_slots,)),
        Piece("hand_no", (1,)),
    ]

    def fill(v: Mapping[str, Any], t: dict[str, Array]) -> None:
        _one_hot(t["viewer"], v["viewer"])
        if v["phase"] == "play":
            _one_hot(t["turn"], v["seat"])
            _one_hot(t["step"], STEPS.index(v["step"]) if v["step"] in STEPS else None)
        _one_hot(t["dealer"], v["dealer"])
        _one_hot(t["phase"], PHASES.index(v["phase"]))
        _cards_into(t["hand"], v["hand"], index)
        _cards_into(t["held"], v["held"], index)
        if v["hand_sizes"]:
            t["hand_sizes"][:] = v["hand_sizes"]
        t["held_size"][0] = v["held_size"]
        t["stock_size"][0] = v["stock_size"]
        if v["pile_top"] is not None:
            _one_hot(t["pile_top"], index[v["pile_top"]])
        t["pile_size"][0] = v["pile_size"]
        t["pile_frozen"][0] = float(v["pile_frozen"])
        melds = t["melds"]
        for side, sd in enumerate(v["table"]):
            for slot, m in enumerate(sd["melds"]):
                melds[side, slot, MELD_KINDS.index(m["kind"])] = 1.0
                _cards_into(melds[side, slot, kinds:], m["cards"], index)
            t["red_threes"][side] = len(sd["red_threes"])
            t["opened"][side] = float(sd["opened"])
        if v["minimums"]:
            t["minimums"][:] = v["minimums"]
        t["scores"][:] = v["scores"]
        if v["owed"]:
            t["owed"][:] = v["owed"]
        for i, flag in enumerate(FLAGS):
            t["flags"][i] = float(v[flag])
        _one_hot(t["answer"], {"yes": 0, "no": 1}.get(v["answer"]))
        t["top_points"][0] = v["top_points"]
        t["clean_start"][0] = v["clean_start"]
        if v["freed"] is not None:
            _one_hot(t["freed"], index[v["freed"]])
        _one_hot(t["freed_meld"], v["freed_meld"] if v["freed_meld"] >= 0 else None)
        t["hand_no"][0] = v["hand_number"]

    return Layout(pieces, fill)
