"""Kubernetes name and key formats, with the exact messages of apimachinery's ``validate/content`` package.

Valid and invalid vectors come from ``pkg/api/validate/content/{dns,kube,path}_test.go``
and ``pkg/api/validate/strfmt_test.go``; the Go tests only check whether a value
fails, so the expected messages here are derived from ``content/{dns,kube,path,errors}.go``.
"""

from __future__ import annotations

import pytest

from workloadbuilder import ErrorType, FieldPath
from workloadbuilder.validation.formats import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_key,
    is_path_segment_name,
    label_key_errors,
    long_name_errors,
    path_segment_name_errors,
    short_name_errors,
)

LABEL_REGEX_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_REGEX_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
NAME_PART_REGEX_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', "
    "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_KEY_PARTS_MSG = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character "
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', "
    "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
    "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
LABEL_TOO_LONG = "must be no more than 63 bytes"
SUBDOMAIN_TOO_LONG = "must be no more than 253 bytes"
DOTS = "must not contain dots"


def _ids(values: list[str]) -> list[str]:
    """Readable ids for value tables: long runs of one character are abbreviated."""
    out = []
    for value in values:
        if len(value) > 40:
            out.append(f"{value[:3]}...({len(value.encode())} bytes)")
        else:
            out.append(repr(value))
    return out


# --- IsDNS1123Label (k8s-short-name) ---

LABEL_GOOD = [
    "a",
    "ab",
    "abc",
    "a1",
    "a-1",
    "a--1--2--b",
    "0",
    "01",
    "012",
    "1a",
    "1-a",
    "1--a--b--2",
    "a" * 63,
    "abc-123",
]


@pytest.mark.parametrize("value", LABEL_GOOD, ids=_ids(LABEL_GOOD))
def test_dns1123_label_accepts(value: str) -> None:
    assert is_dns1123_label(value) == []


LABEL_BAD = [
    ("", [LABEL_REGEX_MSG]),
    ("A", [LABEL_REGEX_MSG]),
    ("ABC", [LABEL_REGEX_MSG]),
    ("aBc", [LABEL_REGEX_MSG]),
    ("A1", [LABEL_REGEX_MSG]),
    ("A-1", [LABEL_REGEX_MSG]),
    ("1-A", [LABEL_REGEX_MSG]),
    ("-", [LABEL_REGEX_MSG]),
    ("a-", [LABEL_REGEX_MSG]),
    ("-a", [LABEL_REGEX_MSG]),
    ("1-", [LABEL_REGEX_MSG]),
    ("-1", [LABEL_REGEX_MSG]),
    ("_", [LABEL_REGEX_MSG]),
    ("a_", [LABEL_REGEX_MSG]),
    ("_a", [LABEL_REGEX_MSG]),
    ("a_b", [LABEL_REGEX_MSG]),
    ("1_", [LABEL_REGEX_MSG]),
    ("_1", [LABEL_REGEX_MSG]),
    ("1_2", [LABEL_REGEX_MSG]),
    (".", [LABEL_REGEX_MSG]),
    ("a.", [LABEL_REGEX_MSG]),
    (".a", [LABEL_REGEX_MSG]),
    ("a.b", [DOTS]),
    ("1.", [LABEL_REGEX_MSG]),
    (".1", [LABEL_REGEX_MSG]),
    ("1.2", [DOTS]),
    (" ", [LABEL_REGEX_MSG]),
    ("a ", [LABEL_REGEX_MSG]),
    (" a", [LABEL_REGEX_MSG]),
    ("a b", [LABEL_REGEX_MSG]),
    ("1 ", [LABEL_REGEX_MSG]),
    (" 1", [LABEL_REGEX_MSG]),
    ("1 2", [LABEL_REGEX_MSG]),
    ("a" * 64, [LABEL_TOO_LONG]),
    # strfmt_test.go TestShortName
    ("01234567890123456789012345678901234567890123456789012345678901234", [LABEL_TOO_LONG]),
    ("-abc-123", [LABEL_REGEX_MSG]),
    ("abc-123-", [LABEL_REGEX_MSG]),
    ("ABC-123", [LABEL_REGEX_MSG]),
    ("abc_123", [LABEL_REGEX_MSG]),
    # beyond upstream: both messages, length first; a long dotted name is still "dots"
    ("A" * 64, [LABEL_TOO_LONG, LABEL_REGEX_MSG]),
    ("a" * 40 + "." + "b" * 40, [LABEL_TOO_LONG, DOTS]),
    ("a\n", [LABEL_REGEX_MSG]),
]


@pytest.mark.parametrize(("value", "expected"), LABEL_BAD, ids=_ids([v for v, _ in LABEL_BAD]))
def test_dns1123_label_rejects(value: str, expected: list[str]) -> None:
    assert is_dns1123_label(value) == expected


LABEL_BYTES = [
    ("a" * 62 + "é", [LABEL_TOO_LONG, LABEL_REGEX_MSG]),  # 63 characters, 64 bytes
    ("a" * 61 + "é", [LABEL_REGEX_MSG]),  # 63 bytes: only the character is wrong
    ("é" * 32, [LABEL_TOO_LONG, LABEL_REGEX_MSG]),  # 32 characters, 64 bytes
]


@pytest.mark.parametrize(("value", "expected"), LABEL_BYTES, ids=["62+e-acute", "61+e-acute", "32xe-acute"])
def test_dns1123_label_length_counts_utf8_bytes(value: str, expected: list[str]) -> None:
    assert is_dns1123_label(value) == expected


def test_label_message_keeps_the_double_space_before_or() -> None:
    [message] = is_dns1123_label("X")
    assert "(e.g. 'my-name',  or '123-abc', regex" in message


# --- IsDNS1123Subdomain (k8s-long-name) ---

SUBDOMAIN_GOOD = [
    "a",
    "ab",
    "abc",
    "a1",
    "a-1",
    "a--1--2--b",
    "0",
    "01",
    "012",
    "1a",
    "1-a",
    "1--a--b--2",
    "a.a",
    "ab.a",
    "abc.a",
    "a1.a",
    "a-1.a",
    "a--1--2--b.a",
    "a.1",
    "ab.1",
    "abc.1",
    "a1.1",
    "a-1.1",
    "a--1--2--b.1",
    "0.a",
    "01.a",
    "012.a",
    "1a.a",
    "1-a.a",
    "0.1",
    "01.1",
    "012.1",
    "1a.1",
    "1-a.1",
    "1--a--b--2.1",
    "a.b.c.d.e",
    "aa.bb.cc.dd.ee",
    "1.2.3.4.5",
    "11.22.33.44.55",
    "a" * 253,
    ("a" * 63 + ".") * 3 + "a" * 61,
    "a.b.c",
]


@pytest.mark.parametrize("value", SUBDOMAIN_GOOD, ids=_ids(SUBDOMAIN_GOOD))
def test_dns1123_subdomain_accepts(value: str) -> None:
    assert is_dns1123_subdomain(value) == []


SUBDOMAIN_BAD_REGEX = [
    "",
    "A",
    "ABC",
    "aBc",
    "A1",
    "A-1",
    "1-A",
    "-",
    "a-",
    "-a",
    "1-",
    "-1",
    "_",
    "a_",
    "_a",
    "a_b",
    "1_",
    "_1",
    "1_2",
    ".",
    "a.",
    ".a",
    "a..b",
    "1.",
    ".1",
    "1..2",
    " ",
    "a ",
    " a",
    "a b",
    "1 ",
    " 1",
    "1 2",
    "A.a",
    "aB.a",
    "ab.A",
    "A1.a",
    "a1.A",
    "A.1",
    "aB.1",
    "A1.1",
    "1A.1",
    "0.A",
    "01.A",
    "012.A",
    "1A.a",
    "1a.A",
    "A.B.C.D.E",
    "AA.BB.CC.DD.EE",
    "a.B.c.d.e",
    "aa.bB.cc.dd.ee",
    "a@b",
    "a,b",
    "a;b",
    "a:b",
    "a%b",
    "a?b",
    "a$b",
    # strfmt_test.go TestLongName
    "-a.b.c",
    "a.b.c-",
    "A.b.c",
    "a_b.c",
]
SUBDOMAIN_BAD = [(value, [SUBDOMAIN_REGEX_MSG]) for value in SUBDOMAIN_BAD_REGEX] + [
    ("a" * 254, [SUBDOMAIN_TOO_LONG]),
    ("A" * 254, [SUBDOMAIN_TOO_LONG, SUBDOMAIN_REGEX_MSG]),
    ("a" * 252 + "é", [SUBDOMAIN_TOO_LONG, SUBDOMAIN_REGEX_MSG]),  # 253 characters, 254 bytes
]


@pytest.mark.parametrize(("value", "expected"), SUBDOMAIN_BAD, ids=_ids([v for v, _ in SUBDOMAIN_BAD]))
def test_dns1123_subdomain_rejects(value: str, expected: list[str]) -> None:
    assert is_dns1123_subdomain(value) == expected


# --- IsLabelKey (k8s-label-key) ---

LABEL_KEY_GOOD = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes",
    "now.with.dots/simple",
    "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num",
    "1234/5678",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a" * 63,
    "a" * 253 + "/" + "b" * 63,
    # strfmt_test.go TestLabelKey
    "app",
    "app-name",
    "app.name",
    "app_name",
    "example.com/app",
    "a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 55 + "/app",
    "topology.kubernetes.io/zone",
]


@pytest.mark.parametrize("value", LABEL_KEY_GOOD, ids=_ids(LABEL_KEY_GOOD))
def test_label_key_accepts(value: str) -> None:
    assert is_label_key(value) == []


LABEL_KEY_BAD = [
    ("nospecialchars%^=@", [NAME_PART_REGEX_MSG]),
    ("cantendwithadash-", [NAME_PART_REGEX_MSG]),
    ("-cantstartwithadash-", [NAME_PART_REGEX_MSG]),
    ("only/one/slash", [LABEL_KEY_PARTS_MSG]),
    ("Example.com/abc", ["prefix part " + SUBDOMAIN_REGEX_MSG]),
    ("example_com/abc", ["prefix part " + SUBDOMAIN_REGEX_MSG]),
    ("example.com/", ["name part must be non-empty", NAME_PART_REGEX_MSG]),
    ("/simple", ["prefix part must be non-empty"]),
    ("a" * 64, ["name part " + LABEL_TOO_LONG]),
    ("a" * 254 + "/abc", ["prefix part " + SUBDOMAIN_TOO_LONG]),
    # strfmt_test.go TestLabelKey
    ("", ["name part must be non-empty", NAME_PART_REGEX_MSG]),
    ("-app", [NAME_PART_REGEX_MSG]),
    ("app-", [NAME_PART_REGEX_MSG]),
    ("app^", [NAME_PART_REGEX_MSG]),
    ("example-.com/app", ["prefix part " + SUBDOMAIN_REGEX_MSG]),
    # beyond upstream: every message a two-part key can collect, in order
    ("/", ["prefix part must be non-empty", "name part must be non-empty", NAME_PART_REGEX_MSG]),
    (
        "A" * 254 + "/-" + "b" * 63,
        [
            "prefix part " + SUBDOMAIN_TOO_LONG,
            "prefix part " + SUBDOMAIN_REGEX_MSG,
            "name part " + LABEL_TOO_LONG,
            NAME_PART_REGEX_MSG,
        ],
    ),
    ("a/b/", [LABEL_KEY_PARTS_MSG]),
    ("//", [LABEL_KEY_PARTS_MSG]),
    ("a" * 62 + "é", ["name part " + LABEL_TOO_LONG, NAME_PART_REGEX_MSG]),
]


@pytest.mark.parametrize(("value", "expected"), LABEL_KEY_BAD, ids=_ids([v for v, _ in LABEL_KEY_BAD]))
def test_label_key_rejects(value: str, expected: list[str]) -> None:
    assert is_label_key(value) == expected


def test_label_key_message_keeps_the_double_spaces() -> None:
    [message] = is_label_key("-")
    assert "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex" in message


# --- IsPathSegmentName (k8s-path-segment-name) ---

PATH_SEGMENT = [
    # content/path_test.go TestIsPathSegmentName
    ("empty", "", []),
    ("valid short", "foo", []),
    ("valid long", "foo.bar.baz", []),
    ("valid complex", "sha256:ABCDEF012345@ABCDEF012345", []),
    ("valid extended charset", "Iñtërnâtiônàlizætiøn", []),
    ("dot", ".", ["may not be '.'"]),
    ("dot leading", ".test", []),
    ("dot dot", "..", ["may not be '..'"]),
    ("dot dot leading", "..test", []),
    ("slash", "foo/bar", ["may not contain '/'"]),
    ("percent", "foo%bar", ["may not contain '%'"]),
    # strfmt_test.go TestPathSegmentName
    ("valid simple name", "valid-name", []),
    ("valid with mixed case", "MyResource", []),
    ("valid with numbers", "resource123", []),
    ("valid with underscores", "my_resource", []),
    ("invalid: contains both slash and percent", "foo/bar%baz", ["may not contain '/'", "may not contain '%'"]),
    # beyond upstream: no length limit, and the exact-match rule returns alone
    ("no length limit", "a" * 1000, []),
    ("percent before slash keeps slash first", "%/", ["may not contain '/'", "may not contain '%'"]),
    ("dot slash is not exactly dot", "./", ["may not contain '/'"]),
    ("triple dot", "...", []),
]


@pytest.mark.parametrize(("value", "expected"), [c[1:] for c in PATH_SEGMENT], ids=[c[0] for c in PATH_SEGMENT])
def test_path_segment_name(value: str, expected: list[str]) -> None:
    assert is_path_segment_name(value) == expected


# --- field-error helpers: one Invalid error per message, with the value ---

PATH = FieldPath("spec", "x")

HELPERS = [
    ("short name valid", short_name_errors, "abc", []),
    ("short name regex", short_name_errors, "X", [f'spec.x: Invalid value: "X": {LABEL_REGEX_MSG}']),
    ("short name dots", short_name_errors, "a.b", [f'spec.x: Invalid value: "a.b": {DOTS}']),
    (
        "short name long and bad",
        short_name_errors,
        "A" * 64,
        [
            f'spec.x: Invalid value: "{"A" * 64}": {LABEL_TOO_LONG}',
            f'spec.x: Invalid value: "{"A" * 64}": {LABEL_REGEX_MSG}',
        ],
    ),
    ("long name valid", long_name_errors, "a.b.c", []),
    ("long name empty", long_name_errors, "", [f'spec.x: Invalid value: "": {SUBDOMAIN_REGEX_MSG}']),
    ("label key valid", label_key_errors, "example.com/zone", []),
    (
        "label key empty name",
        label_key_errors,
        "example.com/",
        [
            'spec.x: Invalid value: "example.com/": name part must be non-empty',
            f'spec.x: Invalid value: "example.com/": {NAME_PART_REGEX_MSG}',
        ],
    ),
    ("path segment valid", path_segment_name_errors, "ok", []),
    (
        "path segment both",
        path_segment_name_errors,
        "a/%",
        ["spec.x: Invalid value: \"a/%\": may not contain '/'", "spec.x: Invalid value: \"a/%\": may not contain '%'"],
    ),
]


@pytest.mark.parametrize(("helper", "value", "expected"), [c[1:] for c in HELPERS], ids=[c[0] for c in HELPERS])
def test_field_error_helpers(helper, value: str, expected: list[str]) -> None:
    errs = helper(PATH, value)
    assert [str(e) for e in errs] == expected
    assert all(e.type is ErrorType.INVALID and e.bad_value == value for e in errs)


def test_field_error_helpers_render_a_missing_path_as_nil() -> None:
    assert [str(e) for e in short_name_errors(None, "a.b")] == [f'<nil>: Invalid value: "a.b": {DOTS}']
