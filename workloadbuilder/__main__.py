"""``python -m workloadbuilder``: the command line."""

from workloadbuilder.cli.app import main

raise SystemExit(main())
