"""Output formats. Each reporter turns findings into text for one audience."""

from __future__ import annotations

from typing import Callable

FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif", "junit")


def get(name: str) -> Callable:
    name = {"text": "full"}.get(name, name)
    if name in ("full", "concise"):
        from .text import render

        return lambda findings, out, **kw: render(findings, out, concise=(name == "concise"), **kw)
    if name == "json":
        from .json_format import render_json

        return render_json
    if name == "json-lines":
        from .json_format import render_json_lines

        return render_json_lines
    if name == "github":
        from .github import render

        return render
    if name == "sarif":
        from .sarif import render

        return render
    if name == "junit":
        from .junit import render

        return render
    raise KeyError(name)
