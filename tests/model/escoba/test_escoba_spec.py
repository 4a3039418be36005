"""What the spec records of the book: which rules it states, which it implies, where it is silent."""

from __future__ import annotations

from arbitro.model.spec import load_rulebook

RB = load_rulebook("escoba-es")

SILENT = {
    "rest_without_capturer": ("default", "dealer"),
    "setenta_missing_suit": ("default", "lowest"),
    "category_tie": ("default",),
    "variant_cards_double_rule": ("default", "together"),
}
OPTIONAL = {"variant_cards_double", "variant_oros_all", "variant_sevens_all"}


def test_statuses() -> None:
    """escoba-es:deals-per-hand is inferred, four clauses are unspecified, the rest stated."""
    for c in RB.clauses:
        if c.key == "deals_per_hand":
            assert c.status == "inferred"
        elif c.key in SILENT:
            assert c.status == "unspecified"
            assert c.labels() == SILENT[c.key]
        else:
            assert c.status == "stated", c.key
        assert c.optional == (c.key in OPTIONAL)
        if c.optional:
            assert c.value is False


def test_the_book_states_two_deal_counts_only() -> None:
    """escoba-es:deals-per-hand — stated for two (6) and four (3) players, computed for three."""
    c = RB.clause("deals_per_hand")
    assert {d["players"]: d["deals"] for d in c.value} == {2: 6, 3: 4, 4: 3}
    assert c.basis is not None and "three" in c.basis


def test_sections_follow_the_body_not_the_contents() -> None:
    """escoba-es:play-direction — the play section is printed "Desarrollo del juego" in the body."""
    assert RB.sections[0] == "Escoba"
    assert "Desarrollo del juego" in RB.sections
    assert RB.clause("play_direction").section == "Desarrollo del juego"
