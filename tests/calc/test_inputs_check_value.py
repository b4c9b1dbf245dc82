"""calc.inputs.check_value: one input checked alone, with the same errors parse gives it (the
page names every refused field at once with it)."""

import pytest

from calc import inputs
from calc.errors import CalcError


@pytest.mark.parametrize(("name", "value", "key"), [
    ("model", "no-such-model", "unknown_model"),
    ("instance", "no.such", "unknown_instance"),
    ("batch", 0, "out_of_range"),
    ("dtype", "fp3", "unknown_choice"),
])
def test_a_bad_value_is_refused_with_its_field(name: str, value: object, key: str) -> None:
    with pytest.raises(CalcError) as caught:
        inputs.check_value(name, value)
    assert caught.value.field == name
    with pytest.raises(CalcError) as whole:
        inputs.parse("perf", {"model": "llama-3.1-8b", "instance": "inf2.xlarge",
                              "input_len": 128, "output_len": 128, name: value})
    assert (whole.value.field, whole.value.key) == (name, caught.value.key)


@pytest.mark.parametrize(("name", "value"), [
    ("model", "llama-3.1-8b"), ("instance", "inf2.xlarge"), ("batch", 4), ("dtype", "bf16"),
    ("hidden", -5),            # a model shape field: checked with the others by inputs.model
    ("not_a_param", "x"),      # outside the schema: check_known refuses it in a request
])
def test_a_good_or_unchecked_value_passes(name: str, value: object) -> None:
    inputs.check_value(name, value)
