"""The `evalhouse` command: argument parsing and exit codes only; each subcommand calls into a library module.
The codes, and which each command returns, are evalhouse/exit_codes.py's."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections.abc import Sequence

from evalhouse.exit_codes import (
    EXIT_BUSY, EXIT_ERROR, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, MEANINGS, command_codes, epilog,
    interrupted_note,
)
from evalhouse.failures import DEBUG_VARIABLE, report_failure
from evalhouse.lock import WarehouseBusy, WriterHeld
from evalhouse.ports import PortInUse
from evalhouse.report import cli as report_cli
from evalhouse.settings import Settings, resolve
from ingest import cli as ingest_cli
from ingest.sources import InputError

def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    settings = resolve(getattr(args, "db", None), getattr(args, "landing", None))
    try:
        return args.handler(args, settings)
    except WriterHeld as exc:
        print(f"evalhouse: {exc}{_wait_hint(args)}", file=sys.stderr)
        return EXIT_BUSY
    except (WarehouseBusy, PortInUse) as exc:
        print(f"evalhouse: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except InputError as exc:
        print(f"evalhouse: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if os.environ.get(DEBUG_VARIABLE) == "1":
            raise  # the traceback, for whoever is looking into where it stopped
        print(f"evalhouse: {args.command} stopped (Ctrl+C){interrupted_note(args.command)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        report_failure(exc, args.command)
        return EXIT_ERROR


def _wait_hint(args: argparse.Namespace) -> str:
    """What a command with --wait (ingest, build) adds to "wait for it to finish and retry"; nothing for the others
    (rebuild, demo), which have no such option."""
    if not hasattr(args, "wait"):
        return ""
    if args.wait > 0:
        return f" (this run waited {args.wait:g} s for it: a longer --wait SECONDS waits longer)"
    return ", or add --wait SECONDS to have this command wait for it"


def _parser() -> argparse.ArgumentParser:
    # --db and --landing work before or after the subcommand; the subcommand's copy must not reset them.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=argparse.SUPPRESS,
                        help="the DuckDB file (default: $EVALHOUSE_DB or warehouse/evalhouse.duckdb)")
    common.add_argument("--landing", default=argparse.SUPPRESS,
                        help="the landing folder (default: $EVALHOUSE_LANDING or landing/)")
    parser = argparse.ArgumentParser(prog="evalhouse", parents=[common],
                                     description="A warehouse for LLM eval results.", epilog=epilog(MEANINGS),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)

    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, **kwargs) -> argparse.ArgumentParser:
        """A subcommand whose --help ends with the exit codes it can return."""
        return subparsers.add_parser(name, epilog=epilog(command_codes(name)),
                                     formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)

    # Writers may wait for the lock a little (an API posting steadily holds it briefly and often).
    waiting = argparse.ArgumentParser(add_help=False)
    waiting.add_argument("--wait", type=float, default=0, metavar="SECONDS",
                         help="if another ingest or build holds the warehouse, wait up to this long (default 0)")

    ingest = command("ingest", parents=[common, waiting], help="validate and load eval records")
    ingest_cli.add_arguments(ingest)
    ingest.set_defaults(handler=_ingest)

    build = command("build", parents=[common, waiting],
                    help="run dbt build on the working copy and publish it if it passed")
    build.set_defaults(handler=_build)

    rebuild = command("rebuild", parents=[common],
                      help="recreate the warehouse from every file ingested before plus the landing folder")
    rebuild.set_defaults(handler=_rebuild)

    docs = command("docs", parents=[common],
                   help="generate dbt docs of the published warehouse into target/, reading it read-only")
    docs.set_defaults(handler=_docs)

    report = command("report", parents=[common], help="write the weekly quality report (HTML or Markdown)")
    report_cli.add_arguments(report)
    report.set_defaults(handler=_report)

    demo = command("demo", parents=[common],
                   help="generate sample data into <landing>/demo, build a warehouse from it alone, write "
                        "the latest complete week's report (in reports/ beside --db, or the project's for "
                        "the default warehouse), serve the app; refuses a warehouse holding other files")
    demo.add_argument("--no-serve", action="store_true", help="stop after the build and the report")
    demo.add_argument("--force", action="store_true",
                      help="replace the warehouse even if its manifest lists files that are not the demo's "
                           "(the files stay on disk)")
    demo.add_argument("--seed", type=int, default=None, help="the sample data's random seed")
    demo.add_argument("--end-date", type=_day, default=None, metavar="YYYY-MM-DD",
                      help="the sample data's last day (default: the Sunday that ended last week, UTC, so every week "
                           "is whole); the README's figures are from --end-date 2026-11-21")
    demo.add_argument("--port", type=int, default=8501)
    demo.set_defaults(handler=_demo)

    serve = command("serve", parents=[common], help="serve the Streamlit app")
    serve.add_argument("--port", type=int, default=8501)
    serve.set_defaults(handler=_serve)

    api = command("api", parents=[common],
                  help="serve the submission API: LLM judges and scripts post eval records (docs/api.md)")
    api.add_argument("--host", default=None, help="the address to listen on (default: 127.0.0.1)")
    api.add_argument("--port", type=int, default=None, help="the port (default: 8502; 0 picks a free one)")
    api.add_argument("--max-body-bytes", type=int, default=None,
                     help="the largest request body (default: $EVALHOUSE_API_MAX_BODY_BYTES or 5000000)")
    api.add_argument("--max-records", type=int, default=None,
                     help="the most records per request (default: $EVALHOUSE_API_MAX_RECORDS or 1000)")
    api.add_argument("--no-load", action="store_true",
                     help="only save to the landing folder (202); the next `evalhouse ingest` loads the records")
    api.set_defaults(handler=_api)
    return parser


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.operations import demo_folder, ingest, mixed_with_the_demo

    summary = ingest(settings, args.paths, ingest_cli.options_from(args), ingest_cli.Progress(), args.wait)
    ingest_cli.print_summary(summary, args.output)
    if args.output == "table" and summary.accepted:
        print("Loaded into the working copy: `evalhouse build` publishes it to readers.")
    if summary.accepted and mixed_with_the_demo(settings):
        print(f"evalhouse: note: {settings.db_path} holds the demo's sample data ({demo_folder(settings)}) beside "
              f"other files, so its marts mix the demo's models with yours, and `evalhouse demo` will refuse to "
              f"replace it. Keep your data in a warehouse of its own (--db PATH): README, Loading your own data.",
              file=sys.stderr)
    return ingest_cli.exit_code(summary, args.fail_on_reject)


def _build(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.operations import build

    result = build(settings, args.wait)
    if not result.ok:
        print("evalhouse: dbt build failed; the published warehouse is unchanged:", *result.failures,
              sep="\n  ", file=sys.stderr)
        return EXIT_FAILED
    print(f"built and published {settings.db_path}")
    return EXIT_OK


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.operations import rebuild

    return EXIT_OK if rebuild(settings) else EXIT_FAILED


def _docs(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.build import dbt_target_dir
    from evalhouse.operations import NotBuilt, docs

    try:
        result = docs(settings)
    except NotBuilt as exc:
        print(f"evalhouse: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not result.ok:
        print("evalhouse: no dbt docs written:", *result.failures, sep="\n  ", file=sys.stderr)
        return EXIT_FAILED
    print(f"dbt docs of {settings.db_path} written to {dbt_target_dir()} (index.html, manifest.json, catalog.json)")
    return EXIT_OK


def _report(args: argparse.Namespace, settings: Settings) -> int:
    return report_cli.run(args, settings.db_path)


def _demo(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.operations import DemoRefused, demo

    try:
        return demo(settings, seed=args.seed, end_date=args.end_date, serve_app=not args.no_serve, port=args.port,
                    force=args.force)
    except DemoRefused as exc:
        print(f"evalhouse: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a date: write it as YYYY-MM-DD, for example 2026-11-21") \
            from None


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.operations import serve

    return serve(settings, port=args.port)


def _api(args: argparse.Namespace, settings: Settings) -> int:
    from evalhouse.api.server import serve
    from evalhouse.api.settings import ApiSettingsError, resolve_api

    try:
        api = resolve_api(host=args.host, port=args.port, max_body_bytes=args.max_body_bytes,
                          max_records=args.max_records, load=not args.no_load)
    except ApiSettingsError as exc:
        print(f"evalhouse: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return serve(api, settings)


if __name__ == "__main__":
    sys.exit(main())
