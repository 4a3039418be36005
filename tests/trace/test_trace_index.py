"""The static pass of `rules trace` on a small source tree written here, so every expected entry
comes from the tree the test wrote, not from the model's own source."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from arbitro.cli.trace import Index, build_index, claim_checkers, families

MODEL = {
    "rummy/pile.py": '''
        """The pile. Implements *:frozen-by."""


        def take(rules, state):
            """Take it: samba-en:pile-to-own-set."""
            if rules.draw_count > 1:
                raise Refusal("pile_new_sequence", "not to start an escalera")
            return rules.cid("wild_cap")


        def helper(t):
            return t.cover


        def build(rules):
            return Tables(cover=mask(rules.upcard_cover))


        def quiet(rules):
            # the book's *:merge-sets decides this
            return rules.penalty("draw_out_of_turn")


        def outer(rules):
            def inner():
                return rules.sequence_min

            return inner
        ''',
    "escoba/capture.py": """
        def play(rules):
            return rules.draw_count + rules.capture_sum
        """,
    "game.py": """
        def shared(rules):
            return rules.target_score
        """,
    "schema.py": """
        def check(r):
            return r.draw_count
        """,
}

TESTS = {
    "helpers.py": """
        from arbitro.model.rummy import engine

        CASES = {"pile_to_own_set": "yes"}


        def make():
            return ["--option", "draw-count=2"]
        """,
    "test_a.py": """
        from helpers import CASES, make


        def test_uses_constant():
            assert CASES


        def test_uses_helper():
            make()


        def test_names_id():
            assert "cannot (samba-en:frozen-by)"


        def test_comment():
            x = 1  # samba-en:merge-sets
            assert x


        def test_replace(r):
            replace(r, wild_cap=2)


        class TestGroup:
            def test_reads(self):
                assert self.rules.completed_size


        def test_nothing():
            pass
        """,
    "test_loader.py": """
        def test_loader():
            load("draw_count")
        """,
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    root = tmp_path_factory.mktemp("tree")
    write(root / "model", MODEL)
    write(root / "tests", TESTS)
    return build_index(root)


def code(index: Index, package: str, key: str) -> set[tuple[str, int, tuple[str, ...]]]:
    return {(s.function, s.line, s.how) for s in index.code_for(package, key)}


def found_tests(index: Index, package: str, key: str) -> set[tuple[str, bool, tuple[str, ...]]]:
    return {(t.test, t.plays, t.how) for t in index.tests_for(package, key)}


def test_the_families_are_the_engine_packages() -> None:
    assert {f.package: f.games for f in families()} == {
        "escoba": ("escoba",),
        "rummy": ("samba", "canasta"),
    }


def test_a_read_a_refusal_a_cid_and_a_docstring_each_count(index: Index) -> None:
    pile = "arbitro.model.rummy.pile"
    assert code(index, "rummy", "draw_count") == {(f"{pile}:take", 4, ("reads",))}
    assert code(index, "rummy", "pile_new_sequence") == {(f"{pile}:take", 4, ("names",))}
    assert code(index, "rummy", "wild_cap") == {(f"{pile}:take", 4, ("names",))}
    assert code(index, "rummy", "pile_to_own_set") == {(f"{pile}:take", 4, ("docstring",))}
    assert code(index, "rummy", "frozen_by") == {(f"{pile}:<module>", 1, ("docstring",))}


def test_a_comment_a_rules_method_and_a_derived_field_count(index: Index) -> None:
    pile = "arbitro.model.rummy.pile"
    assert code(index, "rummy", "merge_sets") == {(f"{pile}:quiet", 19, ("comment",))}
    assert code(index, "rummy", "penalties") == {(f"{pile}:quiet", 19, ("reads",))}
    assert code(index, "rummy", "upcard_cover") == {
        (f"{pile}:build", 15, ("reads",)),
        (f"{pile}:helper", 11, ("reads .cover",)),
    }


def test_a_nested_function_is_its_own_entry(index: Index) -> None:
    pile = "arbitro.model.rummy.pile"
    assert code(index, "rummy", "sequence_min") == {(f"{pile}:outer.inner", 25, ("reads",))}


def test_a_key_is_looked_for_in_its_family_and_the_shared_modules_only(index: Index) -> None:
    assert code(index, "escoba", "draw_count") == set()  # no escoba clause has that key
    assert code(index, "escoba", "capture_sum") == {
        ("arbitro.model.escoba.capture:play", 1, ("reads",))
    }
    shared = {("arbitro.model.game:shared", 1, ("reads",))}
    assert code(index, "rummy", "target_score") == shared
    assert code(index, "escoba", "target_score") == shared


def test_the_loaders_are_left_out(index: Index) -> None:
    assert all(s.file != "model/schema.py" for sites in index.code.values() for s in sites)


def test_tests_name_clauses_directly_or_through_the_suite(index: Index) -> None:
    a = "tests/test_a.py::"
    assert found_tests(index, "rummy", "pile_to_own_set") == {
        (a + "test_uses_constant", True, ("names the key",))
    }
    assert found_tests(index, "rummy", "draw_count") == {
        (a + "test_uses_helper", True, ("sets the option",)),
        ("tests/test_loader.py::test_loader", False, ("names the key",)),
    }
    assert found_tests(index, "rummy", "frozen_by") == {
        (a + "test_names_id", True, ("names the clause",))
    }
    assert found_tests(index, "rummy", "merge_sets") == {
        (a + "test_comment", True, ("names the clause",))
    }
    assert found_tests(index, "rummy", "wild_cap") == {
        (a + "test_replace", True, ("sets the field",))
    }
    assert found_tests(index, "rummy", "completed_size") == {
        (a + "TestGroup::test_reads", True, ("reads the field",))
    }
    named = {t.test for sites in index.tests.values() for t in sites}
    assert a + "test_nothing" not in named


def test_a_test_of_one_family_is_not_counted_for_the_other(index: Index) -> None:
    # test_a.py reaches the rummy engine through helpers.py, so it speaks of rummy clauses only
    assert all(t.file != "tests/test_a.py" for t in index.tests_for("escoba", "target_score"))


def test_a_tree_without_tests_says_so(tmp_path: Path) -> None:
    write(tmp_path / "model", MODEL)
    index = build_index(tmp_path)
    assert not index.tests_at_hand
    assert index.tests == {}


def test_the_checkers_of_a_claim_kind_are_found(tmp_path: Path) -> None:
    write(
        tmp_path / "proofs",
        {
            "claims.py": """
                def _count(claim):
                    return 1


                def check(claim):
                    if claim.kind == "never":
                        return 0
                    return TABLE[claim.kind](claim)


                TABLE = {"card_count": _count}
                """,
        },
    )
    found = {(s.function, s.line, s.how) for s in claim_checkers(tmp_path, "card_count")}
    assert found == {("arbitro.proofs.claims:_count", 1, ("checks the kind",))}
    found = {(s.function, s.line, s.how) for s in claim_checkers(tmp_path, "never")}
    assert found == {("arbitro.proofs.claims:check", 5, ("names the kind",))}
    assert claim_checkers(tmp_path, "score_step") == ()
