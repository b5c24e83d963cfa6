"""Reporting validation results the way the tools people already read do it.

kubectl's messages (``text``), JSON and YAML records, GitHub annotations, and
for CI test reports JUnit XML and TAP (version 13), each object one test.
Every format can end with kubeconform's summary, ``N objects: V valid, I
invalid, S skipped``, followed by what the checks are for (the Kubernetes
version and the feature gates).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from workloadbuilder._internal.gofmt import go_escaped
from workloadbuilder.adapters.document_reports import ObjectReport
from workloadbuilder.adapters.sourced import Notice
from workloadbuilder.cli.positions import Positions

__all__ = ["render", "summary_line"]


def render(
    reports: Sequence[ObjectReport],
    output: str,
    positions: Mapping[str, Positions] | None = None,
    profile: str = "",
    summary: bool = False,
) -> str:
    """All reports in one of the formats ``text``, ``json``, ``yaml``, ``github``, ``junit`` or ``tap``.

    ``positions`` (by source) gives GitHub annotations the line and column
    of each offending field; without it they name only the file. ``profile``
    says what the checks are for (``Kubernetes 1.37, feature gates: all``):
    JUnit and TAP always carry it with the counts, ``text`` and ``github``
    end with the ``summary_line`` when ``summary`` is asked for.
    """
    if output in ("json", "yaml"):
        records = [v.as_dict() for v in reports]
        if output == "yaml":
            from workloadbuilder.cli.answer_dump import dumped

            return dumped(records, "yaml")  # the answers' YAML writer: a control character is escaped, never raw
        return json.dumps(records, indent=2) + "\n"
    if output == "junit":
        return _junit(reports, profile)
    if output == "tap":
        return _tap(reports, profile)
    if output == "github":
        lines = [line + "\n" for report in reports for line in _annotations(report, positions or {})]
        if summary:
            lines.append(f"::notice title=workloadbuilder validate::{_gh_data(summary_line(reports, profile))}\n")
        return "".join(lines)
    out: list[str] = []
    for report in reports:
        out.extend(f"{_label(notice)}: {notice.text}\n" for notice in report.notices)
        if report.checked:
            message = report.kubectl()
            out.append(f"{report.about()}: {message}" if message else f'{report.kind} "{report.name}" is valid\n')
    if summary:
        out.append(summary_line(reports, profile) + "\n")
    return "".join(out)


def summary_line(reports: Sequence[ObjectReport], profile: str) -> str:
    """kubeconform's count: ``N objects: V valid, I invalid, S skipped (profile)``; not checked is skipped."""
    valid = sum(1 for v in reports if v.checked and not v.errors)
    invalid = sum(1 for v in reports if v.checked and v.errors)
    skipped = len(reports) - valid - invalid
    count = f"{len(reports)} object{'' if len(reports) == 1 else 's'}"
    return f"{count}: {valid} valid, {invalid} invalid, {skipped} skipped" + (f" ({profile})" if profile else "")


def _junit(reports: Sequence[ObjectReport], profile: str) -> str:
    """JUnit XML: a ``testsuite`` per file, a ``testcase`` per object (``failure`` when invalid, ``skipped``
    when not checked, warnings as its ``system-out``); the profile in each suite's ``properties``."""
    from xml.etree import ElementTree as ET

    root = ET.Element("testsuites", name=_xml(f"workloadbuilder validate ({profile})" if profile else "validate"))
    _counts(root, reports)
    for source in dict.fromkeys(v.source for v in reports):
        mine = [v for v in reports if v.source == source]
        suite = ET.SubElement(root, "testsuite", name=_xml(source))
        _counts(suite, mine)
        if profile:
            properties = ET.SubElement(suite, "properties")
            for name, value in _profile_properties(profile):
                ET.SubElement(properties, "property", name=name, value=_xml(value))
        for report in mine:
            case = ET.SubElement(
                suite,
                "testcase",
                name=_xml(f"{report.kind}/{report.name} ({report.document_place()})"),
                classname=_xml(source),
                file=_xml(source),
            )
            if report.errors:
                texts = list(dict.fromkeys(str(err) for err in report.errors))
                failure = ET.SubElement(
                    case, "failure", message=_xml(f'The {report.kind} "{report.name}" is invalid'), type="invalid"
                )
                failure.text = _xml("".join(f"{text}\n" for text in texts))
            elif not report.checked:
                ET.SubElement(case, "skipped", message=_xml(_skip_reason(report)))
            if report.notices and (report.checked or len(report.notices) > 1):
                ET.SubElement(case, "system-out").text = _xml(
                    "".join(f"{_label(notice)}: {notice.text}\n" for notice in report.notices)
                )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _skip_reason(report: ObjectReport) -> str:
    """Why an object was not checked: its first note, less the ``file (document N) Kind/name: `` it starts with."""
    notes = [notice.text.removeprefix(f"{report.about()}: ") for notice in report.notices]
    return notes[0] if notes else "not checked"


def _counts(element: Any, reports: Sequence[ObjectReport]) -> None:
    element.set("tests", str(len(reports)))
    element.set("failures", str(sum(1 for v in reports if v.checked and v.errors)))
    element.set("errors", "0")
    element.set("skipped", str(sum(1 for v in reports if not v.checked)))


def _profile_properties(profile: str) -> list[tuple[str, str]]:
    """``Kubernetes 1.37, feature gates: all`` as JUnit properties: ``kubernetes`` 1.37, ``feature-gates`` all."""
    version, _, gates = profile.partition(", feature gates: ")
    return [("kubernetes", version.removeprefix("Kubernetes ")), ("feature-gates", gates)]


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold, escaped or not."""


def _xml(text: str) -> str:
    """``text`` with each character XML 1.0 cannot hold written as Go's ``\\xNN`` / ``\\uNNNN`` would."""
    return _NOT_XML.sub(lambda found: _escaped(found.group()), text)


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def _tap(reports: Sequence[ObjectReport], profile: str) -> str:
    """TAP version 13: the plan, then ``ok``/``not ok`` per object (a skipped one ``# SKIP`` with its note), its
    errors and warnings in a YAML block, and the ``summary_line`` as the last comment."""
    from workloadbuilder.cli.answer_dump import dumped

    lines = ["TAP version 13", f"1..{len(reports)}"]
    for number, report in enumerate(reports, start=1):
        status = "not ok" if report.errors else "ok"
        line = f"{status} {number} - {_tap_text(report.about())}"
        if not report.checked:
            line += f" # SKIP {_tap_text(_skip_reason(report))}"
        lines.append(line)
        block: dict[str, Any] = {}
        if report.errors:
            block["message"] = f'The {report.kind} "{report.name}" is invalid'
            block["errors"] = list(dict.fromkeys(str(err) for err in report.errors))
        if report.checked and report.notices:
            block["warnings"] = [f"{_label(notice)}: {notice.text}" for notice in report.notices]
        if block:
            text = dumped(block, "yaml")  # a control character or line break escaped, never raw
            lines += ["  ---", *(f"  {row}" for row in text.split("\n") if row), "  ..."]
    lines.append(f"# {summary_line(reports, profile)}")
    return "".join(f"{line}\n" for line in lines)


def _tap_text(text: str) -> str:
    """A test line's description: one line with no ``#`` (which starts a directive; TAP 13 has no escape for it),
    so ``#`` is written ``\\x23``, a backslash doubled, a line feed ``\\n`` and every other character Go's
    ``strconv.IsPrint`` refuses escaped as Go quotes it."""
    return go_escaped(text.replace("\\", "\\\\").replace("#", "\\x23").replace("\n", "\\n"))


def _label(notice: Notice) -> str:
    """``Note`` for a skipped object, ``Warning`` for everything else."""
    return "Note" if notice.kind == "skipped" else "Warning"


def _annotations(report: ObjectReport, positions: Mapping[str, Positions]) -> list[str]:
    """GitHub workflow commands for one report: ``::error file=F,line=L,col=C,title=T::message`` and warnings."""
    found = positions.get(report.source)

    def where(loc: Sequence[str | int]) -> str:
        path = loc if report.item is None else ("items", report.item - 1, *loc)
        place = found.find(report.document, path) if found is not None else None
        at = f",line={place[0]},col={place[1]}" if place is not None else ""
        return f"file={_gh_property(report.source)}{at}"

    title = _gh_property(f"{report.kind} {report.name} is invalid")
    lines = [f"::error {where(err.loc())},title={title}::{_gh_data(str(err))}" for err in report.errors]
    lines += [f"::warning {where(notice.loc)}::{_gh_data(notice.text)}" for notice in report.notices]
    return lines


def _gh_data(text: str) -> str:
    """GitHub workflow-command escaping of a message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    """GitHub workflow-command escaping of a property value."""
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")
