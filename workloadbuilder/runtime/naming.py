"""Deterministic names for Workloads, templates and runtime groups.

The Workload and PodGroup names are the Job controller's (and upstream
workloadbuilder's ``GenerateWorkloadName`` / ``GeneratePodGroupName``), byte
for byte wherever those produce a valid name:

* Workload ``<owner>-<hash>``: the hash is FNV-32a of the owner UID as
  Kubernetes' ``DeepHashObject`` prints it (go-spew ``%#v``, which for a
  ``types.UID`` is ``(types.UID)<uid>``), its decimal value re-spelled with
  ``SafeEncodeString``'s alphabet. The owner name is cut so the whole stays
  within 253 bytes.
* PodGroup ``<workload>-<template>-<hash>``: FNV-32a of the two full names
  (no separator); when they do not fit, each keeps up to half the room and a
  short one leaves the rest to the other.

Template names are DNS labels (63 bytes at most, no dots); a name derived from
a long or dotted owner name is shortened with a hash instead of producing an
invalid Workload (see ``template_name``). Runtime groups of a materialized
hierarchy are named by ``runtime_group_name``. docs/runtime.md explains the
schemes and tests/runtime/test_naming.py holds the vectors they were checked against.
"""

from __future__ import annotations

from collections.abc import Sequence

from workloadbuilder._internal.decode import is_int
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder.errors import BuildError
from workloadbuilder.validation.formats import is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "SAFE_ENCODE_ALPHABET",
    "fnv32a",
    "job_template_name",
    "pod_group_name",
    "runtime_group_name",
    "safe_encode_string",
    "template_name",
    "workload_name",
]

SAFE_ENCODE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""``k8s.io/apimachinery/pkg/util/rand``'s alphabet: no vowels, so no words, and never ``0``, ``1``, ``3``."""

DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1123_LABEL_MAX_LENGTH = 63

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193
_UID_TYPE_PREFIX = b"(types.UID)"  # what go-spew's %#v writes before a types.UID value


def _utf8(text: str) -> bytes:
    """The bytes Go hashes for a string: UTF-8, lone surrogates passed through rather than refused."""
    return text.encode("utf-8", "surrogatepass")


def fnv32a(*chunks: bytes) -> int:
    """FNV-1a, 32 bits, over the chunks written one after the other, as Go's ``hash/fnv.New32a``."""
    value = _FNV32_OFFSET
    for chunk in chunks:
        for byte in chunk:
            value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return value


def safe_encode_string(text: str) -> str:
    """Re-spell ``text`` in the vowel-free alphabet, as ``rand.SafeEncodeString`` does.

    Each character ``c`` becomes ``SAFE_ENCODE_ALPHABET[ord(c) % 27]``; the
    digits ``0``-``9`` become ``4 5 6 7 8 9 b c d f``. Go sizes the result in
    bytes but fills it per character, so a multi-byte character leaves NUL
    bytes at the end; that is reproduced, though names only encode digits.

    Examples:
        >>> safe_encode_string("3877741753")
        '7dccc85c97'
    """
    require_str(text=text)
    encoded = "".join(SAFE_ENCODE_ALPHABET[ord(ch) % len(SAFE_ENCODE_ALPHABET)] for ch in text)
    return encoded + "\x00" * (len(_utf8(text)) - len(text))


def _encoded_hash(*chunks: bytes) -> str:
    return safe_encode_string(str(fnv32a(*chunks)))


def workload_name(owner_name: str, owner_uid: str) -> str:
    """The Workload name the Job controller gives its Job's Workload: ``<owner>-<hash of the UID>``.

    The UID makes the name stable across controller restarts and different
    for a new owner that reuses a deleted owner's name. An empty owner name
    gives the hash alone, as upstream's ``GenerateWorkloadName`` does.

    Examples:
        >>> workload_name("trainer", "job-uid")
        'trainer-7dccc85c97'

    Raises:
        BuildError: ``owner_name`` is not a DNS subdomain, so no valid name can carry it.
        TypeError: a name (or index) of the wrong type.
    """
    require_str(owner_name=owner_name, owner_uid=owner_uid)
    digest = _encoded_hash(_UID_TYPE_PREFIX, _utf8(owner_uid))
    if not owner_name:
        return digest
    return _checked(f"{_cut(owner_name, DNS1123_SUBDOMAIN_MAX_LENGTH - len(digest) - 1)}-{digest}", "Workload")


def pod_group_name(workload_name: str, template_name: str) -> str:
    """The Job controller's PodGroup name for a template's (single) group: ``<workload>-<template>-<hash>``.

    The hash covers both full names, so truncated names that share a prefix
    still differ. Either name may be empty (upstream ``GeneratePodGroupName``):
    the other one and the hash remain.

    Examples:
        >>> pod_group_name("trainer-7dccc85c97", "trainer-pgt-0")
        'trainer-7dccc85c97-trainer-pgt-0-5bbdf84755'

    Raises:
        BuildError: the names cannot make a DNS subdomain (an upper-case letter, say).
        TypeError: a name (or index) of the wrong type.
    """
    require_str(workload_name=workload_name, template_name=template_name)
    digest = _encoded_hash(_utf8(workload_name), _utf8(template_name))
    return _checked(_join(workload_name, template_name, digest), "PodGroup")


def runtime_group_name(workload_name: str, template_name: str, indices: Sequence[int] = ()) -> str:
    """The name ``materialize`` gives one runtime group: ``<workload>-<template>[-<i>...]-<hash>``.

    ``indices`` are the instance indices of the group's replicated ancestors
    and of the group itself, outermost first (see ``materialize``). Without
    indices this is exactly ``pod_group_name``, the Job controller's name.
    With indices they follow the template name, and the hash covers the
    workload name, the template name and ``[i]`` per index (a template name
    cannot contain ``[``, so template ``a-1`` and instance 1 of template
    ``a`` get different hashes). Truncation is ``pod_group_name``'s, with
    ``<template>-<i>...`` in the template's place.

    Examples:
        >>> runtime_group_name("wl", "replica", [0])
        'wl-replica-0-548b7f657b'

    Raises:
        BuildError: a negative index, or names that cannot make a DNS subdomain.
        TypeError: a name (or index) of the wrong type.
    """
    require_str(workload_name=workload_name, template_name=template_name)
    if not indices:
        return pod_group_name(workload_name, template_name)
    if any(not is_int(i) or i < 0 for i in indices):
        raise BuildError(f"runtime group indices must be non-negative integers, got {list(indices)}")
    suffix = "".join(f"[{i}]" for i in indices)
    digest = _encoded_hash(_utf8(workload_name), _utf8(template_name), _utf8(suffix))
    middle = "-".join([template_name, *(str(i) for i in indices)])
    return _checked(_join(workload_name, middle, digest), "runtime group")


def template_name(base: str, suffix: str = "") -> str:
    """A template name derived from an object name: ``<base>-<suffix>`` when that is a DNS label.

    Template names must be DNS labels (at most 63 bytes, no dots), but object
    names may be 253-byte subdomains. When ``<base>-<suffix>`` is not a label,
    the result is ``<base'>-<hash>-<suffix>``: ``base`` with dots turned into
    dashes, cut so the whole fits in 63 bytes, and the hash (FNV-32a of
    ``<base>-<suffix>``, in the ``SafeEncodeString`` alphabet) keeps names of
    different bases apart. The Job controller does not do this and produces
    an invalid template (and so an invalid Workload) for Job names of 58 to
    63 characters or with a dot.

    Examples:
        >>> template_name("trainer", "pgt-0"), template_name("my.job", "pgt-0")
        ('trainer-pgt-0', 'my-job-7475d6f46f-pgt-0')

    Raises:
        BuildError: ``base`` is not a DNS subdomain, or ``suffix`` cannot end a DNS label.
        TypeError: a name (or index) of the wrong type.
    """
    require_str(base=base, suffix=suffix)
    natural = f"{base}-{suffix}" if suffix else base
    if not is_dns1123_label(natural):
        return natural
    problems = is_dns1123_subdomain(base)
    if problems:
        raise BuildError(f"cannot derive a template name from {go_quote(base)}: {'; '.join(problems)}")
    tail = f"-{_encoded_hash(_utf8(natural))}" + (f"-{suffix}" if suffix else "")
    room = DNS1123_LABEL_MAX_LENGTH - len(tail)
    if room < 1:
        raise BuildError(f"template name suffix {go_quote(suffix)} leaves no room for a name")
    prefix = base.replace(".", "-")[:room].rstrip("-")
    name = f"{prefix}{tail}" if prefix else tail[1:]
    problems = is_dns1123_label(name)
    if problems:
        raise BuildError(
            f"cannot derive a template name from {go_quote(base)} and {go_quote(suffix)}: {'; '.join(problems)}"
        )
    return name


def job_template_name(job_name: str, index: int = 0) -> str:
    """The Job controller's template name ``<job>-pgt-<index>``, shortened by ``template_name`` when too long.

    Raises:
        BuildError: as ``template_name``.
        TypeError: a name (or index) of the wrong type.
    """
    require_str(job_name=job_name)
    if not is_int(index):
        raise TypeError(f"index must be an int, not {type(index).__name__}")
    return template_name(job_name, f"pgt-{index}")


def require_str(**arguments: object) -> None:
    """Raise ``TypeError`` naming the first argument that is not a ``str``.

    Names are built with ``str`` methods and checked by the DNS validators;
    without this a ``None`` name would surface as an ``AttributeError`` from
    deep inside them, or (formatted into a longer name) pass as ``"None"``.

    Raises:
        TypeError: an argument is not a ``str``.
    """
    for argument, value in arguments.items():
        if not isinstance(value, str):
            raise TypeError(f"{argument} must be a str, not {type(value).__name__}")


def _join(workload: str, middle: str, digest: str) -> str:
    """``<workload>-<middle>-<digest>`` within 253 bytes, by upstream's rule for PodGroup names."""
    room = DNS1123_SUBDOMAIN_MAX_LENGTH - len(digest) - 1
    if not workload:
        return f"{_cut(middle, room)}-{digest}" if middle else digest
    if not middle:
        return f"{_cut(workload, room)}-{digest}"
    room -= 1
    if len(workload) + len(middle) > room:
        half = room // 2
        if len(workload) <= half:
            middle = _cut(middle, room - len(workload))
        elif len(middle) <= half:
            workload = _cut(workload, room - len(middle))
        else:  # both exceed half: the workload gets the odd byte
            workload, middle = _cut(workload, room - half), _cut(middle, half)
    return f"{workload}-{middle}-{digest}"


def _cut(name: str, length: int) -> str:
    """``name`` cut to ``length`` bytes; a cut that ends on a dot drops it, since ``x.-y`` is not a subdomain.

    Upstream cuts without looking, so a cut on a dot gives an invalid name;
    every other cut is byte-identical to upstream's.
    """
    if len(name) <= length:
        return name
    return name[:length].rstrip(".")


def _checked(name: str, what: str) -> str:
    problems = is_dns1123_subdomain(name)
    if problems:
        raise BuildError(f"generated {what} name {go_quote(name)} is not a valid DNS subdomain: {'; '.join(problems)}")
    return name
