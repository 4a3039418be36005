"""Rulebook ids are never paths; a user's own spec comes in by --spec and keeps its id; specs whose
rules cannot be played are refused with the file and the key (model.schema.problems)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.model.errors import OptionError, SpecError, UnknownRulebook
from arbitro.model.schema import check_rulebook, rules_for
from arbitro.model.spec import load_file, load_rulebook, parse_spec, spec_dir

SPEC = spec_dir()


def _spec(
    tmp_path: Path, rb_id: str, pattern: str, replacement: str, new_id: str | None = None
) -> Path:
    """A copy of a shipped spec with one value changed (the regex must match once)."""
    text = (SPEC / f"{rb_id}.toml").read_text(encoding="utf-8")
    changed, n = re.subn(pattern, replacement, text, count=1, flags=re.S)
    assert n == 1, pattern
    name = new_id or rb_id
    if new_id:
        changed = changed.replace(f'id = "{rb_id}"', f'id = "{new_id}"', 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(changed, encoding="utf-8")
    return path


def _value_of(key: str) -> str:
    return rf'(key = "{key}"(?:(?!\[\[clause\]\]).)*?\nvalue = )[^\n]+'


@pytest.mark.parametrize(
    ("rb_id", "key", "value", "words"),
    [
        ("escoba-es", "suits", "[]", "at least one suit"),
        ("escoba-es", "hand_size", "0", "at least 1"),
        ("escoba-es", "hand_size", "-3", "at least 1"),
        ("escoba-es", "hand_size", "30", "need 64 cards; the pack has 40"),
        ("escoba-es", "player_counts", "[1, 50]", "at least 2 players, got 1"),
        ("escoba-es", "capture_sum", "0", "at least 1"),
        ("samba-en", "draw_count", "0", "at least 1"),
        ("samba-en", "target_score", "-5", "at least 1"),
        ("samba-en", "packs", "0", "at least 1"),
    ],
)
def test_a_spec_that_cannot_be_played_names_file_and_key(
    tmp_path: Path, rb_id: str, key: str, value: str, words: str
) -> None:
    path = _spec(tmp_path, rb_id, _value_of(key), rf"\g<1>{value}")
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert (info.value.file, info.value.key) == (path.name, key)
    assert words in info.value.problem


@pytest.mark.parametrize(
    ("key", "value", "used"),
    # Desarrollo del juego: 3 cards a hand, 4 to the table, 6 deals for two players, each later
    # deal 3 cards a hand (its own clause). Four cards a hand at the first deal: 2·4 + 4 + 5·6 =
    # 42. Five to the table: 2·3 + 5 + 5·6 = 41.
    [("hand_size", "4", 42), ("table_initial", "5", 41)],
)
def test_a_deal_that_no_longer_uses_the_pack_is_refused_before_any_proof(
    tmp_path: Path, key: str, value: str, used: int
) -> None:
    """The spec mutants escoba-es-hand-size and escoba-es-table-initial never reach a property:
    the loader refuses them by the deal count the pack no longer fits."""
    path = _spec(tmp_path, "escoba-es", _value_of(key), rf"\g<1>{value}")
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert info.value.key == "deals_per_hand"
    assert f"6 deals to 2 players use {used} cards, but the pack has 40" in info.value.problem


def test_a_layout_too_big_for_the_deck_is_refused(tmp_path: Path) -> None:
    # 4 hands of 50 cards, the upcard and a first draw of 1: 202 cards; 3 packs of 54 hold 162
    path = _spec(tmp_path, "samba-en", r"hand_size = 15", "hand_size = 50")
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert info.value.key == "layouts" and "need 202 cards; 3 packs hold 162" in info.value.problem


def test_a_broken_reading_is_named_with_its_label(tmp_path: Path) -> None:
    path = _spec(
        tmp_path,
        "samba-en",
        r'(label = "two-naturals"(?:(?!\[\[clause).)*?\nvalue = )2',
        r"\g<1>0",
    )
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert info.value.key == "set_start_min_naturals (reading 'two-naturals')"


def test_rules_list_and_show_exit_2_on_a_broken_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "spec"
    d.mkdir()
    for p in SPEC.glob("*.toml"):
        (d / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    _spec(d, "escoba-es", _value_of("suits"), r"\g<1>[]")
    monkeypatch.setenv("ARBITRO_SPEC_DIR", str(d))
    for argv in (["rules", "list"], ["rules", "show", "escoba-es"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert (
            err
            == "arbitro: error: escoba-es.toml: suits: a pack needs at least one suit, got none\n"
        )


@pytest.mark.parametrize(
    "name", ["../pyproject", "spec/escoba-es", "/etc/passwd", "", ".", "ESCOBA-ES", "x" * 300]
)
def test_a_rulebook_id_is_never_a_path(name: str) -> None:
    with pytest.raises(UnknownRulebook) as info:
        load_rulebook(name)
    assert len(str(info.value)) < 200


def test_an_own_spec_keeps_its_id_from_play_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = _spec(tmp_path, "escoba-es", _value_of("target_score"), r"\g<1>5", new_id="short-escoba")
    out = tmp_path / "game.jsonl"
    assert main(["play", "--spec", str(own), "--seed", "3", "--transcript", str(out)]) == 0
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert header["rulebook"] == "short-escoba"
    capsys.readouterr()
    assert main(["check", str(out), "--spec", str(own), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "valid"


def test_an_own_spec_may_not_take_a_registered_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "escoba-es.toml"
    own.write_text((SPEC / "escoba-es.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["rules", "show", "--spec", str(own)]) == 2
    assert "is a registered rulebook; give your spec its own id" in capsys.readouterr().err


def test_a_following_clause_takes_the_reading_of_its_leader() -> None:
    """samba-fr:jokers-per-pack follows samba-fr:packs: three packs with two jokers each, or six
    packs with one each (six jokers in all, as both passages of the book say)."""
    assert (rules_for("samba-fr").packs, rules_for("samba-fr").jokers_per_pack) == (3, 2)
    six = rules_for("samba-fr", {"packs": "six-packs"})
    assert (six.packs, six.jokers_per_pack) == (6, 1)
    same = rules_for("samba-fr", {"jokers-per-pack": "six_packs"})
    assert (same.packs, same.jokers_per_pack) == (6, 1)
    with pytest.raises(OptionError, match="no reading of samba-fr gives that mix"):
        rules_for("samba-fr", {"packs": "six-packs", "jokers_per_pack": "three-packs"})


def test_follows_must_name_a_clause_with_the_same_readings() -> None:
    raw = {
        "rulebook": {
            "id": "t",
            "game": "samba",
            "language": "en",
            "title": "t",
            "text": "t.txt",
            "sha256": "0" * 64,
            "sections": ["S"],
        },
        "clause": [
            {
                "key": "packs",
                "topic": "deck",
                "section": "S",
                "status": "conflicting",
                "paraphrase": "p",
                "default": "a",
                "reading": [
                    {"label": "a", "value": 3, "paraphrase": "p", "section": "S"},
                    {"label": "b", "value": 6, "paraphrase": "p", "section": "S"},
                ],
            },
            {
                "key": "jokers_per_pack",
                "topic": "deck",
                "section": "S",
                "status": "conflicting",
                "paraphrase": "p",
                "default": "a",
                "follows": "packs",
                "reading": [
                    {"label": "a", "value": 2, "paraphrase": "p", "section": "S"},
                    {"label": "c", "value": 1, "paraphrase": "p", "section": "S"},
                ],
            },
        ],
    }
    with pytest.raises(SpecError) as info:
        parse_spec(raw, "t.toml")
    assert info.value.key == "jokers_per_pack.follows"
    raw["clause"][1]["reading"][1]["label"] = "b"  # type: ignore[index]
    parse_spec(raw, "t.toml")
    raw["clause"][1]["follows"] = "nothing"  # type: ignore[index]
    with pytest.raises(SpecError, match="no clause 'nothing'"):
        parse_spec(raw, "t.toml")
