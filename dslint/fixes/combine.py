"""Apply the plans of one file in a single LibCST transformer pass."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import libcst as cst

from .base import FixPlan, NodeOp, split_leading, with_blank_prefix


def _blanks(stmt: cst.BaseStatement) -> int:
    return len(split_leading(stmt.leading_lines)[0])

Group = Tuple[cst.BaseStatement, List[cst.BaseStatement], List[cst.BaseStatement], List[cst.BaseStatement]]


class Combiner(cst.CSTTransformer):
    def __init__(self, plans: Sequence[FixPlan]):
        super().__init__()
        self.node_ops: Dict[int, List[NodeOp]] = {}
        self.stmt_ops: Dict[int, list] = {}
        self.before: Dict[int, list] = {}
        self.after: Dict[int, list] = {}
        self.module_ops = []
        for plan in plans:
            for key, (_, op) in plan.node_ops.items():
                self.node_ops.setdefault(key, []).append(op)
            for table, mine in ((plan.stmt_ops, self.stmt_ops), (plan.before, self.before), (plan.after, self.after)):
                for key, ops in table.items():
                    mine.setdefault(key, []).extend(ops)
            if plan.module_op is not None:
                self.module_ops.append(plan.module_op)
        required = {}
        for plan in plans:
            for key, value in plan.requires.items():
                required.setdefault(key, value)
        for mode, anchor, build in required.values():
            if mode == "after":
                self.after.setdefault(id(anchor), []).append(build)
                continue
            # "before" the anchor, taking over its header; "section": and a blank line between
            header = list(anchor.leading_lines)
            gap = [cst.EmptyLine(indent=False)] if mode == "section" else []
            self.before.setdefault(id(anchor), []).append(
                lambda build=build, header=header: [build()[0].with_changes(leading_lines=header)]
            )
            self.stmt_ops.setdefault(id(anchor), []).append(
                lambda core, gap=gap: [core[0].with_changes(leading_lines=gap), *core[1:]] if core else core
            )

    def on_leave(self, original_node, updated_node):
        updated_node = super().on_leave(original_node, updated_node)
        for op in self.node_ops.get(id(original_node), ()):
            updated_node = op(updated_node)
        if isinstance(original_node, cst.IndentedBlock) and isinstance(updated_node, cst.IndentedBlock):
            body = self._flatten(self._close_gaps(self._groups(original_node.body, updated_node.body)))
            if not body:
                body = [cst.SimpleStatementLine([cst.Pass()])]
            updated_node = updated_node.with_changes(body=body)
        elif isinstance(original_node, cst.Module) and isinstance(updated_node, cst.Module):
            groups = self._groups(original_node.body, updated_node.body)
            if self.module_ops:
                body = self.module_ops[0](groups, updated_node)
            else:
                body = self._flatten(groups)
            updated_node = updated_node.with_changes(body=body)
        return updated_node

    def _groups(self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]) -> List[Group]:
        if len(original) != len(updated):  # a statement vanished: cannot map the operations
            raise RuntimeError("statement list changed length during a fix")
        groups: List[Group] = []
        for old, new in zip(original, updated):
            core = [new]
            for op in self.stmt_ops.get(id(old), ()):
                core = op(core)
            before = [s for build in self.before.get(id(old), ()) for s in build()]
            after = [s for build in self.after.get(id(old), ()) for s in build()]
            groups.append((old, before, core, after))
        return groups

    @staticmethod
    def _close_gaps(groups: List[Group]) -> List[Group]:
        """Where statements were removed, the next one keeps no more blank lines than they had."""
        out: List[Group] = []
        removed_blanks = None  # blank lines before the removed run; None when nothing was removed
        for old, before, core, after in groups:
            items = [*before, *core, *after]
            if not items:
                blanks = _blanks(old)
                removed_blanks = blanks if removed_blanks is None else removed_blanks
                if not out:
                    removed_blanks = 0
                out.append((old, before, core, after))
                continue
            if removed_blanks is not None:
                first = items[0]
                limit = min(_blanks(first), removed_blanks)
                fixed = with_blank_prefix(first, limit)
                if before:
                    before = [fixed, *before[1:]]
                elif core:
                    core = [fixed, *core[1:]]
                else:
                    after = [fixed, *after[1:]]
                removed_blanks = None
            out.append((old, before, core, after))
        return out

    @staticmethod
    def _flatten(groups: Sequence[Group]) -> List[cst.BaseStatement]:
        return [s for _, before, core, after in groups for s in (*before, *core, *after)]


def apply(module: cst.Module, plans: Sequence[FixPlan]) -> cst.Module:
    if not plans:
        return module
    return module.visit(Combiner(plans))
