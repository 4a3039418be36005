"""Small configurations for exhaustive exploration: a rulebook made smaller, and only smaller.

A configuration is data (``spec/configs/NAME.toml``, or any file given by path): the rulebook it
derives from, and what it changes of that book's size — the suits and ranks of the pack (Escoba),
the packs and jokers (Samba, Canasta), the players, the hand size, the target score. Every other
rule is the book's, read through the same typed rules the model plays (`rules_for`), so a
configuration is a variant of the book and never a second rulebook. It is validated with a
one-line error naming the field, and it is marked as not the book's in everything that reports it.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arbitro.model.errors import ArbitroError, did_you_mean
from arbitro.model.family import family_of_game, family_of_rules
from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import DealCount, EscobaRules, Layout, RummyRules, rules_for
from arbitro.model.spec import Rulebook, load_rulebook, spec_dir

ESCOBA_FIELDS = ("suits", "ranks", "players", "hand_size", "target_score")
RUMMY_FIELDS = ("packs", "jokers_per_pack", "players", "sides", "hand_size", "target_score")
COMMON = ("name", "rulebook", "about", "options")


class ConfigError(ArbitroError, ValueError):
    """A configuration file that is malformed or asks for something the book cannot be shrunk to."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        super().__init__(f"{where}: {field}: {problem}")


@dataclass(frozen=True)
class Config:
    """A rulebook at a smaller size: its rules, its one seating, and where it came from."""

    name: str
    rulebook: str
    about: str
    changes: Mapping[str, Any]  # field -> the value replacing the book's
    options: Mapping[str, str | bool]
    rules: Any  # EscobaRules | RummyRules
    seating: Seating
    source: str

    def describe(self) -> str:
        changed = ", ".join(f"{k}={_show(v)}" for k, v in self.changes.items())
        return (
            f"{self.name}: {self.rulebook} with {changed} (a small configuration, not the book's)"
        )


def _show(v: Any) -> str:
    return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)


def model_for_rulebook(rulebook: str) -> GameModel:
    """The game model (its family's engine, from the registry) that plays a rulebook."""

    return family_of_game(load_rulebook(rulebook).game).engine


def model_of(config: Config) -> GameModel:
    """The game model that plays the configuration's rulebook."""
    return model_for_rulebook(config.rulebook)


def configs_dir() -> Path:
    """Where the named configurations are: beside the specs, in ``configs/``."""
    return spec_dir() / "configs"


def config_names() -> list[str]:
    d = configs_dir()
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


def load_config(name_or_path: str) -> Config:
    """A named configuration or a configuration file; ConfigError names what is wrong."""
    from arbitro.model.inputs import input_problem, shown

    path = Path(name_or_path)
    looks_like_file = name_or_path.endswith(".toml") or "/" in name_or_path
    if not looks_like_file and input_problem(path) is not None:
        named = configs_dir() / f"{name_or_path}.toml"
        if name_or_path not in config_names():
            known = ", ".join(config_names())
            raise ConfigError(
                shown(name_or_path),
                "name",
                f"no such configuration; known: {known}"
                + did_you_mean(name_or_path, config_names()),
            )
        path = named
    where = str(path)
    problem = input_problem(path)
    if problem is not None:
        raise ConfigError(shown(where), "file", problem)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(where, "file", f"not a TOML file: {e}") from None
    return config_from_data(data, where)


def config_from_data(data: Mapping[str, Any], where: str, book: Rulebook | None = None) -> Config:
    """Build and validate a configuration from its TOML table; ``book`` (with the id the table
    names) replaces the stored rulebook, e.g. the book with house rules."""
    for key in ("name", "rulebook"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ConfigError(where, key, "required, a non-empty string")
    try:
        if book is None or book.id != data["rulebook"]:
            book = load_rulebook(data["rulebook"])
    except ArbitroError as e:
        raise ConfigError(where, "rulebook", str(e)) from None
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ConfigError(where, "options", "a table of KEY = LABEL or KEY = true/false")
    try:
        base = rules_for(book, options)
    except ArbitroError as e:
        raise ConfigError(where, "options", str(e)) from None
    allowed, resize = SIZES[family_of_rules(base).name]
    unknown = sorted(set(data) - set(allowed) - set(COMMON))
    if unknown:
        raise ConfigError(
            where,
            unknown[0],
            f"not a size a configuration may change; {book.game}: {', '.join(allowed)}",
        )
    changes = {k: data[k] for k in allowed if k in data}
    rules, seating = resize(base, changes, where)
    about = data.get("about", "")
    if not isinstance(about, str):
        raise ConfigError(where, "about", "a string")
    return Config(data["name"], book.id, about, changes, dict(options), rules, seating, where)


def _int(changes: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int | None:
    v = changes.get(key)
    if v is None:
        return None
    if type(v) is not int or not low <= v <= high:
        raise ConfigError(where, key, f"an integer from {low} to {high}, got {v!r}")
    return v


def _subset(
    changes: Mapping[str, Any], key: str, book: tuple[str, ...], where: str
) -> tuple[str, ...] | None:
    v = changes.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
        raise ConfigError(where, key, f"a non-empty list of names from the book's: {list(book)}")
    bad = [x for x in v if x not in book]
    if bad or len(set(v)) != len(v):
        raise ConfigError(
            where, key, f"names must be distinct and the book's ({list(book)}), got {v}"
        )
    return tuple(x for x in book if x in v)  # the book's order


def _escoba(
    base: EscobaRules, changes: Mapping[str, Any], where: str
) -> tuple[EscobaRules, Seating]:
    suits = _subset(changes, "suits", base.suits, where) or base.suits
    if suits[0] != base.suits[0]:
        raise ConfigError(
            where,
            "suits",
            f"must keep {base.suits[0]!r}: the book scores it on its own (coins, the seven of coins)",
        )
    ranks = _subset(changes, "ranks", base.ranks, where) or base.ranks
    values = tuple(v for r, v in zip(base.ranks, base.capture_values, strict=True) if r in ranks)
    players = _int(changes, "players", where, 2, 4) or 2
    if players not in (*base.player_counts, *base.team_player_counts):
        raise ConfigError(where, "players", f"the book is played by {list(base.player_counts)}")
    hand = _int(changes, "hand_size", where, 1, 40) or base.hand_size
    target = _int(changes, "target_score", where, 1, 10_000) or base.target_score
    pack = len(suits) * len(ranks)
    first = players * hand + base.table_initial
    later = players * hand + base.redeal_table
    if first > pack:
        raise ConfigError(
            where,
            "hand_size",
            f"{players} hands of {hand} and {base.table_initial} table cards need {first} cards;"
            f" the pack has {pack}",
        )
    if (pack - first) % later:
        raise ConfigError(
            where,
            "hand_size",
            f"after the opening deal {pack - first} cards remain, not a whole number of later"
            f" deals of {later}",
        )
    deals = 1 + (pack - first) // later
    rules = dataclasses.replace(
        base,
        suits=suits,
        ranks=ranks,
        capture_values=values,
        player_counts=(players,),
        team_player_counts=(),
        hand_size=hand,
        redeal_size=hand,
        deals_per_hand=(DealCount(players, deals),),
        target_score=target,
    )
    return rules, Seating(players, players)


def _rummy(base: RummyRules, changes: Mapping[str, Any], where: str) -> tuple[RummyRules, Seating]:
    packs = _int(changes, "packs", where, 1, base.packs) or base.packs
    jokers = changes.get("jokers_per_pack", base.jokers_per_pack)
    if type(jokers) is not int or not 0 <= jokers <= base.jokers_per_pack:
        raise ConfigError(
            where, "jokers_per_pack", f"an integer from 0 to the book's {base.jokers_per_pack}"
        )
    first = base.layouts[0]
    players = _int(changes, "players", where, 2, 6) or first.players
    sides = _int(changes, "sides", where, 2, players) or (
        players if "players" in changes else first.sides
    )
    if players % sides:
        raise ConfigError(
            where, "sides", f"{players} players do not split into {sides} equal sides"
        )
    hand = _int(changes, "hand_size", where, 1, 20) or first.hand_size
    target = _int(changes, "target_score", where, 1, 1_000_000) or base.target_score
    pack = packs * (52 + jokers)
    if players * hand + 2 > pack:
        raise ConfigError(
            where,
            "hand_size",
            f"{players} hands of {hand}, an upcard and a stock need more than the {pack} cards",
        )
    layout = Layout(f"config-{players}x{hand}", players, sides, hand, packs)
    rules = dataclasses.replace(
        base, packs=packs, jokers_per_pack=jokers, layouts=(layout,), target_score=target
    )
    return rules, Seating(players, sides, layout.name)


_Resize = Callable[[Any, Mapping[str, Any], str], tuple[EscobaRules | RummyRules, Seating]]
SIZES: dict[str, tuple[tuple[str, ...], _Resize]] = {
    "escoba": (ESCOBA_FIELDS, _escoba),
    "rummy": (RUMMY_FIELDS, _rummy),
}
"""For each family (`GameFamily.name`): the sizes a configuration may change, and how."""
