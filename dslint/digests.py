"""blake2b and a constant-time comparison, without importing ``hashlib``/``hmac``.

Both import OpenSSL's bindings (``_hashlib``), which takes several milliseconds of every
run's start-up; dslint only needs blake2b, which CPython builds in (``_blake2``). Other
interpreters fall back to the standard modules.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - not CPython
    from hashlib import blake2b

try:
    from _operator import _compare_digest as compare_digest
except ImportError:  # pragma: no cover - not CPython
    from hmac import compare_digest

__all__ = ["blake2b", "compare_digest"]
