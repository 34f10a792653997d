"""DSL301: what ``non_blocking=True`` buys on this machine, measured on the loader's own
batches.

With CUDA: whether batches arrive pinned, the host-to-device copy time and GB/s (pageable
vs pinned), how long the Python thread is blocked in ``.to()`` while the GPU is busy with
a kernel, with and without ``non_blocking=True``, and how much of the copy a side stream
hides behind compute. Without CUDA the verdict is "needs CUDA"; the cost of pinning as
written is measured by the caller (runs with and without ``pin_memory``).
"""

from __future__ import annotations

import time
from typing import Any, Dict, List

from .samples import leaves


def _tensors(batches: List[Any]) -> List[Any]:
    import torch

    return [t for b in batches for t in leaves(b) if isinstance(t, torch.Tensor)]


def probe(batches: List[Any]) -> Dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        return {"needs_cuda": True, "reason": "torch.cuda.is_available() is False"}
    tensors = _tensors(batches)
    if not tensors:
        return {"needs_cuda": False, "error": "no tensors in the batches"}
    try:
        return _measure(tensors)
    except Exception as exc:  # noqa: BLE001 - a driver error is evidence, not a crash
        return {"needs_cuda": False, "error": f"{type(exc).__name__}: {exc}"}


def _measure(tensors: List[Any]) -> Dict[str, Any]:
    import torch

    dev = torch.device("cuda")
    nbytes = sum(t.numel() * t.element_size() for t in tensors)
    pinned_in = sum(1 for t in tensors if t.is_pinned())
    pageable = [t.clone() if t.is_pinned() else t for t in tensors]
    pinned = [t if t.is_pinned() else t.pin_memory() for t in tensors]

    def gpu_copy_ms(ts: List[Any], non_blocking: bool) -> float:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for t in ts:
            t.to(dev, non_blocking=non_blocking)
        end.record()
        end.synchronize()
        return start.elapsed_time(end)

    gpu_copy_ms(pinned, True)  # warm-up: context, allocator
    a = torch.randn(2048, 2048, device=dev)
    reps = 1

    def kernel(n: int = 0) -> None:
        for _ in range(n or reps):
            a @ a

    def kernel_time() -> float:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        kernel()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)

    kernel(3)  # warm-up: cuBLAS handles
    one = max(kernel_time(), 1e-3)
    reps = max(1, min(2000, int(2 * gpu_copy_ms(pinned, True) / one) + 1))  # compute ~2x the copy
    kernel_ms = kernel_time()

    def host_blocked_ms(ts: List[Any], non_blocking: bool) -> Dict[str, float]:
        """GPU busy with a kernel; how long does the Python thread sit in .to()?"""
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        kernel()
        t1 = time.perf_counter()
        for t in ts:
            t.to(dev, non_blocking=non_blocking)
        t2 = time.perf_counter()
        torch.cuda.synchronize()
        t3 = time.perf_counter()
        return {"host_blocked_ms": round((t2 - t1) * 1e3, 3), "total_ms": round((t3 - t0) * 1e3, 3)}

    def side_stream_overlap(ts: List[Any], copy_ms: float) -> float:
        """Fraction of the copy hidden behind a kernel when copied on a side stream."""
        side = torch.cuda.Stream()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        kernel()
        with torch.cuda.stream(side):
            for t in ts:
                t.to(dev, non_blocking=True)
        end.record()
        torch.cuda.current_stream().wait_stream(side)
        end2 = torch.cuda.Event(enable_timing=True)
        end2.record()
        end2.synchronize()
        total = start.elapsed_time(end2)
        hidden = kernel_ms + copy_ms - total
        return max(0.0, min(1.0, hidden / copy_ms)) if copy_ms > 0 else 0.0

    pageable_ms = gpu_copy_ms(pageable, False)
    pinned_ms = gpu_copy_ms(pinned, True)
    blocking = host_blocked_ms(pinned, False)
    non_blocking = host_blocked_ms(pinned, True)
    return {
        "needs_cuda": False,
        "device": torch.cuda.get_device_name(0),
        "tensors": len(tensors),
        "bytes": nbytes,
        "batches_arrived_pinned": f"{pinned_in}/{len(tensors)} tensors",
        "copy_ms_pageable": round(pageable_ms, 3),
        "copy_ms_pinned": round(pinned_ms, 3),
        "gbps_pageable": round(nbytes / pageable_ms / 1e6, 2) if pageable_ms > 0 else None,
        "gbps_pinned": round(nbytes / pinned_ms / 1e6, 2) if pinned_ms > 0 else None,
        "kernel_ms": round(kernel_ms, 3),
        "kernel_reps": reps,
        "to_blocking": blocking,
        "to_non_blocking": non_blocking,
        "side_stream_overlap": round(side_stream_overlap(pinned, pinned_ms), 3),
    }
