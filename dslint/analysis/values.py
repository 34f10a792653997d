"""Static values the rules need, in the three-valued form of DESIGN §3.

``num_workers`` becomes a set of possibilities drawn from {zero, positive, unknown}:
``{zero}`` is zero, ``{positive}`` is positive, anything else is unknown; a conditional
with a zero branch is "possibly zero". Truthiness is true / false / unknown.
"""

from __future__ import annotations

import ast
import operator
from typing import FrozenSet, Optional

from .scopes import Resolver, Scope

ZERO = "zero"
POSITIVE = "positive"
UNKNOWN = "unknown"

Workers = FrozenSet[str]
W_ZERO: Workers = frozenset({ZERO})
W_POSITIVE: Workers = frozenset({POSITIVE})
W_UNKNOWN: Workers = frozenset({UNKNOWN})

CPU_COUNT_CALLS = frozenset(
    {
        "os.cpu_count",
        "multiprocessing.cpu_count",
        "torch.multiprocessing.cpu_count",
        "os.process_cpu_count",
        "psutil.cpu_count",
    }
)
CUDA_AVAILABILITY_CALLS = frozenset(
    {"torch.cuda.is_available", "torch.backends.mps.is_available", "torch.xpu.is_available"}
)

_FOLD = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def describe(workers: Workers) -> str:
    if workers == W_ZERO:
        return "zero"
    if workers == W_POSITIVE:
        return "positive"
    if ZERO in workers:
        return "possibly zero"
    return "unknown"


class Evaluator:
    def __init__(self, resolver: Resolver):
        self.resolver = resolver

    # integers -------------------------------------------------------------
    def constant_int(self, expr: ast.AST, scope: Scope, depth: int = 0) -> Optional[int]:
        if depth > 6:
            return None
        if isinstance(expr, ast.Constant) and type(expr.value) in (int, bool):
            return int(expr.value)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            inner = self.constant_int(expr.operand, scope, depth + 1)
            return -inner if inner is not None else None
        if isinstance(expr, ast.BinOp) and type(expr.op) in _FOLD:
            left = self.constant_int(expr.left, scope, depth + 1)
            right = self.constant_int(expr.right, scope, depth + 1)
            if left is None or right is None:
                return None
            try:
                return _FOLD[type(expr.op)](left, right)
            except ZeroDivisionError:
                return None
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            if found is not None:
                return self.constant_int(found[0], found[1], depth + 1)
        return None

    def workers(self, expr: Optional[ast.AST], scope: Scope, depth: int = 0) -> Workers:
        """Possibilities for a ``num_workers`` expression (None: the keyword is absent)."""
        if expr is None:
            return W_ZERO
        if depth > 6:
            return W_UNKNOWN
        value = self.constant_int(expr, scope)
        if value is not None:
            if value == 0:
                return W_ZERO
            return W_POSITIVE if value > 0 else W_UNKNOWN
        if isinstance(expr, ast.IfExp):
            return self.workers(expr.body, scope, depth + 1) | self.workers(expr.orelse, scope, depth + 1)
        if isinstance(expr, ast.BoolOp):
            result: Workers = frozenset()
            for operand in expr.values:
                result |= self.workers(operand, scope, depth + 1)
            return result
        if isinstance(expr, ast.Name):
            values = self.resolver.assigned_values(expr.id, scope)
            if values:
                result = frozenset()
                for value, owner in values:
                    result |= self.workers(value, owner, depth + 1)
                return result
            return W_UNKNOWN
        if isinstance(expr, ast.Call):
            return self._call_workers(expr, scope, depth)
        return W_UNKNOWN

    def _call_workers(self, call: ast.Call, scope: Scope, depth: int) -> Workers:
        name = self.resolver.qualname(call.func, scope)
        if name in CPU_COUNT_CALLS:
            return W_POSITIVE
        if name == "builtins.len" and call.args:
            inner = self.resolver.qualname(call.args[0].func, scope) if isinstance(call.args[0], ast.Call) else None
            if inner == "os.sched_getaffinity":
                return W_POSITIVE
        if name == "builtins.int" and len(call.args) == 1:
            return self.workers(call.args[0], scope, depth + 1)
        if name in ("builtins.min", "builtins.max") and call.args and not call.keywords:
            parts = [self.workers(arg, scope, depth + 1) for arg in call.args]
            if name == "builtins.min":
                if any(p == W_ZERO for p in parts):
                    return W_ZERO
                if all(p == W_POSITIVE for p in parts):
                    return W_POSITIVE
            else:
                if any(p == W_POSITIVE for p in parts):
                    return W_POSITIVE
                if all(p == W_ZERO for p in parts):
                    return W_ZERO
            merged: Workers = frozenset()
            for part in parts:
                merged |= part
            return merged - {POSITIVE} | {UNKNOWN} if UNKNOWN in merged else merged
        return W_UNKNOWN

    # truthiness -----------------------------------------------------------
    def truthy(self, expr: Optional[ast.AST], scope: Scope, depth: int = 0) -> str:
        """"true", "false" or "unknown" (absent keywords are false)."""
        if expr is None:
            return "false"
        if depth > 6:
            return "unknown"
        if isinstance(expr, ast.Constant):
            return "true" if expr.value else "false"
        if isinstance(expr, ast.Name):
            found = self.resolver.single_value(expr.id, scope)
            if found is not None:
                return self.truthy(found[0], found[1], depth + 1)
            return "unknown"
        if isinstance(expr, ast.Call):
            if self.resolver.qualname(expr.func, scope) in CUDA_AVAILABILITY_CALLS:
                return "true"
            return "unknown"
        if isinstance(expr, ast.IfExp):
            body = self.truthy(expr.body, scope, depth + 1)
            orelse = self.truthy(expr.orelse, scope, depth + 1)
            return body if body == orelse else "unknown"
        return "unknown"
