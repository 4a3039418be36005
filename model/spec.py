"""Rulebooks as data: load a spec TOML file into cited clauses, checking its shape.

A spec holds one rulebook. Every rule parameter is a clause with an id, the section of the book it
comes from, a paraphrase in our own words and a status (stated, inferred, unspecified, conflicting).
This module knows the clause format only; `arbitro.model.schema` knows which keys a game needs.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
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

_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_LABEL = re.compile(r"^[a-z0-9][a-z0-9-]*$")
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


def use_spec_file(path: Path) -> Rulebook:
    """Load a user's own spec file and make its id known to `load_rulebook` in this process.

    Its id (the file name without .toml) must not be a registered rulebook's: a transcript or a
    report names the rulebook it was made with, so one id never stands for two specs.
    """
    if path.suffix != ".toml":
        raise SpecError(path.name, "<file>", "a spec file's name ends in .toml")
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        raise SpecError(str(path), "<file>", f"{what}; --spec takes a spec file (.toml)")
    book = load_file(path)
    if book.id in rulebook_ids():
        raise SpecError(
            path.name,
            "rulebook.id",
            f"{book.id!r} is a registered rulebook; give your spec its own id (and file name)",
        )
    from arbitro.model.schema import check_rulebook

    check_rulebook(book)
    _OWN_SPECS[book.id] = book
    return book


def load_all(directory: Path | None = None) -> list[Rulebook]:
    """Every rulebook in the spec directory, in id order."""
    return [load_rulebook(n, directory) for n in rulebook_ids(directory)]


@cache
def _load_checked(path: str) -> Rulebook:
    from arbitro.model.schema import check_rulebook  # schema reads this module's types

    book = _load_cached(path)
    check_rulebook(book)
    return book


@cache
def _load_cached(path: str) -> Rulebook:
    return load_file(Path(path))


def load_file(path: Path) -> Rulebook:
    """Parse and check one spec file; every problem raises SpecError naming file and key."""
    file = path.name
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(file, "<toml>", f"not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise SpecError(file, "<file>", f"not UTF-8 text: {e}") from None
    return parse_spec(raw, file)


def parse_spec(raw: Mapping[str, Any], file: str) -> Rulebook:
    """Check the shape of a parsed spec and build the Rulebook."""
    _only(raw, {"rulebook", "clause"}, file, "<top level>")
    head = _table(raw, "rulebook", file, "rulebook")
    _only(head, {"id", "game", "language", "title", "text", "sha256", "sections"}, file, "rulebook")
    rb_id = _str(head, "id", file, "rulebook.id")
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
    if not isinstance(key, str) or not _KEY.match(key):
        raise SpecError(file, f"clause[{i}].key", "expected a snake_case key such as 'draw_count'")
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
        if not _LABEL.match(label):
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
