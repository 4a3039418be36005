"""The choice of the cases a quick run plays (tests/support/quick.py)."""

from __future__ import annotations

import pytest

from tests.support.quick import first_of_each


def _slow(case: object) -> bool:
    marks = getattr(case, "marks", ())
    return any(m.name == "slow" for m in marks)


def test_only_the_first_case_of_each_group_stays_quick() -> None:
    cases = first_of_each(["samba-es", "samba-en", "canasta-es", "canasta-es"], lambda b: b[0])
    assert [_slow(c) for c in cases] == [False, True, False, True]
    # the values reach the test unchanged
    assert [getattr(c, "values", (c,))[0] for c in cases] == [
        "samba-es",
        "samba-en",
        "canasta-es",
        "canasta-es",
    ]


def test_rows_are_split_into_their_values_and_params_keep_their_marks_and_id() -> None:
    xfail = pytest.mark.xfail(reason="known")
    cases = first_of_each(
        [("a", 1), ("a", 2), pytest.param("a", 3, marks=xfail, id="third")],
        lambda row: row[0],
        row=True,
    )
    assert cases[0] == ("a", 1)
    assert cases[1].values == ("a", 2) and _slow(cases[1])
    third = cases[2]
    assert third.values == ("a", 3) and third.id == "third"
    assert [m.name for m in third.marks] == ["xfail", "slow"]


def test_without_a_group_the_whole_sweep_is_one() -> None:
    cases = first_of_each([{}, {"x": 1}, {"y": 2}])
    assert [_slow(c) for c in cases] == [False, True, True]
