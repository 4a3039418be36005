"""Replay goldens for the Escoba engine: seeded whole games of every seating and reading, digested.

Each game starts from ``new_game`` with the dealer ``game % players``, deals deck orders shuffled by
its own ``random.Random`` and plays ``actions[rng.randrange(len(actions))]`` until the game is
over. After every deal and every play the state's canonical JSON and the JSON of its legal-action
list are hashed; a hand's digest is the SHA-256 of those per-state hashes in order. The file keeps,
per game, each hand's digest and state count, so a change in the engine names the first hand
that differs.

The numbers in the golden file come from the engine itself at a named commit (its first line says
which): they are a regression oracle, not a statement about the book. Regenerate with

    uv run python tests/model/escoba/replay_goldens.py --write

only when a change of the engine's behaviour is intended, and read the diff.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from arbitro.model.escoba import ESCOBA
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules, rules_for

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "escoba-replay.json"
SEATINGS = {
    "2": Seating(2, 2),
    "3": Seating(3, 3),
    "4": Seating(4, 4),
    "4-teams": Seating(4, 2, "teams"),
}
OPTION_SETS: dict[str, dict[str, str | bool]] = {
    "book": {},
    "all-variants": {
        "variant_cards_double": True,
        "variant_oros_all": True,
        "variant_sevens_all": True,
    },
    "double-together": {"variant_cards_double": True, "variant_cards_double_rule": "together"},
    "setenta-lowest": {"setenta_missing_suit": "lowest"},
    "rest-to-dealer": {"rest_without_capturer": "dealer"},
    # not a reading of the book: the forced capture turned off (see rules_of), so laying a card
    # that could capture is exercised, with the leftovers read as going to the dealer, the one
    # case where that reading can matter
    "capture-optional": {"rest_without_capturer": "dealer"},
}
GAMES = 2


def rules_of(option_set: str) -> EscobaRules:
    r = rules_for("escoba-es", OPTION_SETS[option_set])
    assert isinstance(r, EscobaRules)
    if option_set == "capture-optional":
        r = dataclasses.replace(r, capture_forced=False)
    return r


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_digest(rules: EscobaRules, state: Any) -> bytes:
    """The hash of a state's canonical JSON and of its legal actions' JSON, in order."""
    actions = [ESCOBA.action_to_json(a) for a in ESCOBA.legal_actions(rules, state)]
    text = _canonical(ESCOBA.state_to_json(state)) + "\n" + _canonical(actions)
    return hashlib.sha256(text.encode()).digest()


def play_game(rules: EscobaRules, seating: Seating, seed: str, dealer: int) -> list[list[Any]]:
    """Per hand, [digest of its states, number of states], for one seeded game."""
    rng = random.Random(seed)
    state: Any = ESCOBA.new_game(rules, seating, dealer=dealer)
    deck = list(ESCOBA.deck(rules, seating))
    hands: list[list[Any]] = []
    h = hashlib.sha256()
    count = 0
    while ESCOBA.phase(state) != "over":
        if ESCOBA.phase(state) == "deal":
            order = deck[:]
            rng.shuffle(order)
            state = ESCOBA.deal(rules, state, order)
        else:
            actions = ESCOBA.legal_actions(rules, state)
            state = ESCOBA.apply(rules, state, actions[rng.randrange(len(actions))])
        h.update(state_digest(rules, state))
        count += 1
        if ESCOBA.phase(state) != "play":
            hands.append([h.hexdigest()[:24], count])
            h = hashlib.sha256()
            count = 0
    return hands


def compute() -> dict[str, Any]:
    games: dict[str, Any] = {}
    for seat_name, seating in SEATINGS.items():
        for option_set in OPTION_SETS:
            r = rules_of(option_set)
            for g in range(GAMES):
                key = f"{seat_name}/{option_set}/{g}"
                games[key] = play_game(r, seating, f"replay:{key}", g % seating.players)
    return games


def _commit() -> str:
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write or check the Escoba replay goldens.")
    p.add_argument("--write", action="store_true", help="overwrite the golden file")
    args = p.parse_args(argv)
    games = compute()
    if args.write:
        data = {
            "source": (
                f"the Escoba engine at commit {_commit()}, replayed by "
                "tests/model/escoba/replay_goldens.py: a regression oracle, not the book"
            ),
            "games": games,
        }
        lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in games.items()]
        body = ",\n".join(lines)
        text = f'{{"source": {json.dumps(data["source"])},\n"games": {{\n{body}\n}}}}\n'
        GOLDEN.write_text(text, encoding="utf-8")
        print(f"wrote {len(games)} games to {GOLDEN}")
        return 0
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))["games"]
    bad = [k for k in want if want[k] != games.get(k)]
    print("all games replay exactly" if not bad else f"differing games: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
