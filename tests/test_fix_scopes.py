"""The scoping facts the moving fixes (DSL101, DSL102) rely on, checked against Python itself."""

from __future__ import annotations

import ast
import symtable
import textwrap

import pytest

from dslint.fixes import importers, scopes

SOURCES = {
    "closure": """
        def make(scale, items):
            offset = 1
            return lambda b, s=scale: [x * s + offset for x in b if x in items]
    """,
    "comprehension": """
        def make(rows):
            return [lambda r: r + row for row in rows]
    """,
    "class-body": """
        def make(n):
            class Local:
                size = n
                def get(self):
                    return size, n
            return Local
    """,
    "nested": """
        def outer(a, b):
            def inner(c):
                def deepest():
                    return a + c
                return deepest
            return inner
    """,
}


def _python_frees(source: str, name: str):
    """The free variables Python's own compiler gives the function called ``name``."""
    table = symtable.symtable(source, "<test>", "exec")
    stack = [table]
    while stack:
        current = stack.pop()
        if current.get_type() == "function" and current.get_name() == name:
            return set(current.get_frees())
        stack.extend(current.get_children())
    raise LookupError(name)


@pytest.mark.parametrize("key,function", [("closure", "lambda"), ("comprehension", "lambda"),
                                          ("class-body", "get"), ("nested", "inner")])
def test_outer_reads_match_the_compiler(key, function):
    source = textwrap.dedent(SOURCES[key])
    tree = ast.parse(source)
    target = next(n for n in ast.walk(tree)
                  if (isinstance(n, ast.Lambda) and function == "lambda")
                  or (isinstance(n, ast.FunctionDef) and n.name == function))
    chain = scopes.chain_to(tree, target)
    enclosing = {n for s in chain if not isinstance(s, ast.ClassDef) for n in scopes.bound_in(s)}
    assert scopes.outer_reads(target) & enclosing == _python_frees(source, function)


def test_module_constants_are_bound_once_to_a_literal():
    tree = ast.parse("A = 1\nB = [1, 2]\nC = f()\nD = 1\nD = 2\nE = 3\ndef g():\n    global E\n    E = 4\n")
    assert scopes.module_constants(tree) == {"A", "B"}


def test_private_names_are_the_mangled_ones():
    assert scopes.is_private("__scale") and not scopes.is_private("__init__") and not scopes.is_private("_x")


def _tree(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    importers._index.cache_clear()


def test_importers_absolute_relative_and_whole(tmp_path):
    _tree(tmp_path, {
        "proj/train.py": "loader = 1\n",
        "proj/report.py": "from train import loader, steps\n",
        "proj/pkg/__init__.py": "",
        "proj/pkg/train.py": "x = 1\n",
        "proj/pkg/eval.py": "from .train import x\n",
        "proj/other/train.py": "y = 1\n",
        "proj/uses_other.py": "from other.train import y\n",
    })
    assert importers.names_imported_from(str(tmp_path / "proj/train.py")) == {"loader", "steps"}
    assert importers.names_imported_from(str(tmp_path / "proj/pkg/train.py")) == {"x"}
    _tree(tmp_path, {"proj/whole.py": "import train\n"})
    assert importers.names_imported_from(str(tmp_path / "proj/train.py")) is importers.EVERYTHING


def test_importers_never_follow_a_symlink(tmp_path):
    _tree(tmp_path, {"proj/train.py": "loader = 1\n", "outside/spy.py": "from train import loader\n"})
    (tmp_path / "proj" / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "proj" / "spy.py").symlink_to(tmp_path / "outside" / "spy.py")
    importers._index.cache_clear()
    assert importers.names_imported_from(str(tmp_path / "proj/train.py")) == frozenset()
