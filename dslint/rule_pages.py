"""Where the rule pages live: inside the installed package, or ``rules/`` of a checkout."""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
SEARCH = (os.path.join(_HERE, "rules"), os.path.join(os.path.dirname(_HERE), "rules"))
BLOCK = re.compile(r"^```python (bad|good|fixed)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def page_path(code: str) -> Optional[str]:
    for folder in SEARCH:
        path = os.path.join(folder, f"{code}.md")
        if os.path.isfile(path):
            return path
    return None


def page(code: str) -> Optional[str]:
    path = page_path(code)
    if path is None:
        return None
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def examples(text: str) -> List[Dict[str, str]]:
    """The executable examples of a page, in order: [{"kind": bad|good|fixed, "code": ...,
    "tags": words after the kind}]. A bad example tagged ``safe``, ``unsafe`` or ``no-fix``
    says how its fix is offered (``no-fix``: declined)."""
    return [{"kind": m.group(1), "tags": m.group(2).split(), "code": m.group(3)} for m in BLOCK.finditer(text)]
