import sys

from tavla.analysis import nets

# The command line never prints a traceback: a bad TAVLA_GNUBG_NETS (or nets that cannot be
# prepared) is reported here, before the evaluator that needs them is imported with the rest.
try:
    nets.use()
except (nets.NetsError, OSError) as error:
    print(f"python -m tavla.analysis: {error}", file=sys.stderr)
    sys.exit(1)

from tavla.analysis.cli import main  # noqa: E402

sys.exit(main())
