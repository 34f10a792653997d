"""Per-process start-up of the verifier inside the target (called by sitecustomize).

Runs in the target's main process and in every spawned or forkserver-started process;
forked processes get the at-fork part. It registers the stack dump on SIGUSR1 (per pid, so
the watchdog can tell whose stack is whose), makes the requested start method the
platform default (what DSL101/DSL102 need to show on Linux) and installs the lazy
import hook that patches DataLoader (and multiprocessing's resource tracker) when the
target imports it. The target's main process asks the kernel to SIGKILL it when the
verifier dies (``PR_SET_PDEATHSIG``); the verifier's guard process kills the rest.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys

from .. import events
from . import env

_stack_file = None


def _register_stacks() -> None:
    global _stack_file
    directory = os.environ.get(env.STACKS)
    if not directory:
        return
    try:
        _stack_file = open(os.path.join(directory, f"{os.getpid()}.txt"), "w")
        faulthandler.register(signal.SIGUSR1, file=_stack_file, all_threads=True, chain=False)
    except (OSError, RuntimeError, ValueError):
        pass


def _after_fork() -> None:
    _register_stacks()
    events.emit("forked", ppid=os.getppid())


def _default_start_method() -> None:
    """Change the platform default (not the "set" method), so a target's own
    ``set_start_method`` still works and still wins, as it would on macOS/Windows."""
    method = os.environ.get(env.START_METHOD)
    if not method:
        return
    import multiprocessing.context as mpc

    ctx = getattr(mpc, "_concrete_contexts", {}).get(method)
    default = getattr(mpc, "_default_context", None)
    if ctx is not None and default is not None and getattr(default, "_actual_context", None) is None:
        default._default_context = ctx


def _die_with_verifier() -> None:
    """SIGKILL this process when the verifier's thread that started it exits."""
    parent = os.environ.get(env.PARENT)
    if not parent or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != parent:  # the verifier died before the prctl took effect
        os._exit(1)


def boot() -> None:
    if not os.environ.get(env.EVENTS):
        return
    role = "child"
    if not os.environ.get(env.ROOT_PID):
        os.environ[env.ROOT_PID] = str(os.getpid())
        role = "root"
        _die_with_verifier()
    _register_stacks()
    os.register_at_fork(after_in_child=_after_fork)
    _default_start_method()
    from . import hook

    hook.install()
    events.emit("boot", role=role, ppid=os.getppid(), argv=sys.argv[:6])
