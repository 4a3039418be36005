"""adapters/canasta_turns.py with its turns listed wrongly, to test how compound moves are matched:

python turns_bug.py strict   # never lists discarding the card just drawn (unless another is held)
python turns_bug.py lax      # also lists discarding a joker it does not hold
"""

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "adapters"))

import canasta_turns


class Wrong(canasta_turns.Turns):  # type: ignore[misc]
    def turns(self) -> list[Any]:
        got: list[Any] = super().turns()
        if not self.stock:
            return got
        card, _, _ = self.draw()
        held = self.hands[self.seat]
        if sys.argv[1] == "strict":
            return [t for t in got if t[1]["card"] != card or card in held]
        if "JK" not in held and card != "JK":
            got.append([got[0][0], {"type": "discard", "seat": self.seat, "card": "JK"}])
        return got


canasta_turns.main(Wrong)
