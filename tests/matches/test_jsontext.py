"""The action path's JSON (orjson) gives what the standard library's gives."""

from __future__ import annotations

import json
import math

import pytest

from matches import jsontext

VALUES = [
    {"board": [[0, 2, 0], [5, 0]], "name": "سامی", "rating": 1500.25, "none": None,
     "flags": [True, False], "nested": {"a": {"b": [1.5, -2, "x\"y\\z\n"]}}},
    [],
    "text",
    0,
]


@pytest.mark.parametrize("value", VALUES)
def test_values_round_trip_as_with_the_standard_library(value: object) -> None:
    text = jsontext.dumps(value)
    assert json.loads(text) == value
    assert jsontext.loads(text) == value
    assert jsontext.loads(json.dumps(value)) == value


def test_what_orjson_refuses_goes_through_the_standard_library() -> None:
    assert json.loads(jsontext.dumps({"big": 2**70})) == {"big": 2**70}
    assert jsontext.dumps({1: "a"}) == '{"1":"a"}'  # keys become strings, as json does
    assert math.isnan(jsontext.loads("NaN"))
    with pytest.raises(ValueError):
        jsontext.loads("not json")
