"""The published schemas: printed by `arbitro schema`, and read by arbitro's own validator exactly
as the reference implementation (`jsonschema`) reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbitro.cli.main import main
from arbitro.oracle.protocol import Invalid, _compiled, schema_names, validate
from tests.support.fuzz import json_values, mutate_state, played
from tests.support.serve import SCHEMAS, validator


def test_arbitro_schema_prints_the_published_files(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json"))
    assert schema_names() == files
    # what is printed, in this process; the exit status of a bad name, as a user's shell sees it
    assert main(["schema"]) == 0
    assert capsys.readouterr().out.split() == files
    for name in ("rummy-state", "request", "verdict"):
        assert main(["schema", name]) == 0
        printed = capsys.readouterr().out
        assert json.loads(printed) == json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    bad = subprocess.run(
        [sys.executable, "-m", "arbitro.cli", "schema", "nope"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1


def _reference(name: str) -> Any:
    """jsonschema's validator for a schema, with the protocol's one deliberate difference: an
    integer is written as one (2), so 2.0 is not an integer here, as JSON Schema would allow."""
    from jsonschema import Draft202012Validator, validators

    base = validator(f"{name}.schema.json")
    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, x: type(x) is int)
    strict = validators.extend(Draft202012Validator, type_checker=checker)
    return strict(base.schema, registry=base._registry)


def _agree(name: str, value: Any) -> None:
    reference = _reference(name).is_valid(value)
    assert _compiled(name)(value) == reference, (name, value)
    if reference:
        validate(value, name, "x")
    else:
        with pytest.raises(Invalid):
            validate(value, name, "x")


@settings(max_examples=40)  # jsonschema walks a whole state slowly; the fuzz suite does more
@given(book=st.sampled_from([0, 1, 2]), data=st.data())
def test_the_validator_agrees_with_jsonschema_on_mutated_states(
    book: int, data: st.DataObject
) -> None:
    states, actions = played(book)
    state = json.loads(data.draw(st.sampled_from(states)))
    name = "escoba-state" if book == 0 else "rummy-state"
    _agree(name, state)
    _agree(name, mutate_state(state, data))
    action = json.loads(data.draw(st.sampled_from(actions)))
    kind = "escoba-action" if book == 0 else "rummy-action"
    _agree(kind, action)
    _agree(kind, mutate_state({"a": action}, data).get("a", action))


@given(value=json_values, name=st.sampled_from(schema_names()))
def test_the_validator_agrees_with_jsonschema_on_any_json(value: Any, name: str) -> None:
    _agree(name, value)
