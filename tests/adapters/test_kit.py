"""The adapter author's kit: field errors, Go's quoting, JSON integers and typed reads (``adapters.kit``)."""

from __future__ import annotations

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters import kit


def test_field_errors_print_as_kubernetes_field_errors() -> None:
    at = FieldPath("spec", "replicas")
    assert str(kit.required(at)) == "spec.replicas: Required value"
    assert str(kit.invalid(at, 3, "too many")) == "spec.replicas: Invalid value: 3: too many"
    assert str(kit.forbidden(at, "not here")) == "spec.replicas: Forbidden: not here"
    assert str(kit.invalid(at, kit.OMIT_VALUE, "no value")) == "spec.replicas: Invalid value: no value"


def test_go_quote_is_gos_percent_q() -> None:
    assert kit.go_quote('a"b') == '"a\\"b"'
    assert kit.go_quote("tab\t") == '"tab\\t"'


def test_a_json_integer_is_an_int_that_is_not_a_bool() -> None:
    assert [kit.is_int(v) for v in (3, True, 3.0, "3")] == [True, False, False, False]


def test_read_count_checks_the_type_and_the_bounds_at_the_users_path() -> None:
    errors = ErrorList()
    assert kit.read_count({"spec": {"replicas": 2}}, ("spec", "replicas"), errors, minimum=1) == 2
    assert kit.read_count({"spec": {"replicas": 0}}, ("spec", "replicas"), errors, minimum=1) is None
    assert kit.read_count({"spec": {"replicas": "2"}}, ("spec", "replicas"), errors) is None
    assert [str(e) for e in errors] == [
        "spec.replicas: Invalid value: 0: must be greater than or equal to 1",
        'spec.replicas: Invalid value: "2": must be of type integer',
    ]


def test_a_short_name_must_be_a_dns_label() -> None:
    assert [e.detail[:36] for e in kit.short_name_errors(FieldPath("name"), "Bad_Name")] == [
        "a lowercase RFC 1123 label must cons"
    ]
    assert list(kit.short_name_errors(FieldPath("name"), "good-name")) == []
