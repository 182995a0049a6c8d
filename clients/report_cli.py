"""``poolhall report`` and ``poolhall export --rolls``: the post-game report and the rolls.

Both read the campaign's whole log with the member's token (:mod:`poolhall.clients.campaign_log`)
and hand it to the pure fold of :mod:`poolhall.projections.analytics`; this module only chooses,
prints and writes.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from poolhall.clients import cli_support as common
from poolhall.clients.cli_support import CliError, emit, styled

if TYPE_CHECKING:
    from poolhall.projections.analytics_model import RollRow

__all__ = ["add_commands", "write_rows"]


async def _report(args: argparse.Namespace) -> int:
    from poolhall.clients.campaign_log import fetch_log, session_bounds
    from poolhall.projections.analytics import for_session, report

    _, events = await fetch_log(args, "make a report")
    if args.session is not None:
        session_bounds(events, args.session, args.campaign)  # says which sessions there are
    chosen = for_session(report(events), args.session)
    written = None
    if args.html:
        from poolhall.reports.html import render_html  # matplotlib: only for a page

        page = render_html(chosen, args.session)
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot write {args.html}: {error.strerror or error}") from None
        written = styled("wrote [bold]{}[/bold] ({} KB)", args.html,
                         round(len(page.encode()) / 1024))
    if args.json:
        emit(args, chosen, "")
    else:  # rich's tables: imported for people, not for --json
        from poolhall.clients.report_text import summary

        common.console.print(summary(chosen, args.session))
        if written is not None:
            common.console.print(written)
    return common.EXIT_OK


def write_rows(rows: list[RollRow], out: TextIO, form: str) -> None:
    """The rows as CSV (a header, then one line each; empty for none) or JSON lines."""
    import msgspec

    if form == "jsonl":
        encoder = msgspec.json.Encoder()
        for row in rows:
            out.write(encoder.encode(row).decode() + "\n")
        return
    from poolhall.projections.analytics_model import RollRow

    columns = RollRow.__struct_fields__  # in order
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if (v := getattr(row, name)) is None else v for name in columns])


async def _export(args: argparse.Namespace) -> int:
    import msgspec

    from poolhall.clients.campaign_log import fetch_log, session_bounds
    from poolhall.projections.analytics import roll_rows

    if not args.rolls and not args.events:
        raise CliError("say what to export: --rolls (one row per roll) or --events (the log)")
    _, events = await fetch_log(args, "export")
    if args.events:  # the log as the table saw it: what docs/verifier/verify_rolls.py reads
        text = "".join(msgspec.json.encode(recorded).decode() + "\n" for recorded in events)
        if args.output is None:
            sys.stdout.write(text)
            return common.EXIT_OK
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot write {args.output}: {error.strerror or error}") from None
        emit(args, {"written": args.output, "events": len(events)},
             styled("wrote {} events to [bold]{}[/bold]", len(events), args.output))
        return common.EXIT_OK
    rows = roll_rows(events)
    if args.session is not None:
        session_bounds(events, args.session, args.campaign)
        rows = [row for row in rows if row.session == args.session]
    if args.output is None:
        write_rows(rows, sys.stdout, args.format)
        return common.EXIT_OK
    buffer = io.StringIO()
    write_rows(rows, buffer, args.format)
    try:
        Path(args.output).write_text(buffer.getvalue(), encoding="utf-8", newline="")
    except OSError as error:
        raise CliError(f"cannot write {args.output}: {error.strerror or error}") from None
    emit(args, {"written": args.output, "rows": len(rows)},
         styled("wrote {} rolls to [bold]{}[/bold]", len(rows), args.output))
    return common.EXIT_OK


def add_commands(sub: Any) -> None:
    """Register ``report`` and ``export`` on the ``poolhall`` subparsers."""
    from poolhall.clients.replay_cli import number_of

    session_type = number_of("a game session", "game sessions")
    parser = sub.add_parser("report", help="after the game: who was lucky against the exact "
                                           "odds, the destiny swing, the roll of the night")
    parser.add_argument("campaign")
    parser.add_argument("--session", type=session_type, metavar="N", help="game session N")
    parser.add_argument("--html", metavar="FILE",
                        help="also write the report with its charts as one HTML file")
    common.add_connection_options(parser)
    parser.set_defaults(handler=_report)

    export = sub.add_parser("export", help="the rolls for your own tools: CSV or JSON lines")
    export.add_argument("campaign")
    export.add_argument("--rolls", action="store_true",
                        help="one row per roll, with its odds (the one export there is)")
    export.add_argument("--events", action="store_true",
                        help="every event as JSON lines (for docs/verifier/verify_rolls.py)")
    export.add_argument("--format", choices=("csv", "jsonl"), default="csv",
                        help="csv (default) or jsonl (one JSON object per line)")
    export.add_argument("--session", type=session_type, metavar="N", help="game session N")
    export.add_argument("--output", "-o", metavar="FILE", help="write here, not to stdout")
    common.add_connection_options(export)
    export.set_defaults(handler=_export)
