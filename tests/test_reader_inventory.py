"""The careful reader's inventory of the five books, and the books' claims as spec data.

tests/data/reader/ holds, per book and for cross-book items, every internal contradiction, gap,
difference, dead rule and claim found by reading the texts. These tests check the shape of that list:
every passage cites a heading of its book and anchor words found inside that section, every clause
and claim it names exists, descriptions are our own words, and every claim in a spec is listed. They
also check each spec's [[claim]] entries against the texts. Each check is shown to fail on a broken
item (the `BROKEN` cases below).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from arbitro.model.errors import SpecError
from arbitro.model.provenance import COPY_RUN, section_spans
from arbitro.model.spec import (
    CLAIM_KINDS,
    Claim,
    Rulebook,
    load_all,
    load_file,
    load_rulebook,
    rulebook_ids,
)

READER = Path(__file__).parent / "data" / "reader"
KINDS = ("contradiction", "gap", "difference", "dead-rule", "claim")
ITEM_FIELDS = {
    "id",
    "kind",
    "books",
    "description",
    "clauses",
    "claims",
    "question",
    "why",
    "positions",
    "passage",
    "verdicts",
}
VERDICTS = ("holds", "fails", "depends")
PASSAGE_FIELDS = {"book", "section", "anchor"}
ANCHOR_MAX_WORDS = 6
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*$")


def _words(s: str) -> list[str]:
    return re.findall(r"\w+", s.lower())


def _norm(s: str) -> str:
    return " ".join(s.split())


class Books:
    """The specs (for sections, clauses and claims) and, when present, the texts of the books."""

    def __init__(self, rulebooks_dir: Path | None) -> None:
        self.specs: dict[str, Rulebook] = {b.id: b for b in load_all()}
        self.texts: dict[str, str] = {}
        if rulebooks_dir is not None:
            for b in self.specs.values():
                path = rulebooks_dir / b.text
                if path.is_file():
                    self.texts[b.id] = path.read_text(encoding="utf-8")
        self._runs: dict[str, set[tuple[str, ...]]] = {}

    def section_text(self, book: str, section: str) -> str | None:
        text = self.texts.get(book)
        if text is None:
            return None
        spans = section_spans(text, self.specs[book].sections)
        assert isinstance(spans, dict), f"{book}: the spec's headings do not match the text"
        s, e = spans[section]
        return text[s:e]

    def copies(self, book: str, ours: str) -> str | None:
        """The first run of COPY_RUN words `ours` shares with the book's text, if any."""
        text = self.texts.get(book)
        if text is None:
            return None
        if book not in self._runs:
            w = _words(text)
            self._runs[book] = {tuple(w[i : i + COPY_RUN]) for i in range(len(w) - COPY_RUN + 1)}
        ow = _words(ours)
        for i in range(len(ow) - COPY_RUN + 1):
            if tuple(ow[i : i + COPY_RUN]) in self._runs[book]:
                return " ".join(ow[i : i + COPY_RUN])
        return None

    def claim_ids(self) -> set[str]:
        return {c.id for b in self.specs.values() for c in b.claims}


def item_problems(item: Mapping[str, Any], file_book: str, books: Books) -> list[str]:
    """Every way one inventory item is malformed; empty when it is well formed."""
    out: list[str] = []
    iid = item.get("id")
    where = f"item {iid!r}"
    if not isinstance(iid, str) or not _ID.match(iid):
        out.append(f"{where}: id must look like 'book.short-name'")
    extra = sorted(set(item) - ITEM_FIELDS)
    if extra:
        out.append(f"{where}: unknown field {extra[0]!r}")
    kind = item.get("kind")
    if kind not in KINDS:
        out.append(f"{where}: unknown kind {kind!r}; known: {', '.join(KINDS)}")
    item_books = item.get("books")
    if not isinstance(item_books, list) or not item_books:
        return [*out, f"{where}: books must be a non-empty list of rulebook ids"]
    for b in item_books:
        if b not in books.specs:
            out.append(f"{where}: unknown book {b!r}")
    if file_book != "cross" and item_books != [file_book]:
        out.append(f"{where}: an item of {file_book}.toml concerns {file_book} alone")
    if file_book == "cross" and len(item_books) < 2:
        out.append(f"{where}: a cross-book item names at least two books")
    if out:
        return out

    texts: list[tuple[str, str]] = []  # (book, our words) to check for copying
    for field in ("description", "question", "why"):
        if field in item:
            v = item[field]
            if not isinstance(v, str) or not v.strip():
                out.append(f"{where}: {field} must be a non-empty string")
            else:
                texts.extend((b, v) for b in item_books)
    if "description" not in item:
        out.append(f"{where}: missing description")

    passages = item.get("passage", [])
    if not isinstance(passages, list) or not passages:
        out.append(f"{where}: needs at least one [[item.passage]]")
        passages = []
    cited_books: list[str] = []
    for j, p in enumerate(passages):
        pw = f"{where} passage {j}"
        if not isinstance(p, dict):
            out.append(f"{pw}: expected a table")
            continue
        extra = sorted(set(p) - PASSAGE_FIELDS)
        if extra:
            out.append(f"{pw}: unknown field {extra[0]!r}")
        book = p.get("book", file_book)
        if book not in item_books:
            out.append(f"{pw}: book {book!r} is not among the item's books")
            continue
        cited_books.append(book)
        spec = books.specs[book]
        section = p.get("section")
        if section not in spec.sections:
            out.append(f"{pw}: {section!r} is not a section of {book}")
            continue
        anchor = p.get("anchor")
        if not isinstance(anchor, str) or not anchor.strip():
            out.append(f"{pw}: missing anchor")
            continue
        if len(anchor.split()) > ANCHOR_MAX_WORDS:
            out.append(f"{pw}: anchor {anchor!r} has more than {ANCHOR_MAX_WORDS} words")
        body = books.section_text(book, section)
        if body is not None and _norm(anchor) not in _norm(body):
            out.append(f"{pw}: anchor {anchor!r} is not in section {section!r} of {book}")
    for b in item_books:
        if b not in cited_books:
            out.append(f"{where}: no passage cites {b}")

    clauses = item.get("clauses", [])
    if not isinstance(clauses, list):
        out.append(f"{where}: clauses must be a list of clause ids")
        clauses = []
    for cid in clauses:
        book, _, key = str(cid).partition(":")
        if book not in item_books:
            out.append(f"{where}: clause {cid!r} is not of one of the item's books")
        elif not books.specs[book].has(key.replace("-", "_")):
            out.append(f"{where}: {book} has no clause {cid!r}")

    claims = item.get("claims", [])
    if kind == "claim" and not claims:
        out.append(f"{where}: a claim item names the spec claims that state it")
    if kind != "claim" and claims:
        out.append(f"{where}: only claim items name spec claims")
    verdicts = item.get("verdicts")
    if kind == "claim":
        if not isinstance(verdicts, dict) or set(verdicts) != set(claims):
            out.append(f"{where}: a claim item gives the reader's verdict on each of its claims")
        elif any(v not in VERDICTS for v in verdicts.values()):
            out.append(f"{where}: a verdict is one of {', '.join(VERDICTS)}")
    elif verdicts is not None:
        out.append(f"{where}: only claim items give verdicts")
    known_claims = books.claim_ids()
    for cl in claims if isinstance(claims, list) else []:
        if cl not in known_claims:
            out.append(f"{where}: no spec has the claim {cl!r}")

    if kind == "contradiction" and len(passages) < 2:
        out.append(f"{where}: a contradiction cites both of its passages")
    if kind == "gap" and "question" not in item:
        out.append(f"{where}: a gap says what question the book leaves open")
    if kind == "dead-rule" and "why" not in item:
        out.append(f"{where}: a dead rule says why it can never apply")
    if kind == "difference":
        positions = item.get("positions")
        if not isinstance(positions, dict) or set(positions) != set(item_books):
            out.append(f"{where}: a difference gives each book's position, by book id")
        else:
            texts.extend((b, str(v)) for b, v in positions.items())
    elif "positions" in item:
        out.append(f"{where}: only differences give positions")

    for book, ours in texts:
        run = books.copies(book, ours)
        if run:
            out.append(f"{where}: copies {book}: {run!r}")
    return out


def inventory_problems(files: Mapping[str, Mapping[str, Any]], books: Books) -> list[str]:
    """Every problem of a whole inventory: its items, duplicate ids, and claims nobody lists."""
    out: list[str] = []
    seen: set[str] = set()
    listed: set[str] = set()
    for name, data in files.items():
        head = data.get("inventory", {})
        file_book = head.get("book")
        if file_book != name:
            out.append(f"{name}.toml: [inventory] book must be {name!r}")
            continue
        for item in data.get("item", []):
            out.extend(f"{name}.toml: {p}" for p in item_problems(item, file_book, books))
            iid = item.get("id")
            if iid in seen:
                out.append(f"{name}.toml: item {iid!r} is listed twice")
            seen.add(iid)
            listed.update(item.get("claims", []))
    for missing in sorted(books.claim_ids() - listed):
        out.append(f"no inventory item lists the claim {missing!r}")
    return out


def _load_inventory() -> dict[str, dict[str, Any]]:
    return {
        p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(READER.glob("*.toml"))
    }


@pytest.fixture(scope="module")
def books() -> Books:
    from tests.conftest import RULEBOOKS

    return Books(RULEBOOKS if RULEBOOKS.is_dir() else None)


def test_there_is_a_file_per_book_and_one_for_cross_book_items() -> None:
    assert sorted(_load_inventory()) == sorted([*rulebook_ids(), "cross"])


def test_the_inventory_is_well_formed(books: Books) -> None:
    problems = inventory_problems(_load_inventory(), books)
    assert not problems, "\n".join(problems)


def test_every_kind_is_represented() -> None:
    kinds = {item["kind"] for data in _load_inventory().values() for item in data["item"]}
    assert kinds == set(KINDS)


def test_anchors_are_checked_against_the_texts(books: Books) -> None:
    if not books.texts:
        pytest.skip("rulebook texts not present")
    assert set(books.texts) == set(books.specs)


# ---------------------------------------------------------------- each check catches a broken item


def _an_item(kind: str) -> dict[str, Any]:
    """A well-formed item of the inventory with this kind, to break in one way."""
    for data in _load_inventory().values():
        for item in data["item"]:
            if item["kind"] == kind:
                return copy.deepcopy(dict(item))
    raise LookupError(kind)


def _file_of(item: Mapping[str, Any]) -> str:
    return "cross" if len(item["books"]) > 1 else str(item["books"][0])


def _set(path: str, value: Any) -> Any:
    def change(item: dict[str, Any]) -> None:
        target: Any = item
        *head, last = path.split("/")
        for k in head:
            target = target[int(k)] if k.isdigit() else target[k]
        if value is KeyError:
            del target[int(last) if last.isdigit() else last]
        elif last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value

    return change


BROKEN: list[tuple[str, str, Any, str]] = [
    ("gap", "unknown kind", _set("kind", "quibble"), "unknown kind 'quibble'"),
    ("gap", "bad id", _set("id", "Samba ES 1"), "id must look like"),
    ("gap", "unknown field", _set("severity", "high"), "unknown field 'severity'"),
    ("gap", "no question", _set("question", KeyError), "leaves open"),
    ("dead-rule", "no reason", _set("why", KeyError), "says why"),
    ("contradiction", "one passage", lambda i: i["passage"].pop(), "both of its passages"),
    ("gap", "no description", _set("description", KeyError), "missing description"),
    ("gap", "unknown section", _set("passage/0/section", "EPILOGO"), "is not a section"),
    ("gap", "long anchor", _set("passage/0/anchor", "one two three four five six seven"), "words"),
    ("gap", "anchor elsewhere", _set("passage/0/anchor", "zzz qqq"), "is not in section"),
    (
        "gap",
        "unknown clause",
        lambda i: i["clauses"].append(f"{i['books'][0]}:no-such"),
        "no clause",
    ),
    ("claim", "unknown claim", lambda i: i["claims"].append("samba-en:claim:nope"), "no spec has"),
    ("claim", "claim without claims", _set("claims", []), "names the spec claims"),
    ("claim", "claim without verdict", _set("verdicts", KeyError), "verdict on each"),
    (
        "claim",
        "unknown verdict",
        lambda i: i["verdicts"].update({i["claims"][0]: "maybe"}),
        "one of",
    ),
    ("difference", "missing position", lambda i: i["positions"].popitem(), "each book's position"),
    ("difference", "uncited book", lambda i: i["passage"].pop(0), "no passage cites"),
    (
        "gap",
        "copied words",
        _set(
            "description",
            "Se emplean tres barajas inglesas de 52 cartas, más dos comodines o Joker",
        ),
        "copies",
    ),
]


@pytest.mark.parametrize(("kind", "what", "change", "message"), BROKEN, ids=[b[1] for b in BROKEN])
def test_a_broken_item_is_caught(
    books: Books, kind: str, what: str, change: Any, message: str
) -> None:
    item = _an_item(kind)
    if what == "anchor elsewhere" and not books.texts:
        pytest.skip("rulebook texts not present")
    if what == "copied words":
        item["books"] = ["samba-es"]
        for p in item["passage"]:
            p["book"] = "samba-es"
            p["section"] = "LA BARAJA"
            p["anchor"] = "Se emplean tres barajas"
        item["clauses"] = []
        if not books.texts:
            pytest.skip("rulebook texts not present")
    assert not item_problems(item, _file_of(item), books)
    change(item)
    problems = item_problems(item, _file_of(item), books)
    assert any(message in p for p in problems), problems


def test_a_claim_nobody_lists_is_caught(books: Books) -> None:
    files = _load_inventory()
    for data in files.values():
        data["item"] = [
            i for i in data["item"] if "samba-en:claim:deck-size" not in i.get("claims", [])
        ]
    assert "no inventory item lists the claim 'samba-en:claim:deck-size'" in inventory_problems(
        files, books
    )


def test_a_listed_twice_item_is_caught(books: Books) -> None:
    files = _load_inventory()
    files["escoba-es"]["item"].append(copy.deepcopy(files["escoba-es"]["item"][0]))
    assert any("listed twice" in p for p in inventory_problems(files, books))


# ---------------------------------------------------------------- the claims in the specs


def _claims() -> Iterator[tuple[str, Claim]]:
    for b in load_all():
        for c in b.claims:
            yield b.id, c


def test_every_spec_states_claims() -> None:
    assert {b.id for b in load_all() if b.claims} == set(rulebook_ids())


def claim_problems(c: Claim, books: Books) -> list[str]:
    """Every way a spec claim does not match its book or the other specs; empty when it matches."""
    out: list[str] = []
    body = books.section_text(c.rulebook, c.section)
    if body is not None and _norm(c.anchor) not in _norm(body):
        out.append(f"{c.id}: anchor {c.anchor!r} is not in section {c.section!r}")
    run = books.copies(c.rulebook, c.paraphrase)
    if run:
        out.append(f"{c.id}: the paraphrase copies the book: {run!r}")
    if c.kind == "game_rule":
        other = books.specs.get(c.fields["rulebook"])
        if other is None or not other.has(c.fields["key"]):
            out.append(f"{c.id}: {c.fields['rulebook']} has no clause {c.fields['key']!r}")
    if "layout" in c.fields:
        spec = books.specs[c.rulebook]
        names = {lay["name"] for r in spec.clause("layouts").readings for lay in r.value}
        if c.fields["layout"] not in names:
            out.append(f"{c.id}: {c.rulebook} has no layout {c.fields['layout']!r}")
    return out


def test_every_claim_matches_its_book(books: Books) -> None:
    problems = [p for _, c in _claims() for p in claim_problems(c, books)]
    assert not problems, "\n".join(problems)


def _claim(claim_id: str) -> Claim:
    return next(c for _, c in _claims() if c.id == claim_id)


CLAIM_BROKEN_CHANGES: list[tuple[str, str, dict[str, Any], str]] = [
    ("samba-en:claim:deck-size", "anchor elsewhere", {"anchor": "no valid meld having"}, "not in"),
    (
        "escoba-es:claim:pack-totals-220",
        "copied paraphrase",
        {"paraphrase": "Los valores de todas las cartas en la baraja suman 220"},
        "copies",
    ),
    (
        "samba-en:claim:canasta-double-deck",
        "unknown clause of another book",
        {"fields": {"rulebook": "canasta-es", "key": "decks", "value": 2}},
        "has no clause 'decks'",
    ),
    (
        "canasta-es:claim:pack-of-54",
        "unknown layout",
        {"fields": {"cards": "all", "count": 162, "layout": "three-trios"}},
        "has no layout",
    ),
]


@pytest.mark.parametrize(
    ("claim_id", "what", "change", "message"),
    CLAIM_BROKEN_CHANGES,
    ids=[b[1] for b in CLAIM_BROKEN_CHANGES],
)
def test_a_claim_that_does_not_match_is_caught(
    books: Books, claim_id: str, what: str, change: dict[str, Any], message: str
) -> None:
    if what in ("anchor elsewhere", "copied paraphrase") and not books.texts:
        pytest.skip("rulebook texts not present")
    good = _claim(claim_id)
    assert not claim_problems(good, books)
    problems = claim_problems(dataclasses.replace(good, **change), books)
    assert any(message in p for p in problems), problems


def test_every_claim_kind_is_documented() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "spec-format.md").read_text(encoding="utf-8")
    for name in CLAIM_KINDS:
        assert f"`{name}`" in doc, name


CLAIM_BROKEN = sorted((READER / "broken").glob("*.toml"))


def _expectation(path: Path) -> tuple[str, str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = re.fullmatch(r"# expect: (.+?) \| (.+)", first)
    assert m, f"{path.name} must start with '# expect: KEY | MESSAGE'"
    return m.group(1), m.group(2)


@pytest.mark.parametrize("path", CLAIM_BROKEN, ids=lambda p: p.stem)
def test_a_broken_claim_is_refused_by_name(path: Path) -> None:
    key, message = _expectation(path)
    with pytest.raises(SpecError) as info:
        load_file(path)
    assert info.value.file == path.name
    assert info.value.key == key
    assert message in info.value.problem


def test_there_are_broken_claims_for_every_kind_of_mistake() -> None:
    assert len(CLAIM_BROKEN) >= 8


# ---------------------------------------------------------------- what a user sees


def test_rules_show_lists_the_claims(capsys: pytest.CaptureFixture[str]) -> None:
    from arbitro.cli.main import main

    # Markdown keeps each statement on one line; the terminal table wraps its cells
    assert main(["rules", "show", "escoba-es", "--format", "md"]) == 0
    out = capsys.readouterr().out
    claims = load_rulebook("escoba-es").claims
    assert claims
    for c in claims:
        assert c.id in out
        assert c.statement() in out
    assert "table_remainder: values = [10, 25, 40, 55]" in out
    assert main(["rules", "show", "escoba-es"]) == 0
    table = capsys.readouterr().out
    assert all(c.name in table for c in claims)


def test_rules_show_json_carries_the_claims(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from arbitro.cli.main import main

    assert main(["rules", "show", "canasta-es", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    book = load_rulebook("canasta-es")
    assert [c["id"] for c in shown["claims"]] == [c.id for c in book.claims]
    queens = next(c for c in shown["claims"] if c["id"] == "canasta-es:claim:queens-canasta")
    assert queens["kind"] == "score_example"
    assert queens["fields"]["points"] == 570  # the book's 500 for the canasta plus 7 x 10
    assert queens["section"] == "FINAL DE LA PARTIDA"
