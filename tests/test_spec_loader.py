"""Malformed or incomplete specs are refused with the file, the key and what is wrong."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from arbitro.model.errors import OptionError, SpecError, UnknownRulebook
from arbitro.model.schema import check_rulebook, rules_for
from arbitro.model.spec import load_file, load_rulebook, spec_dir

BROKEN = Path(__file__).parent / "data" / "broken"


def _expectation(path: Path) -> tuple[str, str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = re.fullmatch(r"# expect: (.+?) \| (.+)", first)
    assert m, f"{path.name} must start with '# expect: KEY | MESSAGE'"
    return m.group(1), m.group(2)


@pytest.mark.parametrize("path", sorted(BROKEN.glob("*.toml")), ids=lambda p: p.stem)
def test_broken_spec_is_refused_by_name(path: Path) -> None:
    key, message = _expectation(path)
    with pytest.raises(SpecError) as info:
        load_file(path)
    err = info.value
    assert err.file == path.name
    assert err.key == key
    assert message in err.problem
    assert str(err).startswith(f"{path.name}: {key}: ")
    assert isinstance(err, ValueError)


def test_unknown_rulebook_lists_the_known_ones() -> None:
    with pytest.raises(UnknownRulebook) as info:
        load_rulebook("samba-de")
    assert "unknown rulebook 'samba-de'; known: " in str(info.value)
    assert "samba-en" in str(info.value)


def _mutated(tmp_path: Path, rb_id: str, old: str, new: str) -> Path:
    src = spec_dir() / f"{rb_id}.toml"
    text = src.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {src}"
    d = tmp_path / "spec"
    d.mkdir()
    (d / src.name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return d / src.name


def test_a_misspelt_key_is_both_missing_and_unknown(tmp_path: Path) -> None:
    path = _mutated(tmp_path, "samba-en", 'key = "draw_count"', 'key = "draw_cards"')
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert info.value.key == "draw_count"
    assert "missing clause" in info.value.problem


def test_a_value_of_the_wrong_type_names_the_key(tmp_path: Path) -> None:
    text = (spec_dir() / "samba-en.toml").read_text(encoding="utf-8")
    m = re.search(r'key = "draw_count"(?:(?!\[\[clause\]\]).)*?\nvalue = (\d+)', text, re.S)
    assert m
    path = _mutated(tmp_path, "samba-en", m.group(0), m.group(0)[: -len(m.group(1))] + '"one"')
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert info.value.key == "draw_count"
    assert "expected an integer" in info.value.problem


def test_an_enum_value_outside_its_choices_is_refused(tmp_path: Path) -> None:
    text = (spec_dir() / "samba-en.toml").read_text(encoding="utf-8")
    m = re.search(r'key = "go_out_discard"(?:(?!\[\[clause\]\]).)*?\nvalue = "(\w+)"', text, re.S)
    assert m
    path = _mutated(
        tmp_path, "samba-en", m.group(0), m.group(0).replace(f'"{m.group(1)}"', '"sometimes"')
    )
    with pytest.raises(SpecError) as info:
        check_rulebook(load_file(path))
    assert info.value.key == "go_out_discard"
    assert "expected one of 'optional', 'required', 'forbidden'" in info.value.problem


def test_an_unknown_option_is_refused_with_the_options() -> None:
    with pytest.raises(OptionError) as info:
        rules_for("samba-fr", {"draw_cuont": "a"})
    assert "samba-fr has no option 'draw_cuont'; options: " in str(info.value)


def test_a_stated_clause_is_not_an_option() -> None:
    with pytest.raises(OptionError) as info:
        rules_for("samba-en", {"draw_count": "book"})
    assert "samba-en:draw-count is stated with a single value" in str(info.value)


def test_an_unknown_reading_label_lists_the_readings() -> None:
    book = load_rulebook("samba-fr")
    conflicting = next(c for c in book.clauses if c.status == "conflicting")
    with pytest.raises(OptionError) as info:
        rules_for(book, {conflicting.key: "zzz"})
    assert "readings: " + ", ".join(conflicting.labels()) in str(info.value)


def test_the_spec_dir_can_be_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "elsewhere"
    shutil.copytree(spec_dir(), d)
    monkeypatch.setenv("ARBITRO_SPEC_DIR", str(d))
    assert spec_dir() == d
