"""`python -m arbitro.cli`: the `arbitro` command."""

from arbitro.cli.main import main

raise SystemExit(main())
