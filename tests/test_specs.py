"""Every spec loads, matches the schema of its game, and matches the text of its book."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbitro.model.provenance import check_text
from arbitro.model.schema import rules_for, schema_keys
from arbitro.model.spec import load_rulebook, rulebook_ids

IDS = rulebook_ids()


def test_the_five_rulebooks_are_there() -> None:
    assert IDS == ["canasta-es", "escoba-es", "samba-en", "samba-es", "samba-fr"]


@pytest.mark.parametrize("rb_id", IDS)
def test_spec_loads_with_its_schema(rb_id: str) -> None:
    rb = load_rulebook(rb_id)
    assert set(rb.keys()) == set(schema_keys(rb.game))
    rules = rules_for(rb)
    assert rules.rulebook == rb_id


@pytest.mark.parametrize("rb_id", IDS)
def test_spec_matches_its_book(rb_id: str, rulebooks_dir: Path) -> None:
    issues = check_text(load_rulebook(rb_id), rulebooks_dir)
    assert not issues, "\n".join(map(str, issues))


@pytest.mark.parametrize("rb_id", IDS)
def test_every_reading_is_selectable(rb_id: str) -> None:
    rb = load_rulebook(rb_id)
    for c in rb.clauses:
        if len(c.readings) > 1:
            for r in c.readings:
                rules = rules_for(rb, {c.key: r.label})
                assert getattr(rules, c.key) is not None
        if c.optional:
            rules_for(rb, {c.key: True})
