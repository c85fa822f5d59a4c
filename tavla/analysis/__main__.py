import sys

from tavla.analysis.cli import main

sys.exit(main())
