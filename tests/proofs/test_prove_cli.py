"""`arbitro prove` as a user runs it: the table fits 100 columns, the exit status says whether
everything was proved, bad input gets one line and status 2, readings are reused only when they
cannot change a result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.cli.prove import main as prove_main
from arbitro.model.spec import load_rulebook, use_spec_file
from arbitro.proofs.runner import Job, prove, readings, run_job
from arbitro.proofs.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["prove", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_proved_property_exits_0_in_100_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "escoba-es", "--property", "deal-arithmetic", "--jobs", "1")
    assert code == 0, err
    assert "deal-arithmetic" in out and "PROVED" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "1 results: 1 PROVED, 0 REFUTED, 0 UNKNOWN" in out


def test_a_refuted_property_exits_1_with_its_witness(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """samba-en's opening table stops at 9,999 while level sides at the top play on: without
    the reading that fills the rest (opening-minimum-past-table given as none, -1), a side past
    the table has no opening minimum."""
    text = (ROOT / "spec" / "samba-en.toml").read_text(encoding="utf-8")
    start = text.index('key = "opening_minimum_past_table"')
    end = text.index("[[clause]]", start)
    clause = (
        'key = "opening_minimum_past_table"\ntopic = "opening"\nsection = "The initial meld"\n'
        'status = "inferred"\nbasis = "a spec with the gap left open"\n'
        'paraphrase = "none is given"\nvalue = -1\n\n'
    )
    text = text[:start] + clause + text[end:]
    spec = tmp_path / "samba-en-gap.toml"
    spec.write_text(text.replace('id = "samba-en"', 'id = "samba-en-gap"', 1), encoding="utf-8")
    use_spec_file(spec)
    code, out, _ = run(capsys, "samba-en-gap", "--property", "opening-table", "--jobs", "1")
    assert code == 1
    assert "REFUTED" in out
    assert "has no opening minimum" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "escoba-es", "canasta-es", "--property", "deal-arithmetic", "--property",
        "opening-table", "--json", "--jobs", "2",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["counts"] == {"PROVED": 2, "REFUTED": 0, "UNKNOWN": 0}
    got = {(r["rulebook"], r["property"]): r for r in data["results"]}
    assert set(got) == {("escoba-es", "deal-arithmetic"), ("canasta-es", "opening-table")}
    check = got[("escoba-es", "deal-arithmetic")]["checks"][0]
    assert check["verdict"] == "PROVED"
    assert check["core"] == ["escoba-es:player-counts", "escoba-es:deals-per-hand"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nosuch-book"], "unknown rulebook 'nosuch-book'"),
        (["samba-en", "--option", "nosuch=1"], "samba-en has no option 'nosuch'"),
        (["samba-en", "--option", "target_rule=sideways"], "takes a reading label"),
        (["samba-en", "--timeout", "0"], "--timeout must be more than 0"),
        (["samba-en", "--property", "nosuch"], "unknown property 'nosuch'"),
        (["samba-en", "--jobs", "0"], "--jobs must be at least 1"),
        (["samba-en", "--option", "target_tie"], "is not KEY=VALUE"),
    ],
)
def test_bad_input_gets_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_readings_are_every_alternative_one_at_a_time() -> None:
    book = load_rulebook("escoba-es")
    got = readings(book)
    assert got[0] == {}
    assert {"variant_oros_all": True} in got
    assert {"setenta_missing_suit": "lowest"} in got
    assert all(len(r) == 1 for r in got[1:])
    assert readings(book, {"variant_oros_all": True})[0] == {"variant_oros_all": True}


def test_a_reused_result_is_what_proving_again_gives() -> None:
    """Every reading of samba-en for the opening table: the readings that change what the table
    reads are proved again (the tie rule is read by it), the others reused — and a reused result
    is the one a fresh proof gives. Past 9,999 samba-en:opening-minimum-past-table gives a
    minimum, so every reading is PROVED (without it, see the refuted test above)."""
    report = prove(["samba-en"], all_readings=True, properties=["opening-table"], workers=1)
    by = {tuple(sorted(r.options.items())): r for r in report.results}
    assert by[()].verdict is Verdict.PROVED
    shared = by[(("target_tie", "shared"),)]
    assert shared.verdict is Verdict.PROVED and not shared.cached
    reused = [r for r in report.results if r.cached]
    assert reused
    sample = reused[0]
    fresh = run_job(Job("samba-en", dict(sample.options), ["opening-table"], 30.0))[0][0]
    assert (fresh.verdict, fresh.summary) == (sample.verdict, sample.summary)


def test_the_results_updater_touches_only_a_document_with_its_block(tmp_path: Path) -> None:
    """`python -m arbitro.cli.prove --update FILE` refuses a symlink and a file without the block,
    leaving both as they were."""
    plain = tmp_path / "notes.md"
    plain.write_text("no block here\n", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(plain)
    assert prove_main(["--update", str(link)]) == 2
    assert prove_main(["--update", str(plain)]) == 2
    assert prove_main(["--update", str(tmp_path / "missing.md")]) == 2
    assert plain.read_text(encoding="utf-8") == "no block here\n"
    assert link.is_symlink()


def test_a_rule_value_the_encoding_does_not_know_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A growth rule no encoder has constraints for (as a future spec might give): UNKNOWN, with
    the field and value named — not a proof of something else."""
    import dataclasses

    import arbitro.proofs.runner as runner
    from arbitro.model.schema import rules_for

    real = rules_for("samba-en")
    odd = dataclasses.replace(real, completed_set_growth="two_more")  # type: ignore[arg-type]
    monkeypatch.setattr(runner, "rules_for", lambda book, options=None: odd)
    ((res, _),) = run_job(Job("samba-en", {}, ["meld-caps"], 30.0))
    assert res.verdict is Verdict.UNKNOWN
    assert "completed_set_growth = 'two_more'" in res.checks[0].reason
