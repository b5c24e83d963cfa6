"""Warnings with a kind (cli/messages.py): ``-W``, ``--quiet`` and ``--strict`` read into one ``WarningPolicy``."""

from __future__ import annotations

import pytest

from workloadbuilder.adapters.sourced import Notice
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.messages import WARNING_KINDS, WarningPolicy

UID = Notice("uid", "no metadata.uid")
LOSSY = Notice("lossy", "an annotation dropped")
SKIPPED = Notice("skipped", "Service/web has no gang-scheduling content; skipped")


def test_the_warning_kinds_are_the_five_stable_ids() -> None:
    assert list(WARNING_KINDS) == ["uid", "lossy", "unknown-kind", "unused", "skipped"]


@pytest.mark.parametrize(
    ("specs", "quiet", "strict", "expected"),
    [
        ([], False, False, WarningPolicy()),
        (["no-uid"], False, False, WarningPolicy(frozenset({"uid"}))),
        (["no-uid", "no-lossy"], False, False, WarningPolicy(frozenset({"uid", "lossy"}))),
        (["ignore"], False, False, WarningPolicy(frozenset(WARNING_KINDS))),
        ([], True, False, WarningPolicy(frozenset(WARNING_KINDS))),
        (["error"], False, False, WarningPolicy(strict=True)),
        ([], False, True, WarningPolicy(strict=True)),
    ],
    ids=["none", "one-kind", "two-kinds", "ignore", "quiet", "W-error", "strict"],
)
def test_parse_reads_each_option(specs: list[str], quiet: bool, strict: bool, expected: WarningPolicy) -> None:
    assert WarningPolicy.parse(specs, quiet=quiet, strict=strict) == expected


@pytest.mark.parametrize("spec", ["no-x", "uid", "no-", "Ignore"], ids=["unknown-kind", "no-prefix", "empty", "case"])
def test_another_value_is_a_usage_error_naming_the_choices(spec: str) -> None:
    with pytest.raises(UsageError) as raised:
        WarningPolicy.parse([spec])
    assert str(raised.value) == (
        f"-W: {spec!r} is not one of ignore, error, no-uid, no-lossy, no-unknown-kind, no-unused, no-skipped"
    )


def test_shown_drops_the_silenced_kinds_and_repeated_texts_in_order() -> None:
    policy = WarningPolicy(frozenset({"lossy"}))
    again = Notice("uid", "no metadata.uid", ("metadata",))
    assert policy.shown([UID, LOSSY, SKIPPED, again]) == [again, SKIPPED]


@pytest.mark.parametrize(
    ("policy", "notices", "fails"),
    [
        (WarningPolicy(strict=True), [UID], True),
        (WarningPolicy(strict=True), [SKIPPED], False),
        (WarningPolicy(strict=True), [], False),
        (WarningPolicy(), [UID, LOSSY], False),
    ],
    ids=["strict-warning", "strict-skipped-note", "strict-nothing", "not-strict"],
)
def test_strict_fails_on_a_warning_never_on_a_skipped_note(
    policy: WarningPolicy, notices: list[Notice], fails: bool
) -> None:
    assert policy.fails(notices) is fails
