"""Regenerate ``legal_plays.json``: reference positions with GNU Backgammon's legal plays.

Run from the repository root with gnubg installed::

    .venv/bin/python tests/engine/data/make_reference.py

The file holds the rule examples of ``test_legal_rules.py`` and a seeded sample of positions
from every phase of the game (``test_gnubg_positions.sample_cases``, with its own seed), each
with gnubg's set of resulting Position IDs and gnubg's notation of every play. The tests
read it without needing gnubg, the way python-chess keeps perft counts in its repository.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.engine.gnubg_ref import gnubg_legal_results, gnubg_version  # noqa: E402
from tests.engine.test_gnubg_positions import sample_cases  # noqa: E402
from tests.engine.test_legal_rules import RULE_EXAMPLES  # noqa: E402

OUTPUT = Path(__file__).with_name("legal_plays.json")
SAMPLE_SEED = 2024
SAMPLE_SIZE = 400


def main() -> None:
    cases = [(name, position.to_id(), d1, d2) for name, position, d1, d2, _ in RULE_EXAMPLES]
    cases += [(phase, pid, d1, d2) for pid, d1, d2, phase in sample_cases(SAMPLE_SEED,
                                                                            SAMPLE_SIZE)]
    answers = gnubg_legal_results([(pid, d1, d2) for _, pid, d1, d2 in cases])
    entries = []
    for (name, pid, d1, d2), answer in zip(cases, answers, strict=True):
        if "error" in answer:
            raise SystemExit(f"gnubg failed on {pid} {d1}-{d2}: {answer['error']}")
        entries.append({"name": name, "position_id": pid, "dice": [d1, d2],
                        "results": answer["results"], "gnubg_plays": sorted(answer["moves"])})
    # One case per line: small diffs when the file is regenerated.
    lines = ",\n".join("  " + json.dumps(entry) for entry in entries)
    OUTPUT.write_text(
        "{\n"
        ' "about": "Legal plays by GNU Backgammon; regenerate with make_reference.py",\n'
        f' "generator": {json.dumps(gnubg_version())},\n'
        f' "cases": [\n{lines}\n ]\n'
        "}\n"
    )
    print(f"wrote {len(entries)} cases to {OUTPUT}")


if __name__ == "__main__":
    main()
