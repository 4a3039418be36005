"""Specs are bounded: packs, players, hand sizes, suits and ids past a stated bound are refused
with the key and the bound, before anything is dealt; the shipped books lie within every bound."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.model import schema
from arbitro.model.errors import SpecError
from arbitro.model.spec import load_file, spec_dir

SPEC = spec_dir()


def _copy(tmp_path: Path, rb_id: str, new_id: str, pattern: str, replacement: str) -> Path:
    text = (SPEC / f"{rb_id}.toml").read_text(encoding="utf-8")
    text = text.replace(f'id = "{rb_id}"', f'id = "{new_id}"', 1)
    changed, n = re.subn(pattern, replacement, text, count=1, flags=re.S)
    assert n == 1, pattern
    path = tmp_path / f"{new_id}.toml"
    path.write_text(changed, encoding="utf-8")
    return path


PACKS = r'(key = "packs"(?:(?!\[\[clause\]\]).)*?\nvalue = )\d+'
LAYOUT = r"(players = 4, sides = 2, hand_size = )15"
SUITS = r'value = \["oros", "copas", "bastos", "espadas"\]'
PLAYERS = r"value = \[2, 3, 4\]"


@pytest.mark.parametrize(
    ("rb_id", "pattern", "replacement", "key", "bound"),
    [
        ("samba-en", PACKS, r"\g<1>100000", "packs", schema.MAX_PACKS),
        ("samba-en", LAYOUT, r"\g<1>100000", "layouts", schema.MAX_HAND_SIZE),
        (
            "escoba-es",
            SUITS,
            "value = [" + ", ".join(f'"s{i}"' for i in range(12)) + "]",
            "suits",
            schema.MAX_SUITS,
        ),
        ("escoba-es", PLAYERS, "value = [2, 3, 4, 100000]", "player_counts", schema.MAX_PLAYERS),
    ],
)
def test_a_spec_past_a_bound_is_refused_at_once_naming_key_and_bound(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rb_id: str,
    pattern: str,
    replacement: str,
    key: str,
    bound: int,
) -> None:
    path = _copy(tmp_path, rb_id, "my-book", pattern, replacement)
    start = time.process_time()  # the work done, whatever else the machine runs
    assert main(["simulate", rb_id, "--spec", str(path), "--games", "1"]) == 2
    assert time.process_time() - start < 10
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert key in err and f"at most {bound}" in err, err


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('key = "packs"', 'key = "packs\\n"', "key"),
        ('key = "packs"', f'key = "{"p" * 65}"', "key"),
        ('label = "one-card-rule"', 'label = "one-card-rule\\n"', "label"),
        ('label = "one-card-rule"', f'label = "{"l" * 65}"', "label"),
    ],
)
def test_ids_with_a_newline_or_over_64_characters_are_refused(
    tmp_path: Path, old: str, new: str, key: str
) -> None:
    text = (SPEC / "samba-en.toml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "samba-en.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(SpecError, match=key):
        load_file(path)


def test_a_rulebook_id_with_a_newline_is_refused(tmp_path: Path) -> None:
    text = (SPEC / "samba-en.toml").read_text(encoding="utf-8")
    path = tmp_path / "samba-en\n.toml"
    path.write_text(text.replace('id = "samba-en"', 'id = "samba-en\\n"', 1), encoding="utf-8")
    with pytest.raises(SpecError, match=r"rulebook\.id"):
        load_file(path)


def test_the_shipped_books_lie_within_every_bound() -> None:
    from arbitro.model.schema import problems, rules_for
    from arbitro.model.spec import rulebook_ids

    for rb in rulebook_ids():
        assert problems(rules_for(rb)) == [], rb


def test_a_long_word_in_a_spec_is_refused_not_rendered_for_minutes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arbitro.model.spec import MAX_SPEC_TEXT

    word = "x" * (MAX_SPEC_TEXT + 1)
    path = _copy(tmp_path, "samba-en", "my-book", r'(paraphrase = ")[^"]*', rf"\g<1>{word}")
    start = time.process_time()
    assert main(["rules", "show", "--spec", str(path)]) == 2
    assert time.process_time() - start < 5
    err = capsys.readouterr().err
    assert "paraphrase" in err and f"at most {MAX_SPEC_TEXT:,} characters" in err


def test_a_spec_file_over_the_size_bound_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arbitro.model.spec import MAX_SPEC_BYTES

    path = _copy(tmp_path, "samba-en", "my-book", r"\A", "# " + "y" * MAX_SPEC_BYTES + "\n")
    assert main(["rules", "show", "--spec", str(path)]) == 2
    assert f"at most {MAX_SPEC_BYTES:,} bytes" in capsys.readouterr().err
