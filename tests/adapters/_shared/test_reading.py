"""Reading a controller's object: values at paths, integers with their type errors (``adapters._shared.reading``)."""

from __future__ import annotations

from workloadbuilder import ErrorList
from workloadbuilder.adapters._shared.reading import at, read_int


def test_at_follows_keys_and_indexes_and_is_none_where_the_path_leaves_the_object() -> None:
    obj = {"spec": {"tasks": [{"replicas": 2}]}}
    assert at(obj, ("spec", "tasks", 0, "replicas")) == 2
    assert at(obj, ("spec", "tasks", 3)) is None
    assert at(obj, ("spec", "tasks", 0, "replicas", "deeper")) is None
    assert at(obj, ("spec", "missing")) is None


def test_read_int_gives_the_integer_or_an_error_at_its_path() -> None:
    errors = ErrorList()
    assert read_int({"spec": {"replicas": 3}}, ("spec", "replicas"), errors) == 3
    assert read_int({"spec": {}}, ("spec", "replicas"), errors) is None
    assert errors == []
    assert read_int({"spec": {"replicas": "3"}}, ("spec", "replicas"), errors) is None
    assert [str(error) for error in errors] == ['spec.replicas: Invalid value: "3": must be of type integer']


def test_read_int_refuses_a_bool_as_the_strict_decoder_does() -> None:
    errors = ErrorList()
    assert read_int({"n": True}, ("n",), errors) is None
    assert [str(error) for error in errors] == ["n: Invalid value: true: must be of type integer"]
