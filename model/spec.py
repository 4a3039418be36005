"""Rulebooks as data: load a spec TOML file into cited clauses, checking its shape.

A spec holds one rulebook. Every rule parameter is a clause with an id, the section of the book it
comes from, a paraphrase in our own words and a status (stated, inferred, unspecified, conflicting).
This module knows the clause format only; `arbitro.model.schema` knows which keys a game needs,
and gives its whole-rulebook check to this module (`set_schema_check`) when it is imported, which
`arbitro.model` does first: loading never imports the schema, so the two modules form no circle.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from arbitro.model.errors import SpecError, UnknownRulebook

Value = Any
"""A clause value: a TOML value (int, bool, str, array, table)."""

STATUSES = ("stated", "inferred", "unspecified", "conflicting")
GAMES = ("samba", "canasta", "escoba")

# The order in which topics are shown; a spec may use only these.
TOPICS = (
    "deck",
    "players",
    "deal",
    "card-values",
    "drawing",
    "discard-pile",
    "melds",
    "special-melds",
    "opening",
    "red-threes",
    "black-threes",
    "going-out",
    "stock",
    "capture",
    "escobas",
    "scoring",
    "penalties",
    "game-end",
    "variants",
)

_KEY = re.compile(r"[a-z][a-z0-9_]{0,63}")
_LABEL = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_ANCHOR_MAX_WORDS = 6


@dataclass(frozen=True)
class Reading:
    """One reading of a clause that the book states twice, or an alternative to a default."""

    label: str
    value: Value
    paraphrase: str
    section: str | None = None
    anchor: str | None = None


@dataclass(frozen=True)
class Clause:
    """One rule parameter of one rulebook, with its provenance."""

    rulebook: str
    key: str
    topic: str
    section: str
    status: str
    paraphrase: str
    value: Value
    default: str
    readings: tuple[Reading, ...] = ()
    basis: str | None = None
    rationale: str | None = None
    anchor: str | None = None
    optional: bool = False
    follows: str | None = None
    """The key of a clause whose chosen reading this one takes (the same passage decides both)."""

    @property
    def id(self) -> str:
        """The clause id used in messages and findings, e.g. ``samba-en:draw-count``."""
        return f"{self.rulebook}:{self.key.replace('_', '-')}"

    def labels(self) -> tuple[str, ...]:
        """The reading labels an option may select for this clause."""
        return tuple(r.label for r in self.readings)

    def value_for(self, label: str) -> Value:
        """The value of the reading called `label`."""
        for reading in self.readings:
            if reading.label == label:
                return reading.value
        raise KeyError(label)


@dataclass(frozen=True)
class Rulebook:
    """A whole rulebook: what it is, where its text is, and its clauses in file order."""

    id: str
    game: str
    language: str
    title: str
    text: str
    sha256: str
    sections: tuple[str, ...]
    clauses: tuple[Clause, ...]
    path: str
    claims: tuple[Claim, ...] = ()

    def clause(self, key: str) -> Clause:
        """The clause with this key; KeyError names the rulebook when there is none."""
        for c in self.clauses:
            if c.key == key:
                return c
        raise KeyError(f"{self.id} has no clause {key!r}")

    def keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.clauses)

    def has(self, key: str) -> bool:
        """Whether the book has a clause with this key."""
        return any(c.key == key for c in self.clauses)

    def status_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for c in self.clauses:
            counts[c.status] += 1
        return counts

    def by_topic(self) -> Iterator[tuple[str, list[Clause]]]:
        """The clauses grouped by topic, topics in the canonical order."""
        for topic in TOPICS:
            group = [c for c in self.clauses if c.topic == topic]
            if group:
                yield topic, group


def spec_dir() -> Path:
    """Where the spec files are: $ARBITRO_SPEC_DIR, the copy inside the wheel, or the checkout's spec/."""
    env = os.environ.get("ARBITRO_SPEC_DIR")
    if env:
        if not Path(env).is_dir():
            from arbitro.model.errors import OptionError
            from arbitro.model.inputs import shown

            raise OptionError(f"ARBITRO_SPEC_DIR={shown(env)} is not a directory of spec files")
        return Path(env)
    here = Path(__file__).resolve().parent
    packaged = here / "_spec"
    if packaged.is_dir():
        return packaged
    return here.parent / "spec"


def rulebook_ids(directory: Path | None = None) -> list[str]:
    """The ids of every rulebook spec in the directory, sorted."""
    d = directory or spec_dir()
    return sorted(p.stem for p in d.glob("*.toml") if _ID.fullmatch(p.stem))


_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
"""A rulebook id: what a spec's file name may be, so that an id can never be a path."""


def _no_schema_check(book: Rulebook) -> None:
    raise RuntimeError("arbitro.model.schema was not imported; import arbitro.model first")


_SCHEMA_CHECK: list[Callable[[Rulebook], None]] = [_no_schema_check]
"""The schema's whole-rulebook check (`schema.check_rulebook`), given by `set_schema_check`."""


def set_schema_check(check: Callable[[Rulebook], None]) -> None:
    """Make `check` the test every loaded rulebook passes (the schema registers its own)."""
    _SCHEMA_CHECK[0] = check


_OWN_SPECS: dict[str, Rulebook] = {}
"""Spec files a user named explicitly (`use_spec_file`), by their own ids."""


def load_rulebook(name: str, directory: Path | None = None) -> Rulebook:
    """Load and check one rulebook by id: a registered spec, or a spec file given by `use_spec_file`.

    The id is looked up, never used as a path: `../pyproject` or `some/dir/escoba-es` are unknown
    ids. The spec is checked whole (shape, schema, and that its rules can be played).
    """
    d = directory or spec_dir()
    known = rulebook_ids(d)
    if name in _OWN_SPECS and directory is None:
        return _OWN_SPECS[name]
    if not isinstance(name, str) or name not in known:
        raise UnknownRulebook(name if isinstance(name, str) else repr(name), known)
    return _load_checked(str(d / f"{name}.toml"))


def own_spec_ids() -> list[str]:
    """The ids of the spec files given in this process (`use_spec_file`), sorted."""
    return sorted(_OWN_SPECS)


def use_spec_file(given: str | os.PathLike[str]) -> Rulebook:
    """Load a user's own spec file and make its id known to `load_rulebook` in this process.

    Its id (the file name without .toml) must not be a registered rulebook's: a transcript or a
    report names the rulebook it was made with, so one id never stands for two specs.
    """
    from arbitro.model.errors import OptionError
    from arbitro.model.inputs import input_problem, shown

    path = Path(given)
    problem = input_problem(given)  # the name as given: Path("") would be "."
    if problem is not None:
        raise OptionError(
            f"--spec {shown(given) or repr('')}: {problem}; --spec takes a spec file (.toml)"
        )
    if path.suffix != ".toml":
        raise OptionError(f"--spec {shown(path)}: a spec file's name ends in .toml")
    book = load_file(path)
    if book.id in rulebook_ids():
        raise SpecError(
            path.name,
            "rulebook.id",
            f"{book.id!r} is a registered rulebook; give your spec its own id (and file name)",
        )
    _SCHEMA_CHECK[0](book)
    _OWN_SPECS[book.id] = book
    return book


def load_all(directory: Path | None = None) -> list[Rulebook]:
    """Every rulebook in the spec directory, in id order."""
    return [load_rulebook(n, directory) for n in rulebook_ids(directory)]


@cache
def _load_checked(path: str) -> Rulebook:
    book = _load_cached(path)
    _SCHEMA_CHECK[0](book)
    return book


@cache
def _load_cached(path: str) -> Rulebook:
    return load_file(Path(path))


MAX_SPEC_BYTES = 1024 * 1024
"""The largest spec file read (the books' are under 50 KB)."""
MAX_SPEC_TEXT = 4000
"""The longest text of a spec (a paraphrase, a rationale, a title; the books' are under 600)."""


def load_file(path: Path) -> Rulebook:
    """Parse and check one spec file; every problem raises SpecError naming file and key."""
    file = path.name
    try:
        with path.open("rb") as f:
            data = f.read(MAX_SPEC_BYTES + 1)
    except OSError as e:
        raise SpecError(file, "<file>", f"cannot be read: {(e.strerror or '').lower()}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(file, "<file>", f"a spec file of at most {MAX_SPEC_BYTES:,} bytes")
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(file, "<toml>", f"not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise SpecError(file, "<file>", f"not UTF-8 text: {e}") from None
    return parse_spec(raw, file)


def parse_spec(raw: Mapping[str, Any], file: str) -> Rulebook:
    """Check the shape of a parsed spec and build the Rulebook."""
    _only(raw, {"rulebook", "clause", "claim"}, file, "<top level>")
    head = _table(raw, "rulebook", file, "rulebook")
    _only(head, {"id", "game", "language", "title", "text", "sha256", "sections"}, file, "rulebook")
    rb_id = _str(head, "id", file, "rulebook.id")
    if not _ID.fullmatch(rb_id):
        raise SpecError(
            file,
            "rulebook.id",
            f"expected 1 to 64 lowercase letters, digits and dashes, got {rb_id[:70]!r}",
        )
    expected = file.removesuffix(".toml")
    if rb_id != expected:
        raise SpecError(file, "rulebook.id", f"is {rb_id!r} but the file is named {expected!r}")
    game = _str(head, "game", file, "rulebook.game")
    if game not in GAMES:
        raise SpecError(file, "rulebook.game", f"unknown game {game!r}; known: {', '.join(GAMES)}")
    sha = _str(head, "sha256", file, "rulebook.sha256")
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise SpecError(file, "rulebook.sha256", "expected 64 lowercase hex digits")
    sections = head.get("sections")
    if (
        not isinstance(sections, list)
        or not sections
        or not all(isinstance(s, str) and s for s in sections)
    ):
        raise SpecError(file, "rulebook.sections", "expected a non-empty array of section headings")
    if len(set(sections)) != len(sections):
        raise SpecError(file, "rulebook.sections", "a section heading is listed twice")

    items = raw.get("clause")
    if not isinstance(items, list) or not items:
        raise SpecError(file, "clause", "expected an array of [[clause]] tables")
    clauses: list[Clause] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise SpecError(file, f"clause[{i}]", "expected a table")
        clause = _clause(item, i, rb_id, tuple(sections), file)
        if clause.key in seen:
            raise SpecError(file, f"clause[{i}].key", f"{clause.key!r} is defined twice")
        seen.add(clause.key)
        clauses.append(clause)
    _check_follows(clauses, file)
    claims = _claims(raw.get("claim", []), rb_id, game, tuple(sections), file)
    _check_claim_readings(claims, clauses, file)
    return Rulebook(
        id=rb_id,
        game=game,
        language=_str(head, "language", file, "rulebook.language"),
        title=_str(head, "title", file, "rulebook.title"),
        text=_str(head, "text", file, "rulebook.text"),
        sha256=sha,
        sections=tuple(sections),
        clauses=tuple(clauses),
        path=file,
        claims=claims,
    )


def _check_claim_readings(claims: tuple[Claim, ...], clauses: list[Clause], file: str) -> None:
    """A claim that names a reading names one its clause has."""
    by_key = {c.key: c for c in clauses}
    for i, claim in enumerate(claims):
        label = claim.fields.get("reading")
        if label is None:
            continue
        clause = by_key.get(str(claim.fields.get("key")))
        labels = [r.label for r in clause.readings] if clause is not None else []
        if label not in labels:
            raise SpecError(
                file,
                f"claim[{i}] ({claim.name}).reading",
                f"{label!r} is not a reading of {claim.fields.get('key')!r}; "
                f"readings: {', '.join(labels) or 'none'}",
            )


_CLAUSE_FIELDS = {
    "key",
    "topic",
    "section",
    "status",
    "paraphrase",
    "value",
    "default",
    "reading",
    "basis",
    "rationale",
    "anchor",
    "optional",
    "follows",
}


def _clause(
    item: Mapping[str, Any], i: int, rb: str, sections: tuple[str, ...], file: str
) -> Clause:
    key = item.get("key")
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise SpecError(
            file,
            f"clause[{i}].key",
            "expected a snake_case key of at most 64 characters such as 'draw_count'",
        )
    where = f"clause[{i}] ({key})"
    _only(item, _CLAUSE_FIELDS, file, where)
    topic = _str(item, "topic", file, f"{where}.topic")
    if topic not in TOPICS:
        raise SpecError(
            file, f"{where}.topic", f"unknown topic {topic!r}; known: {', '.join(TOPICS)}"
        )
    section = _section(item, "section", sections, file, where)
    status = _str(item, "status", file, f"{where}.status")
    if status not in STATUSES:
        raise SpecError(
            file, f"{where}.status", f"unknown status {status!r}; known: {', '.join(STATUSES)}"
        )
    paraphrase = _str(item, "paraphrase", file, f"{where}.paraphrase")
    anchor = _anchor(item, file, where)
    optional = item.get("optional", False)
    if not isinstance(optional, bool):
        raise SpecError(file, f"{where}.optional", "expected true or false")
    basis = _opt_str(item, "basis", file, where)
    rationale = _opt_str(item, "rationale", file, where)
    readings = _readings(item, sections, file, where, status)
    follows = _opt_str(item, "follows", file, where)

    if status == "inferred" and not basis:
        raise SpecError(
            file, f"{where}.basis", "an inferred clause must say what it is inferred from"
        )
    if status == "unspecified" and not rationale:
        raise SpecError(
            file, f"{where}.rationale", "an unspecified clause must say why its default was chosen"
        )
    if status != "inferred" and basis is not None:
        raise SpecError(
            file, f"{where}.basis", f"only inferred clauses take a basis, this one is {status}"
        )

    if status == "conflicting":
        if "value" in item:
            raise SpecError(
                file, f"{where}.value", "a conflicting clause gives its values in its readings"
            )
        if len(readings) < 2:
            raise SpecError(
                file, f"{where}.reading", "a conflicting clause needs at least two readings"
            )
        for r in readings:
            if r.section is None:
                raise SpecError(
                    file,
                    f"{where}.reading.{r.label}.section",
                    "each reading of a conflict needs its section",
                )
        default = _str(item, "default", file, f"{where}.default")
        labels = [r.label for r in readings]
        if default not in labels:
            raise SpecError(
                file,
                f"{where}.default",
                f"{default!r} is not a reading; readings: {', '.join(labels)}",
            )
        value = next(r.value for r in readings if r.label == default)
    else:
        if "value" not in item:
            raise SpecError(
                file, f"{where}.value", "missing; every clause but a conflicting one has a value"
            )
        value = item["value"]
        if "default" in item:
            raise SpecError(
                file, f"{where}.default", "only conflicting clauses name a default reading"
            )
        if readings and status in ("stated", "inferred"):
            raise SpecError(
                file, f"{where}.reading", f"a {status} clause has one value, not readings"
            )
        default = "default" if status == "unspecified" else "book"
        if any(r.label == default for r in readings):
            raise SpecError(
                file,
                f"{where}.reading",
                f"the label {default!r} is reserved for the spec's own value",
            )
        readings = (Reading(default, value, paraphrase, section, anchor), *readings)
    return Clause(
        rulebook=rb,
        key=key,
        topic=topic,
        section=section,
        status=status,
        paraphrase=paraphrase,
        value=value,
        default=default,
        readings=readings,
        basis=basis,
        rationale=rationale,
        anchor=anchor,
        optional=optional,
        follows=follows,
    )


def _readings(
    item: Mapping[str, Any], sections: tuple[str, ...], file: str, where: str, status: str
) -> tuple[Reading, ...]:
    raw = item.get("reading", [])
    if not isinstance(raw, list):
        raise SpecError(file, f"{where}.reading", "expected an array of [[clause.reading]] tables")
    if raw and status == "unspecified":
        pass  # alternatives to the default, each selectable as an option
    out: list[Reading] = []
    for j, r in enumerate(raw):
        rw = f"{where}.reading[{j}]"
        if not isinstance(r, dict):
            raise SpecError(file, rw, "expected a table")
        _only(r, {"label", "value", "paraphrase", "section", "anchor"}, file, rw)
        label = _str(r, "label", file, f"{rw}.label")
        if not _LABEL.fullmatch(label):
            raise SpecError(
                file, f"{rw}.label", "expected a short lowercase label such as 'a' or 'literal'"
            )
        if "value" not in r:
            raise SpecError(file, f"{rw}.value", "missing")
        section = _section(r, "section", sections, file, rw) if "section" in r else None
        out.append(
            Reading(
                label=label,
                value=r["value"],
                paraphrase=_str(r, "paraphrase", file, f"{rw}.paraphrase"),
                section=section,
                anchor=_anchor(r, file, rw),
            )
        )
    labels = [r.label for r in out]
    if len(set(labels)) != len(labels):
        raise SpecError(file, f"{where}.reading", "two readings share a label")
    return tuple(out)


def _check_follows(clauses: list[Clause], file: str) -> None:
    """A clause that follows another offers exactly its readings, with the same default."""
    by_key = {c.key: c for c in clauses}
    for c in clauses:
        if c.follows is None:
            continue
        where = f"{c.key}.follows"
        leader = by_key.get(c.follows)
        if leader is None:
            raise SpecError(file, where, f"no clause {c.follows!r} in this spec")
        if leader.follows is not None:
            raise SpecError(file, where, f"{c.follows!r} itself follows {leader.follows!r}")
        if set(c.labels()) != set(leader.labels()) or len(c.readings) < 2:
            raise SpecError(
                file,
                where,
                f"the readings must be those of {c.follows!r}: {', '.join(leader.labels())}",
            )
        if c.default != leader.default:
            raise SpecError(
                file, where, f"the default must be that of {c.follows!r}: {leader.default!r}"
            )


def _only(table: Mapping[str, Any], allowed: set[str], file: str, where: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise SpecError(
            file, f"{where}.{extra[0]}", f"unknown field; allowed: {', '.join(sorted(allowed))}"
        )


def _table(raw: Mapping[str, Any], key: str, file: str, where: str) -> Mapping[str, Any]:
    v = raw.get(key)
    if not isinstance(v, dict):
        raise SpecError(file, where, "missing table" if v is None else "expected a table")
    return v


def _str(raw: Mapping[str, Any], key: str, file: str, where: str) -> str:
    v = raw.get(key)
    if v is None:
        raise SpecError(file, where, "missing")
    if not isinstance(v, str) or not v.strip():
        raise SpecError(file, where, "expected a non-empty string")
    if len(v) > MAX_SPEC_TEXT:
        raise SpecError(
            file, where, f"a text of at most {MAX_SPEC_TEXT:,} characters, got {len(v):,}"
        )
    return v


def _opt_str(raw: Mapping[str, Any], key: str, file: str, where: str) -> str | None:
    return _str(raw, key, file, f"{where}.{key}") if key in raw else None


def _section(
    raw: Mapping[str, Any], key: str, sections: tuple[str, ...], file: str, where: str
) -> str:
    s = _str(raw, key, file, f"{where}.{key}")
    if s not in sections:
        raise SpecError(
            file,
            f"{where}.{key}",
            f"{s!r} is not one of the book's sections listed in rulebook.sections",
        )
    return s


def _anchor(raw: Mapping[str, Any], file: str, where: str) -> str | None:
    if "anchor" not in raw:
        return None
    a = _str(raw, "anchor", file, f"{where}.anchor")
    if len(a.split()) > _ANCHOR_MAX_WORDS:
        raise SpecError(
            file,
            f"{where}.anchor",
            f"an anchor locates a passage in at most {_ANCHOR_MAX_WORDS} words; it never quotes a sentence",
        )
    return a


def text_sha256(text: bytes) -> str:
    """The digest a spec records for its rulebook text."""
    return hashlib.sha256(text).hexdigest()


# ---------------------------------------------------------------- claims
#
# A book also asserts things about itself: how many cards of a kind there are, that no meld is worth
# less than some figure, what an example hand scores. Each such assertion is a [[claim]] of the spec:
# where it is (section and anchor), our paraphrase, and the assertion itself as a statement of one of
# the kinds below, typed so that a checker can decide it against the book's own rules.

CLAIM_GAMES = {"rummy": ("samba", "canasta"), "escoba": ("escoba",), "any": GAMES}

RUMMY_RANKS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""The natural ranks of Samba and Canasta, as claims name them."""
RUMMY_CARDS = ("joker", "2", "3-red", "3-black", *RUMMY_RANKS)
"""Every card a Samba or Canasta claim may name: suits are irrelevant there but for the threes."""
RUMMY_CLASSES = ("all", "natural", "joker", "two", "wild", "red_three", "black_three")
ESCOBA_RANKS = ("1", "2", "3", "4", "5", "6", "7", "sota", "caballo", "rey")
ESCOBA_SETENTA = ("1", "2", "3", "4", "5", "6", "7", "figure")
"""How a setenta card is named: its rank, the three figures alike."""
ESCOBA_CATEGORIES = ("cards", "oros", "velo", "setenta")
CLAIM_EVENTS = ("red_three_enters_pile_after_deal",)
"""Situations a `never` claim may say legal play cannot reach."""

_CLAIM_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_RULEBOOK_ID = _ID


@dataclass(frozen=True)
class ClaimKind:
    """A kind of checkable statement: the games it speaks about, its fields, and what it asserts."""

    name: str
    family: str  # a key of CLAIM_GAMES
    fields: tuple[tuple[str, str], ...]  # (field, type) pairs, all required
    optional: tuple[tuple[str, str], ...]
    asserts: str


def _kind(
    name: str,
    family: str,
    asserts: str,
    fields: tuple[tuple[str, str], ...],
    optional: tuple[tuple[str, str], ...] = (),
) -> ClaimKind:
    return ClaimKind(name, family, fields, optional, asserts)


CLAIM_KINDS: dict[str, ClaimKind] = {
    k.name: k
    for k in (
        _kind(
            "card_count",
            "any",
            "the deck (of `layout` if given; one pack if `per_pack`) holds `count` cards of `cards`",
            (("cards", "selector"), ("count", "int")),
            (("layout", "str"), ("per_pack", "bool")),
        ),
        _kind(
            "stated_value",
            "any",
            "the book states the value of its own clause `key` as `value`, written at the anchor"
            " (where the book states the clause twice: the value of its reading `reading`; where"
            " the book's number counts a card's value in, `counted_with` names that card_points"
            " entry and the clause's own value is the number less it)",
            (("key", "key"), ("value", "value")),
            (("reading", "str"), ("counted_with", "str")),
        ),
        _kind(
            "game_rule",
            "any",
            "the rulebook `rulebook` gives its clause `key` the value `value`",
            (("rulebook", "rulebook"), ("key", "key"), ("value", "value")),
        ),
        _kind(
            "score_step",
            "rummy",
            "every score a hand gives a side is a multiple of `step`, so every running total is",
            (("step", "int"),),
        ),
        _kind(
            "min_meld_points",
            "rummy",
            "no legal meld is worth fewer card points than `points`, and some legal meld is worth that",
            (("points", "int"),),
        ),
        _kind(
            "meld_example",
            "rummy",
            "a set of `naturals` natural cards of `rank` (of any natural rank if omitted) and `wilds`"
            " wild cards may be laid as a new meld by a side that has opened exactly when `legal`"
            " is true",
            (("naturals", "int"), ("wilds", "int"), ("legal", "bool")),
            (("rank", "meld_rank"),),
        ),
        _kind(
            "wild_limits",
            "rummy",
            "a set of each size in `by_size` may hold at most the wild cards given for that size",
            (("by_size", "size_table"),),
        ),
        _kind(
            "canasta_reaches_minimum",
            "rummy",
            "a clean seven-card canasta is worth at least `minimum` card points exactly when its rank"
            " is one of `ranks`",
            (("minimum", "int"), ("ranks", "ranks")),
        ),
        _kind(
            "score_example",
            "rummy",
            "the side that laid `melds` and holds `hand` at the end scores `points` for them: card"
            " points and bonuses of the melds, less the card points in hand (no honours, no going out)",
            (("melds", "card_groups"), ("hand", "cards"), ("points", "int")),
        ),
        _kind(
            "red_threes_score",
            "rummy",
            "a side with `count` red threes scores `points` for them when they count in its favour"
            " (against it if `favourable` is false)",
            (("count", "int"), ("points", "int")),
            (("favourable", "bool"),),
        ),
        _kind(
            "sequences_per_suit",
            "rummy",
            "one suit allows exactly `count` different runs of `length` cards",
            (("length", "int"), ("count", "int")),
        ),
        _kind(
            "meld_possible",
            "rummy",
            "the deck and the meld rules allow a set of `size` cards of `cards` exactly when"
            " `possible` is true",
            (("cards", "selector"), ("size", "int"), ("possible", "bool")),
        ),
        _kind(
            "hand_score_reaches",
            "rummy",
            "some single hand can give one side at least `points`",
            (("points", "int"),),
        ),
        _kind(
            "game_score_below",
            "rummy",
            "no side's running total ever reaches `points`",
            (("points", "int"),),
        ),
        _kind(
            "never",
            "rummy",
            "legal play never reaches the situation `event`",
            (("event", "event"),),
        ),
        _kind(
            "value_total",
            "escoba",
            "the capture values of the cards of `cards` add up to `total`",
            (("cards", "selector"), ("total", "int")),
        ),
        _kind(
            "table_remainder",
            "escoba",
            "when a hand's last card has been played, the values left on the table always add up to"
            " one of `values`, and each of them can occur",
            (("values", "ints"),),
        ),
        _kind(
            "deals_per_hand",
            "escoba",
            "with `players` players a hand has `deals` deals, the opening deal included",
            (("players", "int"), ("deals", "int")),
        ),
        _kind(
            "capture_example",
            "escoba",
            "with cards of the values `table` on the table, a card of value `play` can take exactly"
            " the groups in `captures`",
            (("table", "ints"), ("play", "int"), ("captures", "int_groups")),
        ),
        _kind(
            "setenta_compare",
            "escoba",
            "the setenta `first` against the setenta `second`, each compared best card first by the"
            " book's order, is won by `winner` (first, second or none)",
            (("first", "setenta"), ("second", "setenta"), ("winner", "winner")),
        ),
        _kind(
            "lone_card_sweep",
            "escoba",
            "a card of value `value` alone on the table is taken by a single played card exactly"
            " when that card's value is one of `swept_by`",
            (("value", "int"), ("swept_by", "ints_or_none")),
        ),
        _kind(
            "sweepable_lone_values",
            "escoba",
            "a card alone on the table can be taken by some single played card exactly when its"
            " value is one of `values`",
            (("values", "ints"),),
        ),
        _kind(
            "capture_total",
            "escoba",
            "every capture: the card played and the table cards it takes are worth `total`"
            " together",
            (("total", "int"),),
        ),
        _kind(
            "category_points",
            "escoba",
            "each category of `categories` scores `points` to the side that wins it, nothing to"
            " the others (the book's variants aside)",
            (("categories", "categories"), ("points", "int")),
        ),
        _kind(
            "escoba_points",
            "escoba",
            "every escoba scores `points` to the side that makes it",
            (("points", "int"),),
        ),
        _kind(
            "game_target",
            "escoba",
            "at the end of a hand, a side alone in front with `points` or more wins the game, and"
            " no side with fewer does",
            (("points", "int"),),
        ),
        _kind(
            "guaranteed_points",
            "escoba",
            "a side that captured every card of `holding` wins each point of `categories`, whatever"
            " the other cards",
            (("holding", "selector"), ("categories", "categories")),
        ),
    )
}


@dataclass(frozen=True)
class Claim:
    """A checkable statement a book makes about itself, with where it says it."""

    rulebook: str
    name: str
    kind: str
    section: str
    anchor: str
    paraphrase: str
    fields: Mapping[str, Value]

    @property
    def id(self) -> str:
        """The claim id used in findings, e.g. ``samba-en:claim:deck-size``."""
        return f"{self.rulebook}:claim:{self.name}"

    def statement(self) -> str:
        """The statement in one line, e.g. ``card_count: cards = all; count = 162``."""
        parts = [f"{k} = {_show_field(v)}" for k, v in self.fields.items()]
        return f"{self.kind}: " + "; ".join(parts)

    def to_json(self) -> dict[str, Value]:
        return {
            "id": self.id,
            "kind": self.kind,
            "section": self.section,
            "anchor": self.anchor,
            "paraphrase": self.paraphrase,
            "fields": dict(self.fields),
        }


def _show_field(v: Value) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_show_field(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show_field(x)}" for k, x in v.items()) + "}"
    return str(v)


def _claims(
    raw: Any, rb: str, game: str, sections: tuple[str, ...], file: str
) -> tuple[Claim, ...]:
    if not isinstance(raw, list):
        raise SpecError(file, "claim", "expected an array of [[claim]] tables")
    out: list[Claim] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise SpecError(file, f"claim[{i}]", "expected a table")
        claim = _claim(item, i, rb, game, sections, file)
        if claim.name in seen:
            raise SpecError(file, f"claim[{i}].id", f"{claim.name!r} is defined twice")
        seen.add(claim.name)
        out.append(claim)
    return tuple(out)


_CLAIM_COMMON = {"id", "kind", "section", "anchor", "paraphrase"}


def stated_reading_applies(book: Rulebook, claim: Claim, value: Any) -> bool:
    """Whether a `stated_value` claim speaks of rules whose clause `key` has `value`: always,
    unless the claim is the number of one reading of a clause the book states twice (its
    `reading`) and the rules follow another: the value is another reading's, not this one's (a
    value of no reading is a changed rule, judged against the default reading's claim)."""
    label = claim.fields.get("reading")
    if label is None:
        return True
    clause = book.clause(str(claim.fields["key"]))
    if any(r.label == label and r.value == value for r in clause.readings):
        return True
    return label == clause.default and all(r.value != value for r in clause.readings)


def stated_clause_value(claim: Claim, rules: Any) -> Any:
    """The value a `stated_value` claim gives its clause: the number the book writes, less the
    card value it counts in when the claim says so (`counted_with`: "a black three left in hand
    costs 100 in all" is the clause's 95 and the card's 5)."""
    value = claim.fields["value"]
    entry = claim.fields.get("counted_with")
    if entry is None:
        return value
    return int(value) - int(getattr(rules.card_points, str(entry)))


def stated_value_holds(got: Any, value: Any) -> bool:
    """Whether a clause's value agrees with the value a `stated_value` claim writes: equal, or,
    for a table the book prices entry by entry (a claim per sentence: `{ joker = 50 }`), equal
    on each entry the claim names."""
    if isinstance(value, dict) and not isinstance(got, dict):
        return all(getattr(got, k, None) == v for k, v in value.items())
    return bool(got == value)


def _claim(
    item: Mapping[str, Any], i: int, rb: str, game: str, sections: tuple[str, ...], file: str
) -> Claim:
    name = item.get("id")
    if not isinstance(name, str) or not _CLAIM_ID.fullmatch(name):
        raise SpecError(
            file,
            f"claim[{i}].id",
            "expected a kebab-case id of at most 64 characters such as 'deck-size'",
        )
    where = f"claim[{i}] ({name})"
    kind_name = _str(item, "kind", file, f"{where}.kind")
    kind = CLAIM_KINDS.get(kind_name)
    if kind is None:
        raise SpecError(
            file,
            f"{where}.kind",
            f"unknown claim kind {kind_name!r}; known: {', '.join(sorted(CLAIM_KINDS))}",
        )
    if game not in CLAIM_GAMES[kind.family]:
        raise SpecError(
            file,
            f"{where}.kind",
            f"a {kind_name} claim speaks of {', '.join(CLAIM_GAMES[kind.family])}, not {game}",
        )
    _only(item, _CLAIM_COMMON | {f for f, _ in kind.fields + kind.optional}, file, where)
    section = _section(item, "section", sections, file, where)
    if "anchor" not in item:
        raise SpecError(file, f"{where}.anchor", "missing; a claim is located by its anchor")
    _anchor(item, file, where)  # its length
    anchor = _str(item, "anchor", file, f"{where}.anchor")
    paraphrase = _str(item, "paraphrase", file, f"{where}.paraphrase")
    fields: dict[str, Value] = {}
    for field_name, type_name in kind.fields + kind.optional:
        if field_name not in item:
            if (field_name, type_name) in kind.optional:
                continue
            raise SpecError(file, f"{where}.{field_name}", f"missing; a {kind_name} claim needs it")
        problem = _claim_type_problem(item[field_name], type_name, game)
        if problem:
            raise SpecError(file, f"{where}.{field_name}", problem)
        fields[field_name] = item[field_name]
    return Claim(
        rulebook=rb,
        name=name,
        kind=kind_name,
        section=section,
        anchor=anchor,
        paraphrase=paraphrase,
        fields=fields,
    )


def _claim_type_problem(v: Any, t: str, game: str) -> str | None:
    """What is wrong with `v` as a claim field of type `t` in a spec of `game`; None if nothing."""
    rummy = game in CLAIM_GAMES["rummy"]

    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    def one_of(x: Any, choices: tuple[str, ...], what: str) -> str | None:
        if x in choices:
            return None
        return f"{x!r} is not {what}; expected one of {', '.join(choices)}"

    def list_of(x: Any, check: Any, what: str, empty: bool = False) -> str | None:
        if not isinstance(x, list) or (not x and not empty):
            return f"expected {'an' if empty else 'a non-empty'} array of {what}"
        for y in x:
            problem: str | None = check(y)
            if problem:
                return problem
        return None

    def int_item(x: Any) -> str | None:
        return None if is_int(x) else f"{x!r} is not an integer"

    def card(x: Any) -> str | None:
        return one_of(x, RUMMY_CARDS, "a card")

    if t == "int":
        return None if is_int(v) else "expected an integer"
    if t == "bool":
        return None if isinstance(v, bool) else "expected true or false"
    if t == "str":
        return None if isinstance(v, str) and v.strip() else "expected a non-empty string"
    if t == "value":
        return None
    if t == "rulebook":
        ok = isinstance(v, str) and _RULEBOOK_ID.fullmatch(v)
        return None if ok else "expected a rulebook id such as 'canasta-es'"
    if t == "key":
        ok = isinstance(v, str) and _KEY.fullmatch(v)
        return None if ok else "expected a clause key such as 'packs'"
    if t == "ints":
        return list_of(v, int_item, "integers")
    if t == "ints_or_none":
        return list_of(v, int_item, "integers", empty=True)
    if t == "int_groups":
        return list_of(v, lambda g: list_of(g, int_item, "integers"), "arrays of integers")
    if t == "selector":
        if not isinstance(v, str):
            return "expected a card selector such as 'all' or 'rank:7'"
        kind, _, arg = v.partition(":")
        if rummy:
            if v in RUMMY_CLASSES:
                return None
            if kind == "rank":
                return one_of(arg, RUMMY_RANKS, "a rank")
            return f"{v!r} is not a card selector; expected one of {', '.join(RUMMY_CLASSES)} or rank:R"
        if v == "all":
            return None
        if kind == "rank":
            return one_of(arg, ESCOBA_RANKS, "a rank")
        if kind == "suit" and re.fullmatch(r"[a-z]+", arg):
            return None
        return f"{v!r} is not a card selector; expected all, suit:NAME or rank:R"
    if t == "meld_rank":
        return one_of(v, (*RUMMY_RANKS, "3-black"), "a rank a set can have")
    if t == "ranks":
        return list_of(v, lambda x: one_of(x, RUMMY_RANKS, "a rank"), "ranks")
    if t == "cards":
        return list_of(v, card, "cards", empty=True)
    if t == "card_groups":
        return list_of(v, lambda g: list_of(g, card, "cards"), "arrays of cards", empty=True)
    if t == "size_table":
        if not isinstance(v, dict) or not v:
            return "expected a table of meld size to wild cards, such as { 3 = 1, 4 = 2 }"
        for size, n in v.items():
            if not size.isdigit() or not is_int(n):
                return f"{size!r} = {n!r} is not a meld size with a number of wild cards"
        return None
    if t == "setenta":
        if not isinstance(v, list) or len(v) != 4:
            return "expected four setenta cards, one per suit"
        return list_of(v, lambda x: one_of(x, ESCOBA_SETENTA, "a setenta card"), "setenta cards")
    if t == "winner":
        return one_of(v, ("first", "second", "none"), "a winner")
    if t == "categories":
        return list_of(
            v, lambda x: one_of(x, ESCOBA_CATEGORIES, "a scoring category"), "categories"
        )
    if t == "event":
        return one_of(v, CLAIM_EVENTS, "an event")
    raise AssertionError(f"claim field type {t!r} is not defined")  # a bug in CLAIM_KINDS
