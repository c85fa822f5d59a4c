"""``python -m tavla.engine``: see :mod:`tavla.engine.cli`."""

from tavla.engine.cli import main

raise SystemExit(main())
