"""Deterministic names, checked against vectors of the Go algorithm.

How the vectors were obtained. Each expected hash was first worked out from
the algorithm by hand: FNV-32a starts from the offset basis 2166136261 and,
for each byte, XORs it in and multiplies by 16777619 modulo 2**32; the
decimal digits of the result are then re-spelled by ``SafeEncodeString``,
digit ``d`` becoming ``"bcdfghjklmnpqrstvwxz2456789"[(48 + d) % 27]``, that is
``0123456789`` -> ``456789bcdf``. For example ``(types.UID)job-uid`` hashes to
3877741753, whose digits 3 8 7 7 7 4 1 7 5 3 give ``7dccc85c97``. The
``(types.UID)`` prefix is what go-spew's ``%#v`` (behind the Job controller's
``hashutil.DeepHashObject``) writes before a ``types.UID``: spew prints the
type in parentheses and then the string without quotes (go-spew's
``format_test.go``: ``%#v`` of ``"test"`` is ``(string)test``).

Every vector was then checked by running ``tests/data/naming/vectors.go``, a
restatement of the Job controller's ``computeWorkloadName`` /
``computePodGroupName`` on Go 1.19's ``hash/fnv`` and go-spew 1.1.1 (the code
Kubernetes vendors), over these inputs and 3000 random ones: every name
matched byte for byte, except where Go's own name is not a valid DNS
subdomain (a cut that ends on a dot), the one deliberate difference, tested
below. The FNV values of ``""``, ``"a"`` and ``"foobar"`` are also the
published FNV-1a test vectors.
"""

from __future__ import annotations

import pytest

from workloadbuilder import BuildError
from workloadbuilder.runtime.naming import (
    fnv32a,
    job_template_name,
    pod_group_name,
    runtime_group_name,
    safe_encode_string,
    template_name,
    workload_name,
)
from workloadbuilder.validation.formats import is_dns1123_label, is_dns1123_subdomain

JOB_UID_HASH = "7dccc85c97"  # FNV-32a("(types.UID)job-uid") = 3877741753
SHORT_UID_HASH = "7b45cbb"  # FNV-32a("(types.UID)uid-0") = 3601766: seven digits, so seven characters


@pytest.mark.parametrize(
    ("data", "value", "encoded"),
    [
        (b"", 2166136261, "65bb57b6b5"),  # the offset basis itself
        (b"a", 3826002220, "7d6b446664"),  # 0xe40c292c
        (b"foobar", 3214735720, "7658c79c64"),  # 0xbf9cf968
        (b"(types.UID)job-uid", 3877741753, JOB_UID_HASH),
        (b"(types.UID)uid-0", 3601766, SHORT_UID_HASH),
        (b"trainer-pgt-0", 2816129049, "6d5b56f48f"),
    ],
    ids=["empty", "a", "foobar", "job-uid", "short-hash", "template"],
)
def test_fnv32a_and_its_encoding(data: bytes, value: int, encoded: str):
    assert fnv32a(data) == value
    assert safe_encode_string(str(value)) == encoded


def test_fnv32a_of_chunks_is_fnv32a_of_their_concatenation():
    assert fnv32a(b"foo", b"", b"bar") == fnv32a(b"foobar") == 3214735720


@pytest.mark.parametrize(
    ("text", "encoded"),
    [
        ("0123456789", "456789bcdf"),
        ("", ""),
        ("a", "v"),  # 97 % 27 = 16
        ("é", "w\x00"),  # 233 % 27 = 17; two UTF-8 bytes, one character: Go leaves a NUL
    ],
    ids=["digits", "empty", "letter", "multi-byte"],
)
def test_safe_encode_string(text: str, encoded: str):
    assert safe_encode_string(text) == encoded


@pytest.mark.parametrize(
    ("owner", "uid", "expected"),
    [
        ("trainer", "job-uid", f"trainer-{JOB_UID_HASH}"),
        ("", "job-uid", JOB_UID_HASH),
        ("vllm", "0b6f4c1e-8d2a-4f5e-9c3b-7a1d2e4f6a80", "vllm-7b9788bc65"),
        ("a" * 242, "job-uid", "a" * 242 + f"-{JOB_UID_HASH}"),  # 242 + 1 + 10 = 253: fits
        ("a" * 243, "job-uid", "a" * 242 + f"-{JOB_UID_HASH}"),  # one over: cut to 242
        ("a" * 300, "job-uid", "a" * 242 + f"-{JOB_UID_HASH}"),
        ("c" * 245, "uid-0", "c" * 245 + f"-{SHORT_UID_HASH}"),  # a shorter hash leaves more room
        ("c" * 246, "uid-0", "c" * 245 + f"-{SHORT_UID_HASH}"),
    ],
    ids=["job", "no-owner-name", "real-uid", "exactly-253", "one-over", "long", "short-hash-fits", "short-hash-cut"],
)
def test_workload_name(owner: str, uid: str, expected: str):
    name = workload_name(owner, uid)
    assert name == expected
    assert len(name) <= 253
    assert is_dns1123_subdomain(name) == []


def test_workload_name_cut_on_a_dot_drops_it():
    """Go cuts ``aaa.bbb`` after the dot and gives ``aaa.-<hash>``, which is not a subdomain; the dot goes."""
    owner = "a" * 241 + "." + "b" * 20
    assert workload_name(owner, "job-uid") == "a" * 241 + f"-{JOB_UID_HASH}"


@pytest.mark.parametrize(
    ("workload", "template", "expected"),
    [
        ("trainer-7dccc85c97", "trainer-pgt-0", "trainer-7dccc85c97-trainer-pgt-0-5bbdf84755"),
        ("w" * 178, "t" * 63, "w" * 178 + "-" + "t" * 63 + "-69d9f9746f"),  # 178 + 63 = 253 - 10 - 2: fits
        ("w" * 100, "t" * 142, "w" * 100 + "-" + "t" * 141 + "-5784c4f97c"),  # short workload: template cut
        ("w" * 200, "t" * 63, "w" * 178 + "-" + "t" * 63 + "-5d4f5ccf75"),  # short template: workload cut
        ("w" * 200, "t" * 130, "w" * 121 + "-" + "t" * 120 + "-5ff45f7d97"),  # both long: 121 / 120
        ("wl", "", "wl-5bb9b89674"),
        ("", "tpl", "tpl-6b7b69bbc5"),
        ("", "", "65bb57b6b5"),
    ],
    ids=["job", "exact-fit", "cut-template", "cut-workload", "split", "no-template", "no-workload", "neither"],
)
def test_pod_group_name(workload: str, template: str, expected: str):
    name = pod_group_name(workload, template)
    assert name == expected
    assert len(name) <= 253
    assert is_dns1123_subdomain(name) == []


def test_pod_group_name_cut_on_a_dot_drops_it():
    workload = "w" * 177 + "." + "x" * 30
    assert pod_group_name(workload, "t" * 63) == "w" * 177 + "-" + "t" * 63 + "-68466f555b"


@pytest.mark.parametrize(
    ("workload", "template", "indices", "expected"),
    [
        ("job-abc", "workers", (), pod_group_name("job-abc", "workers")),
        # FNV-32a("vllm-7b9788bc65" "replica" "[0]") = 2305544006
        ("vllm-7b9788bc65", "replica", (0,), "vllm-7b9788bc65-replica-0-674998844b"),
        # FNV-32a("wl" "a" "[1]") = 1517579052, while template "a-1" alone hashes "wla-1" = 416000051
        ("wl", "a", (1,), "wl-a-1-595c9cf496"),
        ("wl", "a-1", (), "wl-a-1-85b444495"),
    ],
    ids=["unindexed-is-pod-group-name", "replica", "indexed", "look-alike-template"],
)
def test_runtime_group_name(workload: str, template: str, indices: tuple[int, ...], expected: str):
    assert runtime_group_name(workload, template, indices) == expected


def test_runtime_group_name_truncates_like_pod_group_names():
    name = runtime_group_name("w" * 250, "replica", (7, 12))
    assert name.startswith("w" * 100)
    assert "-replica-7-12-" in name
    assert len(name) == 253
    assert is_dns1123_subdomain(name) == []


@pytest.mark.parametrize("indices", [(-1,), (True,), ("1",)], ids=["negative", "bool", "str"])
def test_runtime_group_name_refuses_bad_indices(indices: tuple[object, ...]):
    with pytest.raises(BuildError, match=r"^runtime group indices must be non-negative integers, got "):
        runtime_group_name("wl", "t", indices)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        ("trainer", "trainer-pgt-0"),
        ("j" * 57, "j" * 57 + "-pgt-0"),  # 63 bytes: still the Job controller's name
        # 64 bytes would not be a label: FNV-32a("j"*58 + "-pgt-0") = 1437553030 -> 587c997474
        ("j" * 58, "j" * 46 + "-587c997474-pgt-0"),
        # FNV-32a("j"*63 + "-pgt-0") = 1193444542 -> 55f7888986
        ("j" * 63, "j" * 46 + "-55f7888986-pgt-0"),
        # a dot is not allowed in a label: FNV-32a("my.job-pgt-0") = 3031829029 -> 7475d6f46f
        ("my.job", "my-job-7475d6f46f-pgt-0"),
    ],
    ids=["short", "57-chars", "58-chars", "63-chars", "dotted"],
)
def test_job_template_name(job: str, expected: str):
    name = job_template_name(job)
    assert name == expected
    assert len(name) <= 63
    assert is_dns1123_label(name) == []


def test_job_template_names_of_long_jobs_stay_apart():
    assert job_template_name("j" * 58) != job_template_name("j" * 58 + "x")
    assert job_template_name("j" * 58, 1) == "j" * 46 + "-5898774b8f-pgt-1"  # FNV-32a = 1454330649


@pytest.mark.parametrize(
    ("base", "suffix", "expected"),
    [
        ("workers", "", "workers"),
        ("x" * 253, "", "x" * 52 + "-7fd7ff6ddc"),  # FNV-32a("x"*253) = 3983992887
        # the 52-byte cut ends on the dash, which goes: FNV-32a = 2073478180 -> 64c78cd5d4
        ("b" * 51 + "-" + "c" * 20, "", "b" * 51 + "-64c78cd5d4"),
    ],
    ids=["label", "long-no-suffix", "cut-on-a-dash"],
)
def test_template_name(base: str, suffix: str, expected: str):
    name = template_name(base, suffix)
    assert name == expected
    assert len(name) <= 63
    assert is_dns1123_label(name) == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: workload_name("Trainer", "uid"), 'generated Workload name "Trainer-'),
        (lambda: pod_group_name("wl", "Workers"), 'generated PodGroup name "wl-Workers-'),
        (lambda: job_template_name("Trainer" + "x" * 60), 'cannot derive a template name from "Trainer'),
        (lambda: template_name("job", "x" * 60), 'template name suffix "' + "x" * 60 + '" leaves no room for a name'),
        (lambda: template_name("job", "Pgt"), 'cannot derive a template name from "job" and "Pgt": '),
    ],
    ids=[
        "workload-upper-case",
        "pod-group-upper-case",
        "template-base",
        "template-suffix-too-long",
        "template-suffix-bad",
    ],
)
def test_names_that_cannot_be_made_raise(call, message: str):
    with pytest.raises(BuildError) as caught:
        call()
    assert str(caught.value).startswith(message)
