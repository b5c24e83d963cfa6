"""``python -m workloadbuilder``: the command line."""

from workloadbuilder.cli import main

raise SystemExit(main())
