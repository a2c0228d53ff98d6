"""A command that broke for a reason outside the data (a full disk, a folder it may not write, a bug): one line that
says what failed, where and what to do, and the traceback kept in a file for whoever looks into it.

A script or a cron job tells this from bad data by the exit code alone (evalhouse/exit_codes.py's EXIT_ERROR), so a
refused line (exit 1) never reads as a broken run, nor a broken run as a refused line.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import TextIO

DEBUG_VARIABLE = "EVALHOUSE_DEBUG"  # "1": print the traceback on stderr instead of saving it to a file


def report_failure(exc: BaseException, command: str, *, err: TextIO | None = None) -> None:
    """Tell the person or the script that ran `evalhouse <command>` that it broke: with EVALHOUSE_DEBUG=1 the
    traceback and the line, otherwise the line alone, naming the file the traceback was saved to."""
    err = err or sys.stderr
    text = "".join(traceback.format_exception(exc))
    if os.environ.get(DEBUG_VARIABLE) == "1":
        err.write(text)
        err.write(f"evalhouse: {command} failed: {_what_and_where(exc)}. {_what_to_do(exc)}\n")
        return
    saved = _save(text, command)
    kept = (f"The traceback is in {saved} ({DEBUG_VARIABLE}=1 prints it instead)." if saved is not None else
            f"The traceback could not be saved to a file either, so here it is:\n{text.rstrip()}")
    err.write(f"evalhouse: {command} failed: {_what_and_where(exc)}. {_what_to_do(exc)} {kept}\n")


def _what_and_where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    place = f" (in {Path(frames[-1].filename).name}:{frames[-1].lineno}, {frames[-1].name})" if frames else ""
    if isinstance(exc, OSError):
        what = exc.strerror or str(exc) or type(exc).__name__
        return f"{what}: {exc.filename}" if exc.filename is not None else f"{what}{place}"
    return f"{type(exc).__name__}: {exc}{place}"


def _what_to_do(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return ("Nothing says the input's records are at fault: check this path (a folder where one is needed, "
                "that this user may read it or write there, that its disk has room), then run the command again.")
    return ("This is a bug in evalhouse, not a problem with the input's records: report it with the traceback, and "
            "run the command again once it is fixed.")


def _save(text: str, command: str) -> Path | None:
    """The traceback in a new file of the temporary folder ($TMPDIR), or None when that cannot be written (the
    disk that is full may be that one too)."""
    try:
        fd, name = tempfile.mkstemp(prefix=f"evalhouse-{command}-failure-", suffix=".txt")
    except OSError:
        return None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError:
        Path(name).unlink(missing_ok=True)
        return None
    return Path(name)
