"""A fast password hasher for tests: Django's PBKDF2 with a single iteration.

The hashes it writes are ordinary ``pbkdf2_sha256`` hashes that carry their iteration count,
so a server or worker the tests start (with the production hashers) verifies them too. Only
the cost differs: PBKDF2's 10^6 iterations took half the time of a sample of the suite.
"""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FastPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
