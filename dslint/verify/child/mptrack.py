"""Record the named semaphores and shared-memory segments the target registers with
multiprocessing's resource tracker.

The tracker unlinks them when the target ends normally; killed with the rest of the
session it cannot, and ``sem.mp-*`` or a user's ``SharedMemory`` segment would stay in
``/dev/shm``. Each registration becomes an event, so the supervisor (or the guard, if the
verifier itself was killed) unlinks whatever is still registered after the kill.
"""

from __future__ import annotations

from typing import Any

from .. import events

_ATTR = "_dslint_verify_patched"


def _wrap(inner: Any, kind: str) -> Any:
    def call(name, rtype):
        events.emit(kind, name=name, rtype=rtype)
        return inner(name, rtype)

    setattr(call, _ATTR, True)
    return call


def install(module: Any) -> None:
    for attr, kind in (("register", "mp_register"), ("unregister", "mp_unregister")):
        inner = getattr(module, attr, None)
        if inner is not None and not getattr(inner, _ATTR, False):
            setattr(module, attr, _wrap(inner, kind))
