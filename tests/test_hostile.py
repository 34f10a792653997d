"""Hostile inputs through the real CLI: every bad file reported once, the rest linted.

A bad file here mentions a DataLoader so that dslint must parse it (files that mention
nothing dslint looks for are never parsed, by design of the pre-filter).
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from .conftest import run_cli

HEADER = "from torch.utils.data import DataLoader\n"
HAZARD = HEADER + "\ndef main(ds):\n    return DataLoader(ds, persistent_workers=True)\n"


def snapshot(root):
    state = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path) or ".dslint_cache" in path:
                continue  # links and FIFOs are not content (and opening a FIFO blocks)
            try:
                with open(path, "rb") as handle:
                    state[path] = hashlib.sha256(handle.read()).hexdigest()
            except OSError:
                state[path] = None
    return state


@pytest.fixture
def hostile_tree(tmp_path):
    def put(name, data):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return path

    put("syntax_error.py", HEADER + "def broken(:\n    pass\n")
    put("python2.py", HEADER + 'print "hello"\n')
    put("binary.py", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    put("nul_byte.py", HEADER.encode() + b"x = 1\x00\n")
    put("latin1_undeclared.py", HEADER.encode() + b"name = '\xe9t\xe9'\n")
    put("latin1_declared.py", b"# -*- coding: latin-1 -*-\n" + HEADER.encode() + b"name = '\xe9t\xe9'\n")
    put("bad_declaration.py", b"# -*- coding: klingon -*-\n" + HEADER.encode())
    put("bom.py", b"\xef\xbb\xbf" + HAZARD.encode())
    put("crlf.py", HAZARD.replace("\n", "\r\n").encode())
    put("empty.py", b"")
    put("huge_literal.py", HEADER + "DATA = [" + ", ".join("1" for _ in range(400_000)) + "]\n")
    put("deep_parens.py", HEADER + "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n")
    put("deep_lists.py", HEADER + "x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    put("long_chain.py", HEADER + "x = " + " + ".join("1" for _ in range(100_000)) + "\n")
    put("deep_calls.py", HEADER + "x = " + "f(" * 150 + ")" * 150 + "\n")
    (tmp_path / "folder.py").mkdir()
    put("folder.py/inner.py", HAZARD)
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    os.symlink(tmp_path / "loop_a.py", tmp_path / "loop_b.py")
    os.symlink(tmp_path / "loop_b.py", tmp_path / "loop_a.py")
    os.symlink(tmp_path, tmp_path / "folder.py" / "back_to_root")
    os.mkfifo(tmp_path / "fifo.py")
    return tmp_path


def test_hostile_tree(hostile_tree):
    before = snapshot(hostile_tree)
    result = run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=hostile_tree)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)
    by_file = {}
    for item in findings:
        by_file.setdefault(item["filename"], []).append(item)

    def reason(name):
        (item,) = [f for f in by_file.pop(name) if f["code"] == "DSL001"]
        return item["message"], item["location"]["row"]

    assert "syntax error" in reason("syntax_error.py")[0]
    assert "syntax error" in reason("python2.py")[0]
    assert "NUL" in reason("binary.py")[0]
    assert "NUL" in reason("nul_byte.py")[0]
    message, row = reason("latin1_undeclared.py")
    assert "decode" in message and row == 2
    assert "encoding" in reason("bad_declaration.py")[0]
    assert "nested" in reason("deep_parens.py")[0] or "syntax error" in reason("deep_parens.py")[0]
    assert "dangling" in reason("dangling.py")[0]
    assert "loop" in reason("loop_a.py")[0] and "loop" in reason("loop_b.py")[0]
    assert "regular file" in reason("fifo.py")[0]
    # too deep for CPython's parser: reported, never a crash (the deep list may also parse)
    assert "nested" in reason("long_chain.py")[0]
    by_file.pop("deep_lists.py", None)
    # what is left are the real findings in the good files, each once
    assert sorted((name, [f["code"] for f in items]) for name, items in by_file.items()) == [
        ("bom.py", ["DSL201"]),
        ("crlf.py", ["DSL201"]),
        ("folder.py/inner.py", ["DSL201"]),
    ]
    assert snapshot(hostile_tree) == before


def test_python2_file_reports_line(hostile_tree):
    result = run_cli("check", "python2.py", "--output-format", "concise", "--no-cache", cwd=hostile_tree)
    assert result.returncode == 1
    assert result.stdout.startswith("python2.py:2:") and "DSL001" in result.stdout


def test_unreadable_file_and_file_deleted_after_discovery(tmp_path, monkeypatch):
    from dslint import config, discovery, engine

    (tmp_path / "gone.py").write_text(HAZARD)
    (tmp_path / "locked.py").write_text(HAZARD)
    (tmp_path / "ok.py").write_text(HAZARD)
    original = discovery.Discovery.files

    def files_then_delete(self, targets):
        found = original(self, targets)
        os.remove(tmp_path / "gone.py")
        return found

    real_open = open

    def guarded_open(path, *args, **kwargs):
        if str(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(discovery.Discovery, "files", files_then_delete)
    monkeypatch.setattr("builtins.open", guarded_open)
    settings = config.Settings(root=str(tmp_path), cache=False, jobs=1)
    findings = engine.run([str(tmp_path)], settings).findings
    got = {(os.path.basename(f.path), f.code): f.message for f in findings}
    assert "no such file" in got[("gone.py", "DSL001")]
    assert "Permission denied" in got[("locked.py", "DSL001")]
    assert ("ok.py", "DSL201") in got
