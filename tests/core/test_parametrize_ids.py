"""tests/conftest.py fails collection on a parametrized test without ids, so every table names its cases."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

_CASES = {
    "no-ids": ('@pytest.mark.parametrize("n", [1, 2])', 4),
    "ids": ('@pytest.mark.parametrize("n", [1, 2], ids=["one", "two"])', 0),
    "param-ids": ('@pytest.mark.parametrize("n", [pytest.param(1, id="one"), pytest.param(2, id="two")])', 0),
    "one-param-without-id": ('@pytest.mark.parametrize("n", [pytest.param(1, id="one"), 2])', 4),
}


@pytest.mark.parametrize(("decorator", "exit_code"), list(_CASES.values()), ids=list(_CASES))
def test_a_parametrize_needs_ids(pytester: pytest.Pytester, decorator: str, exit_code: int) -> None:
    pytester.makeconftest(CONFTEST.read_text().replace('pytest_plugins = ["pytester"]\n', ""))
    tests = pytester.mkdir("tests")
    (tests / "test_table.py").write_text(f"import pytest\n\n\n{decorator}\ndef test_n(n):\n    assert n\n")
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == exit_code
    if exit_code:
        assert "parametrize without ids (pass ids=...): tests/test_table.py::test_n" in result.stderr.str()
