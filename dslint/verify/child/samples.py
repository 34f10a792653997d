"""Sample identities: hash each sample of a collated batch (DSL401 duplicates).

A batch's tensors share a first dimension, the batch size; row i of every tensor leaf is
sample i. Hashing rows (not batches) is what shows that two workers yielded the same
samples even when they batch them differently.
"""

from __future__ import annotations

import hashlib
from typing import Any, List

_MAX_BYTES = 64 << 20


def _leaves(obj: Any, out: List[Any]) -> None:
    if isinstance(obj, dict):
        for key in sorted(obj, key=repr):
            _leaves(obj[key], out)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _leaves(item, out)
    else:
        out.append(obj)


def leaves(batch: Any) -> List[Any]:
    out: List[Any] = []
    _leaves(batch, out)
    return out


def _row_bytes(leaf: Any, i: int) -> bytes:
    row = leaf[i]
    if hasattr(row, "detach"):
        row = row.detach().cpu().contiguous().numpy()
    if hasattr(row, "tobytes"):
        return row.tobytes()
    return repr(row).encode()


def sample_hashes(batch: Any) -> List[str]:
    """One digest per sample, or one for the whole batch when rows cannot be told apart."""
    parts = leaves(batch)
    sized = [p for p in parts if hasattr(p, "shape") and len(getattr(p, "shape", ())) > 0]
    total = sum(int(getattr(p, "nbytes", 0) or 0) for p in sized)
    if not sized or total > _MAX_BYTES:
        return [hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()]
    n = sized[0].shape[0]
    if any(p.shape[0] != n for p in sized):
        n = 1
        sized = [p.reshape(1, -1) if hasattr(p, "reshape") else p for p in sized]
    out = []
    for i in range(n):
        digest = hashlib.blake2b(digest_size=8)
        for leaf in sized:
            digest.update(_row_bytes(leaf, i))
        out.append(digest.hexdigest())
    return out


def batch_nbytes(batch: Any) -> int:
    return sum(int(getattr(p, "nbytes", 0) or 0) for p in leaves(batch) if hasattr(p, "shape"))
