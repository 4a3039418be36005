"""What the rulebooks leave open, say twice, say wrongly about themselves, or make impossible.

Findings come from two places:

- **declared**: the statuses the spec writers set (a `conflicting` clause is a contradiction, an
  `unspecified` one a gap, a value that differs between books a difference), and problems our own
  paraphrase of a `stated` clause describes (`NOTE_PHRASES`);
- **derived** (`derive`): the books' claims checked (`proofs/claims.py`), clause clashes and dead
  rules proved by the solver (`proofs/clashes.py`, `proofs/dead_rules.py`), a witness for every
  difference between readings of one book and between books (`proofs/differences.py`), and dead
  ends seen in random play and replayed (`arbitro/findings/dead_ends.py`).

Each finding has a kind (`KINDS`), a severity (`SEVERITIES`: does it change who wins, a score,
which moves are legal, or nothing), the book's sections and anchor words (with the book's sentence
when its text is at hand), the clauses, the witness or unsat core, and a summary in the book's own
words (our paraphrases). Findings about the same problem are merged.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any, TypeVar

from arbitro.findings.compare import VOCABULARY, canonical, diff, rule_value
from arbitro.model.family import family_of_game
from arbitro.model.schema import Rules
from arbitro.model.spec import Clause, Rulebook, spec_dir

KINDS = (
    "internal-contradiction",
    "clause-clash",
    "gap",
    "dead-rule",
    "claim",
    "dead-end",
    "cross-rulebook-difference",
)
SEVERITIES = ("winner", "score", "moves", "none")
"""What a finding can change: who wins the game, a hand's score, which moves are legal, nothing."""

WINNER_TOPICS = ("game-end",)
SCORE_TOPICS = (
    "card-values",
    "scoring",
    "red-threes",
    "black-threes",
    "special-melds",
    "penalties",
)
WINNER_KEYS = ("target_score", "target_rule", "target_tie")

NOTE_PHRASES: dict[str, str] = {
    "never applies": "dead-rule",
    "clashes with": "internal-contradiction",
    "the book links": "internal-contradiction",
    "also says": "internal-contradiction",
    "neither pure nor": "internal-contradiction",
    "read strictly": "internal-contradiction",
    "does not say": "gap",
    "is not said": "gap",
}
"""Words our paraphrase of a `stated` clause uses when it records a problem of the book's text."""

NONE_PHRASES = (
    "never applies",
    "never to decide anything",
    "cannot matter",
    "makes no difference",
    "never refuses",
    "cannot arise",
)
"""Words by which a finding says of itself that it cannot change anything: severity none."""


@dataclass(frozen=True)
class Place:
    """Where a finding is in a book: section, anchor words and, when at hand, the sentence."""

    rulebook: str
    section: str
    anchor: str | None
    sentence: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rulebook": self.rulebook, "section": self.section}
        if self.anchor:
            out["anchor"] = self.anchor
        if self.sentence:
            out["sentence"] = self.sentence
        return out


@dataclass(frozen=True)
class Finding:
    """One thing a rules editor should look at, with the clauses involved and its evidence."""

    kind: str
    game: str
    rulebooks: tuple[str, ...]
    topic: str
    clauses: tuple[str, ...]
    summary: str
    details: dict[str, Any] = field(default_factory=dict)
    witness: dict[str, Any] | None = None
    core: tuple[str, ...] = ()
    severity: str = "moves"
    places: tuple[Place, ...] = ()
    checked: bool = False  # the witness or core was produced and checked by a machine
    evidence: str = ""
    """`exhibits`: the witness, replayed by the engine, shows the defect between the books or
    readings named; `supports`: weaker (a clause that decides a move, an unsat core, a case shown
    with one rule swapped in); empty: no machine-checked evidence."""

    @property
    def id(self) -> str:
        """A stable id: kind, books and clauses, hashed with the summary's subject."""
        h = hashlib.sha256(
            canonical([self.kind, list(self.rulebooks), list(self.clauses), self.topic]).encode()
        ).hexdigest()[:8]
        return f"{self.kind}:{'+'.join(self.rulebooks)}:{h}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "severity": self.severity,
            "game": self.game,
            "rulebooks": list(self.rulebooks),
            "topic": self.topic,
            "clauses": list(self.clauses),
            "summary": self.summary,
            "where": [p.to_json() for p in self.places],
            "checked": self.checked,
            "evidence": self.evidence or "none",
        }
        out.update(self.details)
        if self.witness is not None:
            out["witness"] = self.witness
        if self.core:
            out["core"] = list(self.core)
        return out


_IDENT = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+(?:\.[a-z_]+)?\b")


def book_words(text: str) -> str:
    """`text` with the model's value and field names turned into words."""

    def word(m: re.Match[str]) -> str:
        name = m.group(0)
        if name in VOCABULARY:
            return VOCABULARY[name]
        return "the rule on " + name.replace(".", " ").replace("_", " ")

    return _IDENT.sub(word, text)


# ---------------------------------------------------------------- derived results, cached

CACHE_VERSION = 2
_SOURCES = ("findings", "model", "proofs")
"""What the derived results are computed by, relative to the arbitro package: the findings'
modules, every module of the model (dead ends and witnesses are played by it) and of the proofs."""


def _source_files() -> list[Path]:
    root = Path(__file__).resolve().parent.parent
    out: list[Path] = []
    for rel in _SOURCES:
        p = (root / rel).resolve()
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p] if p.is_file() else []
    return out


def digest(books: Sequence[Rulebook]) -> str:
    """The cache key: every spec file's bytes and the sources of the derivations."""
    h = hashlib.sha256(str(CACHE_VERSION).encode())
    d = spec_dir()
    for b in sorted(books, key=lambda b: b.id):
        p = d / f"{b.id}.toml"
        h.update(b.id.encode())
        # a user's own spec (--spec) is not in the spec directory: its whole content is the key
        h.update(p.read_bytes() if p.is_file() else repr(b).encode())
    for p in _source_files():
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:24]


def cache_dir() -> Path:
    """$ARBITRO_CACHE, else $XDG_CACHE_HOME/arbitro, else ~/.cache/arbitro."""
    env = os.environ.get("ARBITRO_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "arbitro"


Progress = Callable[[str], None]
T = TypeVar("T")


def derive(
    books: Sequence[Rulebook],
    timeout: float = 10.0,
    progress: Progress | None = None,
    dead_end_hands: int = 20,
    into: dict[str, Any] | None = None,
    client: Any = None,
    spec: str | None = None,
) -> dict[str, Any]:
    """Everything the findings derive by solver, computation and play, as JSON-able data, filled
    into `into` when given (so that a caller keeps what was derived before a Ctrl-C).

    The work is tasks, run one after another here, or over a Dask `client`'s workers (`spec`: the
    user's spec file among `books`, which a worker registers first): per book its claims, its
    meld searches (clashes, dead rules, refuted properties) and its dead ends; one per group of
    witness searches that share a search; one per open question looked for in play. They are
    merged here in this order, so the data is the same either way."""
    started = time.perf_counter()

    def say(msg: str) -> None:
        if progress is not None:
            progress(f"{time.perf_counter() - started:6.1f}s {msg}")

    out: dict[str, Any] = {} if into is None else into
    out |= {
        "claims": [],
        "clashes": [],
        "dead_rules": [],
        "escalera_wild": {},
        "witnesses": {},
        "dead_ends": [],
        "properties": [],
    }
    out["moot"] = {}
    book_parts = [
        (f"{b.id}: {what}", (spec, part, b, timeout, dead_end_hands))
        for b in books
        for what, part in _BOOK_PARTS
        if part is _claims or _searched(b)
    ]
    for got in _tasks(client, book_parts, say):
        for key, value in got.items():
            if isinstance(value, list):
                out[key] += value
            else:
                out[key].update(value)
    # games that never end are not looked for by random play: play that runs out of patience
    # proves nothing, and a claim that a game never ends needs a proof or a replayed cycle
    # only a clause that never applies as a whole: a dead row of an opening table says nothing
    # of the other rows, where two tables may still differ
    dead = {x["clause"] for x in out["dead_rules"] if not x.get("options") and x["whole"]}
    jobs = witness_jobs(books)
    found: dict[str, Any] = {}
    searched: list[WitnessJob] = []
    for job in jobs:
        ids = [_cid(books, m, job.key) for m in (job.first, job.second)]
        if all(i in dead for i in ids):
            # the rule never applies in either book: no case can tell them apart, and the
            # findings cite the dead-rule proofs instead of a search
            found[job.label] = {
                "key": job.key,
                "books": [_name(*job.first), _name(*job.second)],
                "how": "none",
                "found": False,
                "text": f"not searched: {job.key.replace('_', ' ')} never applies in either book",
                "checked": "",
            }
        else:
            searched.append(job)
    groups = _sharing(searched)
    searches = [(f"witness: {g[0].label}", (spec, _witnesses, g, timeout)) for g in groups]
    for got in _tasks(client, searches, say):
        found.update(got)
        out["witnesses"] = {j.label: found[j.label] for j in jobs if j.label in found}
    out["witnesses"] = {j.label: found[j.label] for j in jobs if j.label in found}
    out["arises"] = {}
    # a book whose own readings a witness tells apart needs no position of play for that clause;
    # a witness against another book says nothing about this book's open point
    told = {
        f"{key}|{first}"
        for key, first, second in (k.split("|") for k in out["witnesses"])
        if out["witnesses"][f"{key}|{first}|{second}"]["found"]
        and second.startswith(first + " (reading")
    }
    questions = [
        (f"{b.id}: where {c.key} comes up in play", (spec, _arises, b, c.id, c.key))
        for b in books
        for c in b.clauses
        if f"{c.key}|{b.id}" not in told and _open_question(c) and c.id not in out["moot"]
    ]
    for got in _tasks(client, questions, say):
        out["arises"].update(got)
    return out


def _tasks(
    client: Any, tasks: Sequence[tuple[str, tuple[Any, ...]]], say: Callable[[str], None]
) -> Iterator[Any]:
    """Each task's result, in task order (`cluster.run_tasks`), each named to `progress` as it
    starts when run here, as it comes back when run on a cluster."""
    from arbitro.proofs.cluster import run_tasks

    results = run_tasks(client, _run_part, [args for _, args in tasks])
    for i in range(len(tasks)):
        if client is None:
            say(tasks[i][0])
        _, got = next(results)
        if client is not None:
            say(tasks[i][0])
        yield got


def _run_part(spec: str | None, part: Callable[..., T], *args: Any) -> T:
    """One part of the derivation (in a worker, which registers the user's spec file first)."""
    if spec is not None:
        from arbitro.model.spec import use_spec_file

        use_spec_file(Path(spec))
    return part(*args)


def _searched(book: Rulebook) -> bool:
    """Clashes, dead rules and dead ends are searched among Samba's and Canasta's melds."""
    from arbitro.model.rummy.family import FAMILY as RUMMY

    return RUMMY.plays(book.game)


def _claims(book: Rulebook, timeout: float, hands: int) -> dict[str, Any]:
    """The book's claims checked, and its clauses that never matter."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs.claims import check_book
    from arbitro.proofs.moot import book_moot

    claims = []
    for checked in check_book(book, timeout=timeout):
        row = checked.to_json()
        row.pop("seconds", None)  # timings stay out: the data is the same on any machine
        claims.append(row)
    moot = {m.clause: m.to_json() for m in book_moot(rules_for(book))}
    return {"claims": claims, "moot": moot}


def _melds(book: Rulebook, timeout: float, hands: int) -> dict[str, Any]:
    """The book's clause clashes, dead rules, the wild cards an escalera may hold, and prove's
    opening-table property refuted."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs.clashes import book_clashes
    from arbitro.proofs.dead_rules import book_dead_rules, escalera_wild_core

    core = escalera_wild_core(rules_for(book), timeout)  # type: ignore[arg-type]
    return {
        "clashes": [c.to_json() for c in book_clashes(book, timeout)],
        "dead_rules": [d.to_json() for d in book_dead_rules(book, timeout)],
        "escalera_wild": {} if core is None else {book.id: list(core)},
        "properties": refuted_properties(book, timeout),
    }


def _dead_ends(book: Rulebook, timeout: float, hands: int) -> dict[str, Any]:
    """The hands of random play that end with no legal move, each with its causes."""
    from arbitro.findings.dead_ends import dead_ends

    return {
        "dead_ends": [
            {
                "rulebook": d.rulebook,
                "layout": d.layout,
                "clauses": list(d.clauses),
                "hands": d.hands,
                "sampled": d.sampled,
                "actions": d.actions,
                "replayed": d.replayed,
                "transcript": d.transcript,
                "seed": d.seed,
            }
            for d in dead_ends(book, hands=hands)
        ]
    }


_BOOK_PARTS: tuple[tuple[str, Callable[[Rulebook, float, int], dict[str, Any]]], ...] = (
    ("claims", _claims),
    ("clause clashes and dead rules", _melds),
    ("dead ends", _dead_ends),
)
"""A book's parts of the derivation, in the order they are merged."""


def _sharing(jobs: Sequence[WitnessJob]) -> list[list[WitnessJob]]:
    """The witness jobs in groups, each job with every other that tries one of its pairs (so
    that a pair is searched once), in the order of their first jobs."""
    groups: list[list[WitnessJob]] = []
    labels: list[set[str]] = []
    for job in jobs:
        mine = {_label(job.key, a, b) for a, b in ((job.first, job.second), *job.others)}
        hit = [i for i, ls in enumerate(labels) if ls & mine]
        if not hit:
            groups.append([job])
            labels.append(mine)
            continue
        first = hit[0]
        for i in reversed(hit[1:]):  # groups this job joins together
            groups[first] += groups.pop(i)
            labels[first] |= labels.pop(i)
        groups[first].append(job)
        labels[first] |= mine
    order = {id(job): i for i, job in enumerate(jobs)}
    return [sorted(g, key=lambda job: order[id(job)]) for g in groups]


def _witnesses(jobs: Sequence[WitnessJob], timeout: float) -> dict[str, Any]:
    """Each job's witness, the pairs they share searched once."""
    done: dict[str, Any] = {}
    return {job.label: job.run(timeout, done).to_json() for job in jobs}


def _arises(book: Rulebook, cid: str, key: str) -> dict[str, Any]:
    """Where the open question of clause `cid` comes up in play, when it does."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs.differences import arises

    got = arises(rules_for(book), key)
    return {} if got is None else {cid: got}


PROPERTY_FIELDS = (
    "opening_minimums",
    "opening_minimum_past_table",
    "target_score",
    "target_rule",
    "target_tie",
)
"""The rule fields prove's opening-table property reads (with the score step)."""

BOOK_SILENT: dict[str, Any] = {"opening_minimum_past_table": -1}
"""What a rule field holds when the book gives it no value (the schema's 'none given'). A
property of the book's own table is asked with these: a clause the book is silent on holds our
default, which fills the hole the property is about, not the book."""


def book_text(book: Rulebook, rules: Rules, options: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """`rules` with every field of `BOOK_SILENT` whose clause the book is silent on (status
    unspecified, and not chosen by `options`) set to the book's silence; and those fields."""
    unset = [
        k
        for k in BOOK_SILENT
        if book.has(k) and book.clause(k).status == "unspecified" and k not in options
    ]
    return replace(rules, **{k: BOOK_SILENT[k] for k in unset}), unset


def refuted_properties(book: Rulebook, timeout: float) -> list[dict[str, Any]]:
    """prove's opening-table property under each reading of the book, once per distinct value of
    the fields it reads; each refutation with its witness. It is asked of the book's own table
    (`book_text`): a default we chose where the book is silent does not close a hole in the
    book. The step of the running totals is the gcd of every point value the rules give (every
    hand score is a multiple of it), so no total a game can have is left out."""
    from arbitro.model.rummy.family import FAMILY as RUMMY
    from arbitro.model.schema import rules_for
    from arbitro.proofs.differences import score_unit
    from arbitro.proofs.rummy import opening
    from arbitro.proofs.runner import readings
    from arbitro.proofs.verdict import Verdict

    out: list[dict[str, Any]] = []
    seen: set[Any] = set()
    for opts in readings(book):
        rules = rules_for(book, opts)
        if not RUMMY.owns(rules):
            return out
        rules, unset = book_text(book, rules, opts)
        unit = score_unit(rules)
        key = (tuple(getattr(rules, k) for k in PROPERTY_FIELDS), unit)
        if key in seen:
            continue
        seen.add(key)
        res = opening.run(rules, timeout, step=unit)
        if res.verdict is not Verdict.REFUTED:
            continue
        bad = res.failing()[0]
        if bad.witness is None:
            continue
        out.append(
            {
                "rulebook": book.id,
                "options": dict(opts),
                "unset": unset,
                "property": opening.NAME,
                "statement": opening.STATEMENT,
                "verdict": res.verdict.value,
                "text": bad.witness.text,
                "data": dict(bad.witness.data),
            }
        )
    return out


def _cid(books: Sequence[Rulebook], member: tuple[str, dict[str, str]], key: str) -> str | None:
    """The clause id of rule `key` in a job's book, when taken at its default reading."""
    if member[1]:
        return None
    book = next((b for b in books if b.id == member[0]), None)
    return book.clause(key).id if book is not None and book.has(key) else None


def _open_question(c: Clause) -> bool:
    """A clause the findings report as open: unspecified, or flagged by its own paraphrase."""
    return c.status == "unspecified" or (
        c.status in ("stated", "inferred") and any(p in c.paraphrase for p in NOTE_PHRASES)
    )


def cache_path(books: Sequence[Rulebook]) -> tuple[Path, str]:
    """The cache file for these books and its digest."""
    key = digest(books)
    return cache_dir() / f"findings-{key}.json", key


def load_or_derive(
    books: Sequence[Rulebook],
    use_cache: bool = True,
    progress: Progress | None = None,
    store: bool = True,
    into: dict[str, Any] | None = None,
    workers: int = 0,
    scheduler: str | None = None,
    spec: str | None = None,
) -> tuple[dict[str, Any], str]:
    """The derived data for these books, from the cache when it holds this digest and passes
    every check (`findings.cache.read`); else derived now and written to the cache when its
    results are deterministic (a cache that cannot be written is skipped, never an error).
    `use_cache` false derives again without reading the cache; `store` false never writes it.
    `into` receives what is derived as it is derived. Deriving is fanned out over a local Dask
    cluster of `workers` processes or a running one at `scheduler` when asked (`derive`), with
    the same data. Returns the data and where it came from."""
    from arbitro.findings import cache as findings_cache

    path, key = cache_path(books)
    if use_cache:
        try:
            return findings_cache.read(path, key), f"cache {path}"
        except (OSError, findings_cache.CacheMismatch):
            pass  # missing, or not what derive writes: derived again below
    from arbitro.proofs.cluster import cluster

    with cluster(scheduler, workers) as client:
        data = derive(books, progress=progress, into=into, client=client, spec=spec)
    if store and not findings_cache.write(path, key, data):
        return data, "derived now (not cached)"
    return data, "derived now"


# ---------------------------------------------------------------- witness jobs


@dataclass(frozen=True)
class WitnessJob:
    """Tell apart two rule sets on one rule: two books, or a book's default and another reading."""

    label: str
    key: str
    first: tuple[str, dict[str, str]]  # rulebook id, options
    second: tuple[str, dict[str, str]]
    others: tuple[tuple[tuple[str, dict[str, str]], tuple[str, dict[str, str]]], ...] = ()
    """Other pairs of books with the same two values, tried in turn when the first pair is not
    told apart (books of one value may differ in other rules the case needs: the draw count)."""

    def run(self, timeout: float, done: dict[str, Any] | None = None) -> Any:
        """The witness of the first pair told apart, else the first pair's search; `done` holds
        the searches already made, by label, and receives these."""
        from arbitro.model.schema import rules_for
        from arbitro.proofs.differences import witness

        done = {} if done is None else done
        first = None
        for one, two in ((self.first, self.second), *self.others):
            label = _label(self.key, one, two)
            got = done.get(label)
            if got is None:
                from arbitro.findings.replay import rule_sets

                a = replace(rules_for(one[0], one[1]), rulebook=_name(*one))
                b = replace(rules_for(two[0], two[1]), rulebook=_name(*two))
                got = witness(a, b, self.key, timeout=timeout, hands=2, budget=2000)
                # the rule sets the witness names, so that anyone can replay it under each
                got = replace(got, data={**got.data, "rule_sets": rule_sets(self.key, one, two)})
                done[label] = got
            if got.found:
                return got
            first = first or got
        return first


def _name(book: str, options: dict[str, str]) -> str:
    if not options:
        return book
    return f"{book} ({', '.join(f'reading {v}' for v in options.values())})"


def _label(key: str, a: tuple[str, dict[str, str]], b: tuple[str, dict[str, str]]) -> str:
    return f"{key}|{_name(*a)}|{_name(*b)}"


def witness_jobs(books: Sequence[Rulebook]) -> list[WitnessJob]:
    """Every pair the findings want a witness for: each alternative reading of a Samba or Canasta
    clause against the default, and each pair of differing values of a rule between books."""
    from arbitro.model.rummy.family import FAMILY as RUMMY

    jobs: list[WitnessJob] = []
    rummy = [b for b in books if RUMMY.plays(b.game)]
    for b in books:
        for c in b.clauses:
            if c.status not in ("conflicting", "unspecified") or len(c.readings) < 2:
                continue
            default = c.default if c.status == "conflicting" else None
            base: tuple[str, dict[str, str]] = (b.id, {})
            for r in c.readings:
                if r.label == default or (default is None and r.value == c.value):
                    continue
                alt = (b.id, {c.key: r.label})
                jobs.append(WitnessJob(_label(c.key, base, alt), c.key, base, alt))
    seen = {j.label for j in jobs}
    # the four rummy books together, and each game's own books (the comparison's Samba section)
    groups = [rummy, *([b for b in rummy if b.game == g] for g in sorted({b.game for b in rummy}))]
    for group in groups:
        for row in diff(group) if len(group) > 1 else []:
            if not row.differs:
                continue
            for job in value_pairs(group, row.key):
                if job.label not in seen:
                    seen.add(job.label)
                    jobs.append(job)
    return jobs


Member = tuple[str, dict[str, str]]
"""A rulebook id and the options that give it one of its values (none for its default)."""


def value_groups(books: Sequence[Rulebook], key: str) -> list[list[Member]]:
    """The books having rule `key`, grouped by the value they give it: a book's default value,
    and where the book says two things, each of its readings (with the option that selects it)."""
    from arbitro.findings.compare import rule_value

    groups: dict[str, list[Member]] = {}
    for b in books:
        if not b.has(key):
            continue
        c = b.clause(key)
        groups.setdefault(rule_value(key, c.value), []).append((b.id, {}))
        if c.status == "conflicting":
            for r in c.readings:
                if r.label != c.default:
                    groups.setdefault(rule_value(key, r.value), []).append((b.id, {key: r.label}))
    return [g for g in groups.values()]


def value_pairs(books: Sequence[Rulebook], key: str) -> list[WitnessJob]:
    """One witness job for each pair of values the books give rule `key` by default (or, where
    those agree, of every value their readings give): a book of one value against a book of the
    other, another book where there is one (a book against its own other reading is the internal
    contradiction's witness), with one more pair to try."""
    out: list[WitnessJob] = []
    books = sorted(books, key=lambda b: b.id)  # the same pairs whatever order they come in
    game = {b.id: b.game for b in books}
    groups = value_groups(books, key)
    # the values books give by default, when they already differ; a value only some book's other
    # reading gives is needed where the defaults all agree (the target reached or exceeded)
    given = [g for g in groups if any(not m[1] for m in g)]
    for g1, g2 in combinations(given if len(given) > 1 else groups, 2):
        if not g1 or not g2:
            continue
        # two books of one game first, then books that deal one deck to a common table (a case
        # found there is a position of both games, which each book is then asked about itself),
        # then books at their default reading: the pair a table of that game's books alone would
        # choose, so one search serves both tables
        pairs = sorted(
            [(x, y) for x in g1 for y in g2 if x[0] != y[0]] or [(g1[0], g2[0])],
            key=lambda p: (
                game[p[0][0]] != game[p[1][0]],
                game[p[0][0]] != game[p[1][0]] and not _common_table(books, p[0], p[1]),
                bool(p[0][1]) + bool(p[1][1]),
            ),
        )
        a, b = pairs[0]
        if a[0] == b[0] and a[1]:
            a, b = b, a  # the book's default first, as its internal witness has it
        out.append(WitnessJob(_label(key, a, b), key, a, b, tuple(pairs[1:2])))
    return out


def _common_table(books: Sequence[Rulebook], x: Member, y: Member) -> bool:
    """Whether two members seat the same number of players in the same sides with one deck."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs.differences import _model

    def tables(m: Member) -> set[tuple[int, int, tuple[int, ...]]]:
        book = next(b for b in books if b.id == m[0])
        r = rules_for(book, m[1])
        model = _model(r)
        return {(s.players, s.sides, tuple(sorted(model.deck(r, s)))) for s in model.seatings(r)}

    try:
        return bool(tables(x) & tables(y))
    except (ValueError, KeyError, IndexError, StopIteration):
        return False


# ---------------------------------------------------------------- building the findings


def _places(book: Rulebook, c: Clause, sentences: bool) -> list[Place]:
    from arbitro.booktext import sentence

    spots: list[tuple[str, str | None]] = []
    if c.section:
        spots.append((c.section, c.anchor))
    for r in c.readings:
        if r.section and (r.section, r.anchor) not in spots:
            spots.append((r.section, r.anchor))
    anchored = {s for s, a in spots if a}
    return [
        Place(book.id, s, a, sentence(book, s, a) if sentences else None)
        for s, a in spots
        if s and (a or s not in anchored)
    ]


def _severity(kind: str, topic: str, keys: Sequence[str], text: str, how: str | None) -> str:
    if kind in ("dead-rule", "claim") or any(p in text for p in NONE_PHRASES):
        return "none"
    if any(k in WINNER_KEYS for k in keys) or topic in WINNER_TOPICS:
        return "winner"
    if how == "score" or (how is None and topic in SCORE_TOPICS):
        return "score"
    if how in ("meld", "moves", "deal", "opening", "past-table"):
        return "moves"
    return "score" if topic in SCORE_TOPICS else "moves"


def _witness_for(derived: dict[str, Any], key: str, a: str, b: str) -> dict[str, Any] | None:
    w = derived.get("witnesses", {}).get(f"{key}|{a}|{b}")
    return w if isinstance(w, dict) else None


class _Builder:
    def __init__(self, books: Sequence[Rulebook], derived: dict[str, Any], sentences: bool):
        self.books = {b.id: b for b in books}
        self.derived = derived
        self.sentences = sentences
        self.out: list[Finding] = []

    def clause(self, cid: str) -> tuple[Rulebook, Clause] | None:
        book_id, _, _ = cid.partition(":")
        b = self.books.get(book_id)
        if b is None:
            return None
        for c in b.clauses:
            if c.id == cid:
                return b, c
        return None

    def resting(self, core: Sequence[str]) -> str:
        """What a proof rests on that is not the book's: defaults and chosen readings in its core."""
        soft = []
        for cid in core:
            hit = self.clause(cid)
            if hit is not None and hit[1].status in ("unspecified", "conflicting"):
                what = (
                    "the book is silent"
                    if hit[1].status == "unspecified"
                    else "the book says two things"
                )
                soft.append(f"{cid} ({what}; the model's default)")
        return f". This rests on {', '.join(soft)}" if soft else ""

    def places(self, cids: Sequence[str]) -> tuple[Place, ...]:
        out: list[Place] = []
        for cid in cids:
            hit = self.clause(cid)
            if hit is not None:
                out += [p for p in _places(hit[0], hit[1], self.sentences) if p not in out]
        return tuple(out)

    def add(self, f: Finding) -> None:
        f = replace(f, summary=book_words(f.summary))
        if not f.places:
            f = replace(f, places=self.places(f.clauses))
        self.out.append(f)


def _readings_json(c: Clause) -> list[dict[str, Any]]:
    return [
        {"label": r.label, "section": r.section, "paraphrase": r.paraphrase, "value": r.value}
        for r in c.readings
    ]


def _internal(bd: _Builder, book: Rulebook) -> None:
    """Conflicting and unspecified clauses, with witnesses telling their readings apart."""
    merged: dict[tuple[str, ...], list[Clause]] = {}
    for c in book.clauses:
        if c.status == "conflicting":
            labels = tuple(sorted(r.label for r in c.readings))
            merged.setdefault(labels, []).append(c)
    for group in merged.values():
        c = group[0]
        witnesses = _reading_witnesses(bd, book, group)
        readings = "; ".join(f"{r.label} ({r.section}): {r.paraphrase}" for r in c.readings)
        also = (
            " The same choice decides "
            + ", ".join(x.key.replace("_", " ") for x in group[1:])
            + "."
            if len(group) > 1
            else ""
        )
        bands = _band_cases(book, c) if c.key == "opening_minimums" else []
        summary = f"{book.id} says two things: {readings}. The model follows {c.default!r}.{also}"
        w = witnesses[0] if witnesses else (bands[0] if bands else None)
        bd.add(
            Finding(
                "internal-contradiction",
                book.game,
                (book.id,),
                c.topic,
                tuple(x.id for x in group),
                summary,
                details={
                    "default": c.default,
                    "readings": _readings_json(c),
                    **({"witnesses": witnesses[1:]} if len(witnesses) > 1 else {}),
                    **({"table_cases": bands} if bands else {}),
                },
                witness=w,
                severity=_severity(
                    "internal-contradiction",
                    c.topic,
                    [x.key for x in group],
                    summary,
                    w.get("how") if w else None,
                ),
                checked=w is not None,
            )
        )
    for c in book.clauses:
        if c.status != "unspecified":
            continue
        witnesses = _reading_witnesses(bd, book, [c])
        alternatives = [r for r in c.readings if r.value != c.value]
        alt = (
            " Other readings: " + "; ".join(f"{r.label}: {r.paraphrase}" for r in alternatives)
            if alternatives
            else ""
        )
        summary = f"{book.id} is silent: {c.paraphrase}. Why this default: {c.rationale}.{alt}"
        w = witnesses[0] if witnesses else bd.derived.get("arises", {}).get(c.id)
        moot = bd.derived.get("moot", {}).get(c.id)
        if w is None and moot is not None:
            w = moot
            summary += f". Proved never to decide anything: {moot['text']}"
        bd.add(
            Finding(
                "gap",
                book.game,
                (book.id,),
                c.topic,
                (c.id,),
                summary,
                details={"default": c.value, "readings": _readings_json(c)},
                witness=w,
                core=tuple(w.get("core", ())) if w is not None and w is moot else (),
                severity=_severity("gap", c.topic, [c.key], summary, w.get("how") if w else None),
                checked=w is not None,
            )
        )
    # a table that leaves scores uncovered, in any of its readings: one gap for the clause
    if book.has("opening_minimums"):
        c = book.clause("opening_minimums")
        holes = [x for x in _band_cases(book, c) if x["problem"] == "uncovered"]
        if holes:
            shown = "; ".join(
                f"{x['side_score']}" + (f" (reading {x['reading']})" if x["reading"] else "")
                for x in holes
            )
            bd.add(
                Finding(
                    "gap",
                    book.game,
                    (book.id,),
                    c.topic,
                    (c.id,),
                    f"{book.id}: no row of the opening table covers a side on {shown}",
                    witness=holes[0],
                    details={"table_cases": holes},
                    severity="moves",
                    checked=True,
                )
            )


def _reading_witnesses(
    bd: _Builder, book: Rulebook, group: Sequence[Clause]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for c in group:
        for r in c.readings:
            w = _witness_for(bd.derived, c.key, book.id, _name(book.id, {c.key: r.label}))
            if w is not None and w.get("found"):
                out.append(w)
    return out


def _band_cases(book: Rulebook, c: Clause) -> list[dict[str, Any]]:
    """Every side score, in the book's score step, that falls in two rows or none, per reading."""
    target = int(book.clause("target_score").value)
    edges: set[int] = {-1, 0, target - 1}
    for r in c.readings:
        for b in r.value:
            if b.get("low") is not None:
                edges |= {int(b["low"]) - 1, int(b["low"])}
            if b.get("high") is not None:
                edges |= {int(b["high"]), int(b["high"]) + 1}
    step = score_step(book)
    scores = sorted(
        {m for e in edges for m in (e // step * step, -(-e // step) * step) if m < target}
    )
    out: list[dict[str, Any]] = []
    for r in c.readings:
        for score in scores:
            hits = [b for b in r.value if _in_band(score, b)]
            if len({h["minimum"] for h in hits}) > 1:
                out.append(
                    {
                        "how": "opening",
                        "found": True,
                        "reading": r.label if len(c.readings) > 1 else "",
                        "problem": "two rows",
                        "side_score": score,
                        "minimums": [h["minimum"] for h in hits],
                        "text": f"a side on {score} falls in two rows of the opening table"
                        f" ({', '.join(str(h['minimum']) for h in hits)})",
                        "checked": "the table, evaluated at every edge of its rows",
                    }
                )
            elif not hits:
                out.append(
                    {
                        "how": "opening",
                        "found": True,
                        "reading": r.label if len(c.readings) > 1 else "",
                        "problem": "uncovered",
                        "side_score": score,
                        "text": f"no row of the opening table covers a side on {score}",
                        "checked": "the table, evaluated at every edge of its rows",
                    }
                )
    return out


def score_step(book: Rulebook) -> int:
    """The step in which side scores move: the gcd of every point value the book gives."""
    values: list[int] = []

    def walk(v: Any) -> None:
        if isinstance(v, bool):
            return
        if isinstance(v, int):
            values.append(abs(v))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    for c in book.clauses:
        if c.topic in SCORE_TOPICS and not c.key.endswith(("_count", "_completed", "_min_start")):
            for r in c.readings:
                walk(r.value)
    return math.gcd(*values) or 1


def _in_band(score: int, band: dict[str, Any]) -> bool:
    low, high = band.get("low"), band.get("high")
    return (low is None or score >= low) and (high is None or score <= high)


def _notes(bd: _Builder, book: Rulebook) -> None:
    """Problems our paraphrase of a stated or inferred clause records."""
    for c in book.clauses:
        if c.status not in ("stated", "inferred"):
            continue
        kind = next((k for p, k in NOTE_PHRASES.items() if p in c.paraphrase), None)
        if kind is None:
            continue
        core: tuple[str, ...] = ()
        witness = bd.derived.get("arises", {}).get(c.id)
        if kind == "dead-rule":
            # the part of the row that never applies: a samba holding a wild card
            got = bd.derived.get("escalera_wild", {}).get(book.id)
            if got is None:
                continue  # the solver does not confirm it: no finding on words alone
            core = tuple(got)
            witness = {
                "text": "no escalera on the table holds a wild card (unsat)",
                "how": "solver",
            }
        summary = f"{book.id}, {c.section}: {c.paraphrase}"
        bd.add(
            Finding(
                kind,
                book.game,
                (book.id,),
                c.topic,
                (c.id, *[x for x in core if x != c.id]),
                summary,
                witness=witness,
                core=core,
                severity=_severity(kind, c.topic, [c.key], summary, None),
                checked=bool(core) or witness is not None,
                details={"from": "the paraphrase of a stated clause"},
            )
        )


def _derived(bd: _Builder) -> None:
    d = bd.derived
    for x in d.get("clashes", []):
        book = bd.books.get(x["rulebook"])
        if book is None:
            continue
        reading = _reading_text(x.get("options", {}))
        summary = (
            f"{book.id}{reading}: the book allows {x['permission'].removesuffix(' may be laid')}"
            f" but its other clauses leave no way to do it{bd.resting(x['core'])}"
        )
        bd.add(
            Finding(
                "clause-clash",
                book.game,
                (book.id,),
                "melds",
                (x["clause"], *[c for c in x["core"] if c != x["clause"]]),
                summary,
                core=tuple(x["core"]),
                witness={"text": "unsat core: " + ", ".join(x["core"]), "how": "solver"},
                severity="moves",
                checked=True,
                details={"options": x.get("options", {})},
            )
        )
    for x in d.get("dead_rules", []):
        book = bd.books.get(x["rulebook"])
        if book is None:
            continue
        reading = _reading_text(x.get("options", {}))
        summary = (
            f"{book.id}{reading}: {x['what']} never applies: {x['why']}{bd.resting(x['core'])}"
        )
        hit = bd.clause(x["clause"])
        bd.add(
            Finding(
                "dead-rule",
                book.game,
                (book.id,),
                hit[1].topic if hit else "scoring",
                (x["clause"], *[c for c in x["core"] if c != x["clause"]]),
                summary,
                core=tuple(x["core"]),
                witness=x.get("witness") or {"text": "unsat core: " + ", ".join(x["core"])},
                severity="none",
                checked=True,
                details={"options": x.get("options", {})},
            )
        )
    by_claim: dict[str, list[dict[str, Any]]] = {}
    for x in d.get("claims", []):
        by_claim.setdefault(x["claim"], []).append(x)
    # a claim refuted under the default reading is a finding of its own; claims refuted only under
    # one other reading are one finding for that reading (the reading is the problem, not each claim)
    groups: dict[tuple[str, str], list[tuple[Any, dict[str, Any], list[dict[str, Any]]]]] = {}
    for cid, runs in by_claim.items():
        # an UNKNOWN says nothing about the book: it is listed with the checked claims only
        bad = [r for r in runs if r["verdict"] == "REFUTED"]
        book = bd.books.get(cid.split(":", 1)[0])
        claim = next((c for c in book.claims if c.id == cid), None) if book else None
        if not bad or book is None or claim is None:
            continue
        first = bad[0]
        key = (book.id, cid if first is runs[0] else canonical(first["options"]))
        groups.setdefault(key, []).append((claim, first, runs))
    for (bid, _), members in groups.items():
        book = bd.books[bid]
        claim, first, runs = members[0]
        default = first is runs[0]
        when = (
            "under the book's default readings"
            if default
            else f"under {_reading_text(first['options']).strip(' ()')}"
        )
        said = "; ".join(
            f"{c.paraphrase} ({r['method']}: {r.get('witness', {}).get('text', '')})"
            for c, r, _ in members
        )
        summary = f"{bid}: REFUTED {when}: the book says {said}"
        ids = tuple(c.id for c, _, _ in members)
        bd.add(
            Finding(
                "claim",
                book.game,
                (bid,),
                "claims",
                (*ids, *[x for x in first.get("core", []) if x not in ids]),
                summary,
                witness=first.get("witness"),
                core=tuple(first.get("core", [])),
                severity="none",
                checked=True,
                places=tuple(
                    Place(
                        bid,
                        c.section,
                        c.anchor,
                        _sentence(book, c.section, c.anchor) if bd.sentences else None,
                    )
                    for c, _, _ in members
                ),
                details={
                    "statements": {c.id: c.statement() for c, _, _ in members},
                    "verdicts": {
                        c.id: {
                            _reading_text(r["options"]).strip(" ()") or "default": r["verdict"]
                            for r in rs
                        }
                        for c, _, rs in members
                    },
                    "options": first["options"],
                },
            )
        )
    causes: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
    for x in d.get("dead_ends", []):
        causes.setdefault((x["rulebook"], tuple(x["clauses"])), []).append(x)
    for (bid, clauses), rows in causes.items():
        book = bd.books.get(bid)
        if book is None:
            continue
        best = min(rows, key=lambda r: r["actions"])
        hands = sum(r["hands"] for r in rows)
        sampled = sum(r["sampled"] for r in rows)
        words = [_paraphrase(bd, c) for c in clauses]
        summary = (
            f"{bid}: the player to move can be left with no legal action, where these rules meet: "
            + "; and ".join(w for w in words if w)
            + f". Seen in {hands} of {sampled} random hands"
            f" ({', '.join(sorted({r['layout'] for r in rows}))})"
        )
        bd.add(
            Finding(
                "dead-end",
                book.game,
                (bid,),
                "going-out",
                clauses,
                summary,
                witness={
                    "text": f"a {best['layout']} hand stuck after {best['actions']} moves; arbitro"
                    f" check replays every move of it legally ({best['replayed']}: the game stops"
                    " there)",
                    "how": "play",
                    "transcript": best["transcript"],
                },
                severity="moves",
                checked=best["replayed"] in ("valid", "incomplete"),
            )
        )


def _properties(bd: _Builder) -> None:
    """Properties of `arbitro prove` refuted for a book: the total a side can start a hand from
    with no opening minimum is a gap in the book's table, with the position that shows it; one
    finding per book and property, the first reading that shows it (the default when it does)
    giving the witness, the others listed. Where the hole is one our default for a clause the
    book is silent on fills (`book_text`), the finding is that clause's gap row: one row for the
    one defect, now with the case that shows it."""
    firsts: dict[tuple[str, str], dict[str, Any]] = {}
    also: dict[tuple[str, str], list[str]] = {}
    for x in bd.derived.get("properties", []):
        k = (x["rulebook"], x["property"])
        if k in firsts:
            reading = _reading_text(x["options"]).strip(" ()")
            also.setdefault(k, []).append(f"{x['text']} ({reading or 'the default reading'})")
        else:
            firsts[k] = x
    for k, x in firsts.items():
        book = bd.books.get(x["rulebook"])
        if book is None or x["property"] != "opening-table":
            continue
        options = x.get("options", {})
        unset = [u for u in x.get("unset", []) if book.has(u)]
        score = x["data"].get("side_score")
        if not isinstance(score, int):
            continue
        keys = ("opening_minimums", "target_score", "target_rule", "target_tie")
        clauses = tuple(book.clause(k).id for k in keys if book.has(k))
        name = _name(book.id, options)
        rows = x["data"].get("minimums") or []
        effect = (
            "no row of the opening table gives it a minimum"
            if not rows
            else f"two rows give it minimums {', '.join(map(str, rows))}"
        )
        whose = "the book's own table" if unset else name
        summary = (
            f"{name}: prove refutes, on {whose}, that {x['statement']}: with both sides level"
            f" on {score} the game goes on, and {effect}"
        )
        if also.get(k):
            summary += ". Also: " + "; ".join(also[k])
        sets: dict[str, Any] = {"book": book.id, "options": dict(options)}
        if unset:
            sets["unset"] = unset
        witness = {
            "how": "open-total",
            "found": True,
            "books": [name],
            "text": x["text"] + (" in the book's own table" if unset else ""),
            "side_score": score,
            "totals": [score, score],
            "minimums": rows,
            "rule_sets": {name: sets},
            "checked": "the solver (prove's opening-table), replayed by the model's"
            " game_over and dealing",
        }
        details = {"options": options, "property": x["property"], "unset": unset}
        home = next(
            (
                i
                for i, f in enumerate(bd.out)
                if f.kind == "gap" and unset and f.clauses == (book.clause(unset[0]).id,)
            ),
            None,
        )
        if home is not None:
            # the book is silent on the very hole prove finds: its gap row gets the case
            h = bd.out[home]
            more = {"witnesses": [h.witness]} if h.witness else {}
            bd.out[home] = replace(
                h,
                summary=book_words(f"{h.summary.rstrip('. ')}. The hole is real: {summary}"),
                witness=witness,
                checked=True,
                core=(),
                severity="moves" if h.severity == "none" else h.severity,
                details={**h.details, **details, **more, "clauses_read": list(clauses)},
            )
            continue
        bd.add(
            Finding(
                "gap",
                book.game,
                (book.id,),
                "opening",
                clauses,
                summary,
                witness=witness,
                severity="moves",
                checked=True,
                details=details,
            )
        )


def _paraphrase(bd: _Builder, cid: str) -> str:
    hit = bd.clause(cid)
    return hit[1].paraphrase if hit else cid


def _sentence(book: Rulebook, section: str, anchor: str | None) -> str | None:
    from arbitro.booktext import sentence

    return sentence(book, section, anchor)


def _reading_text(options: dict[str, Any]) -> str:
    if not options:
        return ""
    return " (" + ", ".join(f"reading {k} = {v}" for k, v in options.items()) + ")"


def _cross(bd: _Builder, books: Sequence[Rulebook]) -> None:
    """One finding per rule on which books of one game, or Samba and Canasta, differ."""
    families: dict[str, list[Rulebook]] = {}
    for b in books:
        families.setdefault(family_of_game(b.game).name, []).append(b)
    for group in families.values():
        if len(group) < 2:
            continue
        for row in diff(group):
            if not row.differs:
                continue
            present = [
                (b, cell.clause) for b, cell in zip(group, row.cells, strict=True) if cell.clause
            ]
            games = sorted({b.game for b, _ in present})
            values = {
                b.id: (
                    cl.value
                    if cl.status != "conflicting"
                    else {r.label: r.value for r in cl.readings}
                )
                for b, cl in present
            }
            by_value: dict[str, list[tuple[Rulebook, Clause]]] = {}
            for b, cl in present:
                by_value.setdefault(rule_value(row.key, values[b.id]), []).append((b, cl))
            # books giving the same value are named together only where our paraphrases of them
            # agree too: one book's words are never put in another's mouth (a book silent on a
            # point shares a value with a book that rules it out, not its reasons)
            parts: dict[tuple[str, str], list[str]] = {}
            for value, xs in by_value.items():
                for b, cl in xs:
                    parts.setdefault((value, cl.paraphrase), []).append(b.id)
            said = "; ".join(f"{', '.join(ids)}: {para}" for (_, para), ids in parts.items())
            ids = [b.id for b, _ in present]
            witnesses = []
            for job in value_pairs([b for b, _ in present], row.key):
                w = bd.derived.get("witnesses", {}).get(job.label)
                if isinstance(w, dict):
                    witnesses.append(w)
            found = [w for w in witnesses if w.get("found")]
            # the first case the two books themselves part on, when one pair's case is one
            w = next((x for x in found if _exhibits(x, bd.books)), None) or (
                found[0] if found else (witnesses[0] if witnesses else None)
            )
            summary = f"{row.key.replace('_', ' ')}: {said}"
            dead = None if found else _never_applies(bd, [cl.id for _, cl in present])
            if dead is not None:
                # no case tells the books apart because the rule never applies in any of them:
                # the proofs that it never does are the evidence, and the difference changes nothing
                w = dead
                found = [dead]
                summary += ". " + dead["text"]
            bd.add(
                Finding(
                    "cross-rulebook-difference",
                    ", ".join(games),
                    tuple(ids),
                    row.topic,
                    tuple(cl.id for _, cl in present),
                    summary,
                    details={
                        "key": row.key,
                        "values": values,
                        "statuses": {b.id: cl.status for b, cl in present},
                        **({"witnesses": witnesses} if len(witnesses) > 1 else {}),
                    },
                    witness=w,
                    severity=_severity(
                        "cross-rulebook-difference",
                        row.topic,
                        [row.key],
                        summary,
                        w.get("how") if w and w.get("found") else None,
                    ),
                    checked=bool(found),
                )
            )


def _exhibits(w: dict[str, Any], books: dict[str, Rulebook]) -> bool:
    """Whether the engine, replaying `w`, shows the defect between the books it names."""
    from arbitro.findings.replay import EXHIBITS, replay

    got = replay(w, books)
    return got.agrees and got.evidence == EXHIBITS


def _never_applies(bd: _Builder, cids: Sequence[str]) -> dict[str, Any] | None:
    """The dead-rule proofs that every one of these clauses never applies (under its book's
    default readings), as one witness; None unless each is proved dead."""
    proofs: dict[str, list[str]] = {}
    for x in bd.derived.get("dead_rules", []):
        if x["clause"] in cids and not x.get("options") and x["whole"]:
            proofs.setdefault(x["clause"], list(x["core"]))
    if not cids or set(cids) - set(proofs):
        return None
    return {
        "how": "dead-rule",
        "found": True,
        "text": "the rule never applies in any of these books (each proved a dead rule), so the"
        " difference cannot change anything",
        "cores": proofs,
        "checked": "the solver, for each book (see its dead-rule finding)",
    }


def findings(
    books: Sequence[Rulebook],
    game: str | None = None,
    derived: dict[str, Any] | None = None,
    sentences: bool = True,
) -> list[Finding]:
    """All findings for the books (of one game if given): each book's own, then between books.

    `derived` is what `derive` (or `load_or_derive`) computed; without it only the declared
    findings are built (no claims, clashes, dead rules, dead ends or witnesses)."""
    bd = _Builder(books, derived or {}, sentences)
    for b in books:
        _internal(bd, b)
        _notes(bd, b)
    _derived(bd)
    _properties(bd)
    _cross(bd, books)
    out = bd.out
    if game is not None:
        out = [f for f in out if game in f.game.split(", ")]
    out = [_weigh(f, {b.id: b for b in books}) for f in out]
    out = _different_games(_consequences(out), books)
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(out, key=lambda f: (order[f.kind], f.rulebooks, f.clauses))


_SEVERITY_ORDER = {s: i for i, s in enumerate(SEVERITIES)}
_EVIDENCE_ORDER = {"exhibits": 0, "supports": 1, "": 2}


def _consequences(found: list[Finding]) -> list[Finding]:
    """One row per defect: a claim refuted, or a rule dead, only under another reading of a
    clause the book says two things about is a consequence of that contradiction, and goes into
    its row (with its evidence) instead of a row of its own."""
    contradictions = {
        c: i for i, f in enumerate(found) if f.kind == "internal-contradiction" for c in f.clauses
    }
    out = list(found)
    gone: set[int] = set()
    for i, f in enumerate(found):
        options = f.details.get("options") or {}
        if f.kind not in ("claim", "dead-rule") or not options:
            continue
        book = f.rulebooks[0]
        keys = [f"{book}:{k.replace('_', '-')}" for k in options]
        home = next((contradictions[c] for c in keys if c in contradictions), None)
        if home is None:
            continue
        h = out[home]
        then = list(h.details.get("consequences", []))
        then.append(
            {
                "kind": f.kind,
                "clauses": list(f.clauses),
                "summary": f.summary,
                "options": options,
                **({"witness": f.witness} if f.witness else {}),
                **({"core": list(f.core)} if f.core else {}),
            }
        )
        out[home] = replace(
            h,
            summary=h.summary.rstrip(". ")
            + f". Under {_reading_text(options).strip(' ()')}: {f.summary}",
            # the row keeps its own clauses, so its id stays what it was; the consequence's
            # clauses are listed with it
            details={**h.details, "consequences": then},
        )
        gone.add(i)
    return [f for i, f in enumerate(out) if i not in gone]


def _different_games(found: list[Finding], books: Sequence[Rulebook]) -> list[Finding]:
    """One row per topic for the rules on which Canasta differs from every Samba book while the
    Samba books agree: that is Canasta being another game, said once per topic, not once a rule."""
    by_game: dict[str, list[Rulebook]] = {}
    for b in books:
        by_game.setdefault(b.game, []).append(b)
    if "canasta" not in by_game or len(by_game.get("samba", [])) < 2:
        return found
    canasta, samba = by_game["canasta"], by_game["samba"]

    def values(b: Rulebook, key: str) -> set[str]:
        c = b.clause(key)
        return {rule_value(key, c.value)} | {
            rule_value(key, r.value) for r in c.readings if c.status == "conflicting"
        }

    groups: dict[str, list[Finding]] = {}
    out: list[Finding] = []
    for f in found:
        key = f.details.get("key")
        if f.kind != "cross-rulebook-difference" or not isinstance(key, str):
            out.append(f)
            continue
        if not all(b.has(key) for b in (*canasta, *samba)):
            out.append(f)
            continue
        sambas = set().union(*(values(b, key) for b in samba))
        canastas = set().union(*(values(b, key) for b in canasta))
        if len(sambas) != 1 or sambas & canastas:
            out.append(f)  # the Samba books differ among themselves, or Canasta agrees with one
            continue
        groups.setdefault(f.topic, []).append(f)
    for topic, members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        members.sort(key=lambda f: (_EVIDENCE_ORDER[f.evidence], f.details["key"]))
        best = members[0]
        rules = "; ".join(f.summary for f in members)
        summary = (
            f"Canasta and Samba are different games on {topic.replace('-', ' ')}: every Samba"
            f" book agrees and canasta-es differs on {len(members)} rules. {rules}"
        )
        out.append(
            Finding(
                "cross-rulebook-difference",
                best.game,
                best.rulebooks,
                topic,
                tuple(dict.fromkeys(c for f in members for c in f.clauses)),
                summary,
                details={
                    "different_game": True,
                    "keys": [f.details["key"] for f in members],
                    "values": {f.details["key"]: f.details.get("values") for f in members},
                    "witnesses": [f.witness for f in members if f.witness],
                },
                witness=best.witness,
                severity=min((f.severity for f in members), key=_SEVERITY_ORDER.__getitem__),
                places=tuple(dict.fromkeys(p for f in members for p in f.places)),
                checked=best.checked,
                evidence=best.evidence,
            )
        )
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(out, key=lambda f: (order[f.kind], f.rulebooks, f.clauses))


def _weigh(f: Finding, books: dict[str, Rulebook]) -> Finding:
    """The finding with its evidence classed by replaying its witness: a witness the engine does
    not reproduce is no evidence at all (and the finding is no longer counted checked)."""
    from arbitro.findings.replay import SUPPORTS, replay

    if not f.checked:
        return f
    w = f.witness or {}
    if f.kind == "claim":
        from arbitro.findings.replay import replay_claim

        shown = replay_claim(f, books)
        if shown is None:
            return replace(f, evidence=SUPPORTS)
        return (
            replace(f, evidence=shown.evidence)
            if shown.agrees
            else replace(f, checked=False, evidence="")
        )
    if w.get("how") in (None, "solver") or f.kind in ("dead-rule", "clause-clash"):
        # an unsat core or an optimum: a proof about the encoding, not a case to replay
        return replace(f, evidence=SUPPORTS)
    got = replay(w, books)
    if not got.agrees:
        return replace(f, checked=False, evidence="")
    return replace(f, evidence=got.evidence or SUPPORTS)


def evidence_share(found: Sequence[Finding]) -> tuple[int, int]:
    """How many findings carry a machine-checked witness or unsat core, of how many."""
    return sum(1 for f in found if f.checked), len(found)


def evidence_counts(found: Sequence[Finding]) -> dict[str, int]:
    """How many findings exhibit the defect in a replayed case, how many only support it, how
    many carry no machine-checked evidence, of how many."""
    exhibits = sum(1 for f in found if f.evidence == "exhibits")
    supports = sum(1 for f in found if f.evidence == "supports")
    return {
        "exhibits": exhibits,
        "supports": supports,
        "none": len(found) - exhibits - supports,
        "total": len(found),
    }


def checked_claims(derived: dict[str, Any], books: Sequence[Rulebook]) -> list[dict[str, Any]]:
    """Every claim under the default reading with its verdict (proved ones are listed, not found)."""
    ids = {c.id for b in books for c in b.claims}
    seen: set[str] = set()
    out = []
    for x in derived.get("claims", []):
        if x["claim"] in ids and x["claim"] not in seen:
            seen.add(x["claim"])
            out.append(x)
    return out


def progress_to_stderr(msg: str) -> None:
    sys.stderr.write(f"deriving findings: {msg}\n")
    sys.stderr.flush()


__all__ = [
    "KINDS",
    "SEVERITIES",
    "Finding",
    "Place",
    "derive",
    "evidence_share",
    "findings",
    "load_or_derive",
    "score_step",
]
