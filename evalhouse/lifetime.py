"""A child process that ends with its parent: dbt's process under `evalhouse build`, and the ingest's
classification workers. Killed with SIGKILL (the OOM killer, `kill -9`), a parent runs no clean-up, and a child
left behind goes on holding the warehouse's lock (dbt) or a core (an ingest worker waits on its parent's pipe
for ever)."""

from __future__ import annotations

import ctypes
import os
import signal


def die_with_parent(parent_pid: int) -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False if the parent is gone already."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (AttributeError, OSError):
        pass  # not Linux: the parent's end is checked below only
    return os.getppid() == parent_pid  # checked after prctl: a parent that died before it is caught here
