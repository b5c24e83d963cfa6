"""defer_package_init: ``kubernetes.client`` without the ``kubernetes`` package's ``__init__``, in a fresh process.

Each case runs a short script in a child interpreter (the test process has long imported ``kubernetes``)
and compares what it prints.
"""

from __future__ import annotations

import subprocess
import sys

PRELUDE = """
import sys
from workloadbuilder._internal.kubernetes import defer_package_init
defer_package_init()
"""


def _run(script: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_client_imports_without_the_eager_submodules():
    lines = _run(
        "import kubernetes.client\n"
        "print(kubernetes.client.V1Job.__name__)\n"
        "print(sorted(m for m in ('kubernetes.config', 'kubernetes.watch', 'kubernetes.stream') if m in sys.modules))\n"
    )
    assert lines == ["V1Job", "[]"]


def test_a_submodule_named_as_an_attribute_is_imported_on_first_use():
    lines = _run(
        "import kubernetes\n"
        "print('kubernetes.watch' in sys.modules)\n"
        "print(kubernetes.watch.__name__)\n"
        "print('kubernetes.watch' in sys.modules)\n"
    )
    assert lines == ["False", "kubernetes.watch", "True"]


def test_any_other_attribute_runs_the_real_init_once():
    lines = _run(
        "import kubernetes\n"
        "print('kubernetes.config' in sys.modules)\n"
        "version = kubernetes.__version__\n"
        "print(isinstance(version, str) and bool(version), 'kubernetes.config' in sys.modules)\n"
        "print(kubernetes.__version__ == version)\n"
    )
    assert lines == ["False", "True True", "True"]


def test_an_unknown_attribute_is_an_attribute_error():
    lines = _run(
        "import kubernetes\ntry:\n    kubernetes.no_such_name\nexcept AttributeError as error:\n    print(error)\n"
    )
    assert lines == ["module 'kubernetes' has no attribute 'no_such_name'"]


def test_a_second_call_keeps_the_deferred_package():
    lines = _run(
        "before = sys.modules['kubernetes']\n"
        "defer_package_init()\n"
        "print(sys.modules['kubernetes'] is before, 'kubernetes.config' in sys.modules)\n"
    )
    assert lines == ["True False"]


def test_a_package_imported_for_real_first_is_left_alone():
    script = (
        "import sys\n"
        "import kubernetes\n"
        "real = sys.modules['kubernetes']\n"
        "from workloadbuilder._internal.kubernetes import defer_package_init\n"
        "defer_package_init()\n"
        "print(sys.modules['kubernetes'] is real, 'kubernetes.config' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stdout.splitlines()) == (0, ["True True"])
