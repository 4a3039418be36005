"""The mutation harness (benchmarks/mutants.py): its mutants still apply to the engine as it is,
and a planted bug is reported killed by the layer that notices it, never by one that cannot."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def harness() -> ModuleType:
    # benchmarks/ is a folder of scripts beside tests/; the repository's root is on sys.path
    return importlib.import_module("benchmarks.mutants")


def test_every_mutant_still_applies_once() -> None:
    m = harness()
    assert m.snippet_problems() == []
    # at least 40 bugs, in both families (issue 22)
    assert len(m.MUTANTS) >= 40
    assert {x.family for x in m.MUTANTS} == {"escoba", "rummy"}
    assert all(x.file.startswith(f"model/{x.family}/") for x in m.MUTANTS)


def test_a_rotten_snippet_is_reported(tmp_path: Path) -> None:
    m = harness()
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "x.py").write_text("a = 1\na = 1\n", encoding="utf-8")
    twice = m.Mutant("twice", "rummy", "model/x.py", "a = 1\n", "a = 2\n", "duplicated")
    gone = m.Mutant("gone", "rummy", "model/x.py", "b = 1\n", "b = 2\n", "vanished")
    got = m.snippet_problems(tmp_path, [twice, gone])
    assert len(got) == 2 and "2 times" in got[0] and "0 times" in got[1]


@pytest.mark.slow
def test_mutants_end_to_end() -> None:
    """The unmutated copy passes the chosen tests, each planted bug fails them; the copy runs
    its engine from source (a compiled build would hide the edit)."""
    m = harness()
    by_name = {x.name: x for x in m.MUTANTS}
    cases = [
        ("escoba-capture-overshoot", ["tests/model/escoba/test_escoba_capture.py"]),
        ("rummy-samba-bonus", ["tests/model/rummy/test_rummy_scoring.py"]),
        ("rummy-pile-held-rest-lost", ["tests/proofs/test_play_refinement.py"]),
    ]
    for name, tests in cases:
        mutant = by_name[name]
        control = m.run_one(None, mutant.family, ["suite"], tests=tests, timeout=600)
        assert control["suite"].status == "survived", control["suite"].detail
        got = m.run_one(mutant, mutant.family, ["suite"], tests=tests, timeout=600)
        assert got["suite"].status == "killed", (name, got["suite"].detail)


def _values(spec: dict[str, Any], key: str) -> list[Any]:
    """A clause's value and its readings' values, in the file's order."""
    c = next(c for c in spec["clause"] if c.get("key") == key)
    return [c.get("value"), *[r["value"] for r in c.get("reading", [])]]


def test_every_spec_mutant_changes_one_value() -> None:
    """Each spec mutant's file is the book's with its id and the one clause's value changed."""
    import tomllib

    m = harness()
    assert len(m.SPEC_MUTANTS) >= 20
    assert len({x.name for x in m.SPEC_MUTANTS}) == len(m.SPEC_MUTANTS)
    for x in m.SPEC_MUTANTS:
        book = tomllib.loads((ROOT / "spec" / f"{x.book}.toml").read_text(encoding="utf-8"))
        got = tomllib.loads(m.spec_text(x.book, x.key, x.value, "changed"))
        assert got["rulebook"]["id"] == "changed"
        want = tomllib.loads(f"v = {x.value}")["v"]

        before, after = _values(book, x.key), _values(got, x.key)
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert len(changed) == 1, x.name
        assert after[changed[0]] == want and before[changed[0]] != want, x.name
        # nothing else of the book moves
        rest = [c for c in got["clause"] if c.get("key") != x.key]
        assert rest == [c for c in book["clause"] if c.get("key") != x.key], x.name


def test_the_suite_order_runs_the_same_tests() -> None:
    m = harness()
    for family in ("escoba", "rummy"):
        got = m.suite_order(m.SUITE, family)
        assert got[0] == f"tests/model/{family}"
        assert sorted(got) == sorted(
            ["tests/proofs", *(f"tests/model/{p.name}" for p in (ROOT / "tests/model").iterdir()
                               if p.is_dir() and p.name != "__pycache__")]
        )  # fmt: skip


def test_the_suite_layer_leaves_out_the_snippet_check() -> None:
    """In a mutated copy the snippet check fails by construction: it must not count as a kill."""
    m = harness()
    args = m.suite_args(m.suite_order(m.SUITE, "rummy"))
    assert "--ignore=tests/proofs/test_mutants_harness.py" in args
    assert (ROOT / "tests/proofs/test_mutants_harness.py").is_file()


def test_bench_prove_reads_the_kill_rates(tmp_path: Path) -> None:
    import json

    bench = importlib.import_module("benchmarks.bench_prove")
    rows = [
        {"name": "a", "refine": {"status": "killed"}, "suite": {"status": "killed"}},
        {"name": "b", "refine": {"status": "survived"}, "suite": {"status": "killed"}},
        {"name": "c", "refine": {"status": "error"}, "suite": {"status": "survived"}},
    ]
    (tmp_path / "e.json").write_text(json.dumps(rows), encoding="utf-8")
    spec = [{"status": "killed"}, {"status": "survived"}, {"status": "error"}]
    (tmp_path / "s.json").write_text(json.dumps(spec))
    got = bench.mutation_rates(tmp_path / "e.json", tmp_path / "s.json")
    assert got[0].startswith("engine mutants killed by refine 1/2 (50%)")
    assert "not measured (0 not run, 1 errors)" in got[0]
    assert got[1].startswith("engine mutants killed by suite  2/3 (67%)") and "NOT met" in got[1]
    assert got[2].startswith("engine mutants killed by either  2/3 (67%)")
    assert got[3].startswith("spec mutants turning a property REFUTED  1/2 (50%)")
    # the spec mutants defined but absent from the recorded run are named
    names = [x.name for x in harness().SPEC_MUTANTS]
    assert f"({len(names)} not run: {', '.join(names)})" in got[3]
    assert "(1 refused before any property)" in got[3]  # an error is not counted as run


def test_runs_join_by_mutant_the_last_run_winning(tmp_path: Path) -> None:
    import json

    m = harness()
    a, b = m.MUTANTS[0].name, m.MUTANTS[1].name
    k, s = {"status": "killed", "cpu_seconds": 1.0}, {"status": "survived", "cpu_seconds": 2.0}
    old = [
        {"name": b, "about": "x", "refine": s, "suite": k},
        {"name": a, "about": "y", "refine": k},
    ]
    new = [{"name": b, "about": "x", "refine": k}]
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    got = m.join_runs([f"{tmp_path / 'old.json'}#then", f"{tmp_path / 'new.json'}#now"])
    assert [r["name"] for r in got] == [a, b]  # the order of MUTANTS
    assert got[1]["refine"] == {**k, "run": "now"}
    assert got[1]["suite"] == {**k, "run": "then"}
    # a cell from a run other than the usual one (here "then") says which
    table = [x for x in m.markdown(got, []).splitlines() if x.startswith("| `")]
    assert "[now]" in table[1] and "[then]" not in table[0] + table[1]
    # the rates over the rows each layer ran on: a's suite was not run
    text = m.markdown(got, [])
    assert "killed by `refine` alone: **2 of 2** run (100%" in text
    assert f"**not run** against `suite`: `{a}`" in text


def test_spec_runs_join_by_mutant(tmp_path: Path) -> None:
    import json

    m = harness()
    x, y = m.SPEC_MUTANTS[0].name, m.SPEC_MUTANTS[1].name
    row = {"refuted": [], "status": "survived", "about": "-", "cpu_seconds": 1.0}
    (tmp_path / "a.json").write_text(json.dumps([{**row, "name": y}, {**row, "name": x}]))
    caught = {**row, "name": x, "status": "killed", "refuted": ["p/q"]}
    (tmp_path / "b.json").write_text(json.dumps([caught]))
    got = m.join_runs([f"{tmp_path / 'a.json'}#old", f"{tmp_path / 'b.json'}#new"])
    assert [(r["name"], r["status"], r["run"]) for r in got] == [
        (x, "killed", "new"),
        (y, "survived", "old"),
    ]


def test_the_docs_tables_are_the_recorded_runs() -> None:
    """docs/proofs.md's mutation tables and kill rates are `--markdown` of the recorded runs
    (benchmarks/mutants-engine.json, mutants-spec.json) line for line: a run joined into the JSON
    without regenerating the docs, or a table edited by hand, fails here."""
    import json

    mut = harness()
    bench = ROOT / "benchmarks"
    engine = json.loads((bench / "mutants-engine.json").read_text(encoding="utf-8"))
    spec = json.loads((bench / "mutants-spec.json").read_text(encoding="utf-8"))
    docs = set((ROOT / "docs" / "proofs.md").read_text(encoding="utf-8").splitlines())

    def missing(engine: list[dict[str, Any]], spec: list[dict[str, Any]]) -> list[str]:
        rows = (mut.markdown(engine, []), mut.markdown([], spec))
        return [x for text in rows for x in text.splitlines() if x.strip() and x not in docs]

    assert not missing(engine, spec), (
        f"docs/proofs.md lacks the generated lines {missing(engine, spec)[:2]}"
    )
    # a row whose refine cell changed since the docs were written is noticed
    flipped = {**engine[0], "refine": {**engine[0]["refine"], "status": "survived"}}
    assert missing([flipped, *engine[1:]], spec)


def test_a_spec_property_that_runs_out_of_time_is_stated_not_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spec mutants: the properties of LAST_PROPERTIES are proved alone after the others, with
    their own CPU limit. One that runs out (here hand-scores on the mutant) is recorded as
    unfinished and counted neither way; the mutant is caught by the checks that finished; a
    property unfinished on the baseline does not count on the mutant either."""
    m = harness()
    calls: list[tuple[str, tuple[str, ...], float]] = []

    def result(prop: str, check: str, verdict: str) -> dict[str, Any]:
        c: dict[str, Any] = {"name": check, "verdict": verdict}
        if verdict == "REFUTED":
            c["witness"] = {"description": "-"}
        return {"property": prop, "checks": [c]}

    def fake(path: Path, timeout: float, properties: Any = (), cpu: Any = None) -> Any:
        props = tuple(properties)
        calls.append((path.stem, props, cpu))
        mutant = path.stem.endswith(("-m0", "-m1"))
        if props == ("hand-scores",):
            if mutant and path.stem.endswith("-m0"):  # the mutant's search runs out
                return m.Outcome("error", 5.0, "exit -24"), []
            verdict = "REFUTED" if mutant else "PROVED"  # m1: refuted, but see the baseline
            return m.Outcome("ran", 1.0, ""), [result("hand-scores", "scores/2", verdict)]
        assert "hand-scores" not in props and "book-numbers" in props
        verdict = "REFUTED" if path.stem.endswith("-m0") else "PROVED"
        return m.Outcome("ran", 2.0, ""), [result("book-numbers", "capture", verdict)]

    monkeypatch.setattr(m, "prove_spec", fake)
    chosen = [m.SPEC_MUTANTS[0]]
    rows = m.run_spec_mutants(chosen, 60.0, 1, property_cpu=7)
    assert [(r["status"], r["refuted"], r.get("unfinished")) for r in rows] == [
        ("killed", ["book-numbers/capture"], ["hand-scores"])
    ]
    assert rows[0]["cpu_seconds"] == 7.0  # both runs of the mutant
    assert [c[2] for c in calls if c[1] == ("hand-scores",)] == [7, 7]  # its CPU limit
    assert all(c[2] is None for c in calls if c[1] != ("hand-scores",))
    cell = next(x for x in m.markdown([], rows).splitlines() if x.startswith("| `"))
    assert "`hand-scores` unfinished in 7 s of CPU" in cell

    # the baseline's hand-scores unfinished: the mutant's REFUTED hand-scores is not counted
    def base_late(path: Path, timeout: float, properties: Any = (), cpu: Any = None) -> Any:
        if tuple(properties) == ("hand-scores",) and path.stem.endswith("-base"):
            return m.Outcome("error", 5.0, "exit -24"), []
        return fake(path, timeout, properties, cpu)

    monkeypatch.setattr(m, "prove_spec", base_late)
    rows = m.run_spec_mutants([m.SPEC_MUTANTS[1]], 60.0, 1, property_cpu=7)
    assert [(r["status"], r["refuted"], r.get("unfinished")) for r in rows] == [
        ("survived", [], ["hand-scores"])
    ]


def test_a_spec_mutant_the_loader_refuses_is_not_counted_as_run() -> None:
    """A changed deal size the spec loader refuses (no property is proved on it) is listed with
    the loader's reason, and the rate is over the mutants whose properties ran."""
    m = harness()
    row = {"refuted": [], "about": "-", "cpu_seconds": 1.0}
    spec = [
        {**row, "name": "a", "status": "killed", "refuted": ["p/q"]},
        {**row, "name": "b", "status": "error",
         "detail": "exit 2: arbitro: error: /tmp/x/escoba-es-m21.toml: deals_per_hand: too many"},
    ]  # fmt: skip
    text = m.markdown([], spec)
    assert "**1 of 1** run" in text
    assert "not counted): `b` (deals_per_hand: too many)" in text


_PROPERTY_TABLE = (
    "| property | proved on | spec mutants it kills | "
    "engine mutants caught on its relation by `prove --refine` |"
)


def _property_tables(text: str) -> list[tuple[list[list[str]], str]]:
    """docs/proofs.md's tables of what each property is proved on and the mutants it kills:
    each table's rows (cells) and the paragraph after it."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line != _PROPERTY_TABLE:
            continue
        j = i + 2
        rows = []
        while j < len(lines) and lines[j].startswith("|"):
            rows.append([c.strip() for c in lines[j].strip("|").split(" | ")])
            j += 1
        after = []
        for line in lines[j + 1 :]:
            if not line.strip():
                break
            after.append(line)
        out.append((rows, " ".join(after)))
    return out


def _property_table_problems(
    text: str, engine: list[dict[str, Any]], spec: list[dict[str, Any]]
) -> list[str]:
    """Where the tables part from the recorded runs: a property of a family without its row; a
    spec mutant that turned a property's check REFUTED and is not named in its row, or one named
    there that changed none of its checks; an engine mutant of the family named nowhere (in the
    table or the paragraph after it), or named but not killed by the refine layer."""
    import re

    from arbitro.proofs.properties import for_family

    m = harness()
    spec_names = {x.name for x in m.SPEC_MUTANTS}
    engine_names = {x.name for x in m.MUTANTS}

    def named(cell: str, among: set[str]) -> set[str]:
        return {x for x in re.findall(r"`([a-z0-9-]+)`", cell) if x in among}

    problems: list[str] = []
    families = set()
    for rows, after in _property_tables(text):
        props = {r[0].split("`")[1]: r for r in rows}
        family = next(
            (f for f in m.FAMILY_BOOKS if {p.name for p in for_family(f)} == set(props)), None
        )
        if family is None:
            problems.append(f"a table's properties {sorted(props)} are no family's")
            continue
        families.add(family)
        books = m.FAMILY_BOOKS[family]
        for prop, row in props.items():
            mine = [s for s in spec if s["book"] in books]
            killers = {
                s["name"] for s in mine if any(c.split("/")[0] == prop for c in s["refuted"])
            }
            moved = {s["name"] for s in mine if any(c.split("/")[0] == prop for c in s["changed"])}
            cell = named(row[2], spec_names)
            problems += [f"{prop}: {x} kills it, not named" for x in sorted(killers - cell)]
            problems += [f"{prop}: {x} named, changes none of it" for x in sorted(cell - moved)]
        cited = named(" ".join(r[3] for r in rows) + " " + after, engine_names)
        family_rows = {r["name"]: r for r in engine if r["family"] == family}
        problems += [f"{family}: {x} named nowhere" for x in sorted(set(family_rows) - cited)]
        problems += [
            f"{family}: {x} not killed by refine"
            for x in sorted(cited)
            if family_rows.get(x, {}).get("refine", {}).get("status") != "killed"
        ]
    if families != set(m.FAMILY_BOOKS):
        problems.append(f"tables for {sorted(families)}, families {sorted(m.FAMILY_BOOKS)}")
    return problems


def test_each_property_names_its_relation_and_the_mutants_it_kills() -> None:
    """docs/proofs.md has, per family, a row for every property `arbitro prove` has, naming the
    relation it is proved on and the mutants that kill it, as the recorded runs say
    (benchmarks/mutants-engine.json, mutants-spec.json); a cell edited by hand that the runs do
    not bear out fails here."""
    import json

    bench = ROOT / "benchmarks"
    engine = json.loads((bench / "mutants-engine.json").read_text(encoding="utf-8"))
    spec = json.loads((bench / "mutants-spec.json").read_text(encoding="utf-8"))
    text = (ROOT / "docs" / "proofs.md").read_text(encoding="utf-8")
    assert _property_table_problems(text, engine, spec) == []

    # a killer left out of its row, a survivor named as a killer, an engine mutant named
    # nowhere, and a property without its row are each noticed
    def edit(prop: str, old: str, new: str) -> str:
        row = next(x for x in text.splitlines() if x.startswith(f"| `{prop}` |") and old in x)
        return text.replace(row, row.replace(old, new))

    assert _property_table_problems(edit("book-figures", "`samba-en-set-min`, ", ""), engine, spec)
    swapped = edit("book-figures", "`samba-en-sequence-min`", "`canasta-es-set-start-min-naturals`")
    assert _property_table_problems(swapped, engine, spec)
    assert _property_table_problems(edit("score-bounds", "`rummy-samba-bonus`, ", ""), engine, spec)
    lines = [x for x in text.splitlines() if not x.startswith("| `opening-table` |")]
    assert _property_table_problems("\n".join(lines), engine, spec)


def _section_problems(text: str) -> list[str]:
    """Each property of each family whose section of docs/proofs.md (the paragraphs from the one
    that starts with its name to the next property's or heading, in its family's part) does not
    say the relation it is proved on (*Relation:*) and what breaks it."""
    from arbitro.proofs.properties import for_family

    parts = {
        "rummy": text.split("### Samba and Canasta", 1)[1].split("### Escoba", 1)[0],
        "escoba": text.split("### Escoba", 1)[1].split("\n## ", 1)[0],
    }
    problems = []
    for family, part in parts.items():
        lines = part.splitlines()
        for p in for_family(family):
            at = [i for i, x in enumerate(lines) if x.startswith(f"**`{p.name}`**")]
            if not at:
                problems.append(f"{family} {p.name}: no section")
                continue
            end = next(
                (j for j in range(at[0] + 1, len(lines)) if lines[j].startswith(("**`", "#"))),
                len(lines),
            )
            section = " ".join(lines[at[0] : end])
            problems += [
                f"{family} {p.name}: no {what}"
                for what in ("*Relation:*", "What breaks it")
                if what not in section
            ]
    return problems


def test_each_property_s_section_says_its_relation_and_what_breaks_it() -> None:
    text = (ROOT / "docs" / "proofs.md").read_text(encoding="utf-8")
    assert _section_problems(text) == []
    assert _section_problems(text.replace("*Relation:* the score encoding, as", "as")) == [
        "rummy score-step: no *Relation:*"
    ]
    assert _section_problems(text.replace("**`table-ceiling`**", "`table-ceiling`")) == [
        "escoba table-ceiling: no section"
    ]
