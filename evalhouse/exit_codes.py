"""The exit codes of every `evalhouse` command, in one place: what each code means, and which codes each command can
return, so that a script or a cron job can tell bad data (1) from a command that cannot run as given (2), another
process holding what it needs (3) and a run that broke (4).

evalhouse/cli.py, ingest/cli.py and evalhouse/report/cli.py return these; `evalhouse --help` lists MEANINGS and each
command's --help its own COMMANDS entry (epilog); the README's "Exit codes" says the same, and tests/test_exit_codes.py
holds the three together. Nothing is imported here: every command's parser reads this, and `evalhouse --help` and
ingest must stay quick to start.
"""

from __future__ import annotations

import textwrap

EXIT_OK = 0
EXIT_FAILED = 1  # the data failed: a refused line (--fail-on-reject), a failed dbt build or docs
EXIT_USAGE = 2  # the command cannot run as given (argparse exits 2 too, for an argument it cannot parse)
EXIT_BUSY = 3  # another process holds what the command needs
EXIT_ERROR = 4  # the run broke for a reason outside the data (evalhouse/failures.py)
EXIT_INTERRUPTED = 130  # Ctrl+C: one line says what was kept, no traceback (EVALHOUSE_DEBUG=1 raises it)

# What each code means, whichever command returned it (`evalhouse --help`).
MEANINGS: dict[int, str] = {
    EXIT_OK: "done (an ingest that quarantined lines is done too)",
    EXIT_FAILED: "the data failed: --fail-on-reject found a refused line (or a data file left out unread), or a "
                 "dbt build or its tests failed (nothing was published), or dbt could not generate the docs",
    EXIT_USAGE: "the command cannot run as given: an argument or path that names nothing usable (a warehouse not "
                "built yet: run `evalhouse build`), an API setting or address, or a demo that would replace a "
                "warehouse holding other files",
    EXIT_BUSY: "another process holds what the command needs: an ingest or build holds the warehouse, a DuckDB "
               "connection holds its working copy (or, for a report, holds the warehouse file for writing), or the "
               "port is in use; run it again once that is over (ingest and build: --wait)",
    EXIT_ERROR: "the run broke for a reason outside the data (a full disk, a folder it may not write, a bug): one "
                "line says what and where, and names the file holding the traceback ($EVALHOUSE_DEBUG=1 prints it)",
    EXIT_INTERRUPTED: "interrupted (Ctrl+C)",
}

_BAD_ARGUMENT = "an argument it cannot use (the usage line says which)"
_WRITER_BUSY = ("another ingest or build holds the warehouse (--wait SECONDS waits for it), or another process has a "
                "DuckDB connection to its working copy (the message names the process)")

# The codes each command can return and what each means there. Every command also exits 4 when it breaks for a
# reason outside the data, and 130 when interrupted before it is done (epilog adds both).
COMMANDS: dict[str, dict[int, str]] = {
    "ingest": {
        EXIT_OK: "the run completed, whatever it quarantined (raw.quarantine keeps each refused line)",
        EXIT_FAILED: "with --fail-on-reject: a line of the inputs is refused, quarantined by this run or an "
                     "earlier one, or a data file of a folder or glob was left out unread (a .json.gz, a .csv)",
        EXIT_USAGE: "a path that names nothing to read (no such file, a glob matching no file, a folder holding no "
                    f"file evalhouse reads, a file type evalhouse does not read), or {_BAD_ARGUMENT}",
        EXIT_BUSY: _WRITER_BUSY,
    },
    "build": {
        EXIT_OK: "the build passed and was published",
        EXIT_FAILED: "a dbt model or test failed: nothing was published (the message lists each failure)",
        EXIT_USAGE: _BAD_ARGUMENT,
        EXIT_BUSY: _WRITER_BUSY,
    },
    "rebuild": {
        EXIT_OK: "rebuilt and published",
        EXIT_FAILED: "the dbt build failed: the published warehouse is unchanged",
        EXIT_USAGE: _BAD_ARGUMENT,
        EXIT_BUSY: "another ingest or build holds the warehouse, or another process has a DuckDB connection to its "
                   "working copy, read-only ones too (the message names the process)",
    },
    "docs": {
        EXIT_OK: "the docs were written",
        EXIT_FAILED: "dbt could not generate the docs (the message says why)",
        EXIT_USAGE: f"no published warehouse at --db yet: run `evalhouse build` first; or {_BAD_ARGUMENT}",
    },
    "report": {
        EXIT_OK: "the report was written (with a note on stderr when its figures are not the latest)",
        EXIT_USAGE: "no warehouse built at --db yet, or one without the report's marts: run `evalhouse build` "
                    "first; or a file that is not a DuckDB warehouse; or an argument it cannot use, such as a --week "
                    "that is no ISO week (the usage line says which)",
        EXIT_BUSY: "a DuckDB connection from outside evalhouse holds the warehouse file for writing: close it",
    },
    "demo": {
        EXIT_OK: "done: with --no-serve once the report is written, otherwise once the app is stopped (Ctrl+C)",
        EXIT_FAILED: "the demo's dbt build failed: nothing was published, no report written, no app served",
        EXIT_USAGE: f"the warehouse's manifest lists files that are not the demo's (--force replaces it), or "
                    f"{_BAD_ARGUMENT}",
        EXIT_BUSY: "the port is in use (checked before any work), or another ingest or build holds the warehouse, "
                   "or another process has a DuckDB connection to its working copy",
    },
    "serve": {
        EXIT_OK: "the app was stopped (Ctrl+C: Streamlit exits 0)",
        EXIT_USAGE: _BAD_ARGUMENT,
        EXIT_BUSY: "the port is in use: nothing was started (--port N picks another)",
    },
    "api": {
        EXIT_USAGE: "an API setting or an address it cannot listen on (the message says which), or "
                    f"{_BAD_ARGUMENT}",
        EXIT_BUSY: "the port is in use: nothing was started (--port N picks another, --port 0 a free one)",
    },
}

_INTERRUPTED = {
    "api": "stopped with Ctrl+C, after the server shut down cleanly",
    "serve": "interrupted (Ctrl+C) before the app started",
    "demo": "interrupted (Ctrl+C) before the app started",
}


# What a command stopped by Ctrl+C leaves behind, said after "evalhouse <command> stopped (Ctrl+C)".
_KEPT_WHEN_INTERRUPTED = {
    "ingest": "each file goes in whole or not at all: the files it finished are loaded, and a second run loads "
              "the rest and adds nothing twice",
    "build": "nothing was published: the app and the report show the build before; run `evalhouse build` again",
    "rebuild": "nothing was published: the app and the report show the build before; run it again",
    "demo": "its warehouse is published only if it said so before it was stopped; run it again to start over",
}


def interrupted_note(command: str) -> str:
    """'; ' and what `evalhouse <command>` stopped by Ctrl+C kept, or '' where there is nothing to say."""
    kept = _KEPT_WHEN_INTERRUPTED.get(command)
    return f"; {kept}" if kept else ""


def command_codes(command: str) -> dict[int, str]:
    """Every code `evalhouse <command>` can return, in order, with what it means there."""
    codes = {**COMMANDS[command], EXIT_ERROR: MEANINGS[EXIT_ERROR],
             EXIT_INTERRUPTED: _INTERRUPTED.get(command, MEANINGS[EXIT_INTERRUPTED])}
    return dict(sorted(codes.items()))


def epilog(codes: dict[int, str]) -> str:
    """'exit codes:' and each code with its meaning, wrapped, for an argparse epilog (RawDescriptionHelpFormatter)."""
    lines = ["exit codes:"]
    for code, meaning in codes.items():
        lines += textwrap.wrap(meaning, 78, initial_indent=f"  {code:<5}", subsequent_indent=" " * 7)
    return "\n".join(lines)
