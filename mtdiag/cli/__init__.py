"""The ``mtdiag`` command line (also ``python -m mtdiag``): one module per command — :mod:`~mtdiag.cli.score`,
:mod:`~mtdiag.cli.triage`, :mod:`~mtdiag.cli.spans`, :mod:`~mtdiag.cli.pearmut` (a Pearmut campaign of the queue),
:mod:`~mtdiag.cli.report`, :mod:`~mtdiag.cli.ngrams`, :mod:`~mtdiag.cli.likeness`, :mod:`~mtdiag.cli.buckets`,
:mod:`~mtdiag.cli.slices`, :mod:`~mtdiag.cli.view` (any dashboard page's tables) and :mod:`~mtdiag.cli.serve` —
each adding its parser (``add``) and running it (``run``); the options they share are declared once, generated from
the registries (:mod:`mtdiag.cli.arguments`), and the inputs are read once (:mod:`mtdiag.cli.load`).

Every error is printed to stderr as one clear line and the exit status is non-zero; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from mtdiag import __version__
from mtdiag.cli import buckets, likeness, ngrams, pearmut, report, score, serve, slices, spans, triage, view
from mtdiag.cli.arguments import option_flag
from mtdiag.cli.base import EXIT_INPUT, EXIT_USAGE, CliError, Commands, Skip

COMMANDS = (score, triage, spans, pearmut, report, ngrams, likeness, buckets, slices, view, serve)


def build_parser(only: str | None = None, argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``mtdiag`` parser: every command listed, with its options for ``only`` (None: for every command).

    :func:`main` passes the command of its arguments as ``only``, or ``""`` when there is none (e.g. ``mtdiag --help``):
    the other commands are listed but get no options. ``argv``: this run's arguments (``mtdiag view NAME`` adds the
    options of view NAME)."""
    parser = argparse.ArgumentParser(prog="mtdiag", description="Diagnostic evaluation of machine translation output.")
    parser.add_argument("--version", action="version", version=f"mtdiag {__version__}")
    commands = Commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"), only, list(argv))
    for command in COMMANDS:
        try:
            command.add(commands)
        except Skip:
            pass
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command of ``argv`` (default: ``sys.argv[1:]``) and print its output; returns the exit status.

    An input error is printed to stderr as one line (``mtdiag: error: …``), with the status :data:`EXIT_INPUT`."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    parser = build_parser(only=next((a for a in argv if not a.startswith("-")), ""), argv=argv)
    args = parser.parse_args(argv)
    from mtdiag.io import InputError

    try:
        output = args.handler(args)
    except (CliError, InputError, ValueError, OSError, RuntimeError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"mtdiag: error: {message}", file=sys.stderr)
        return EXIT_INPUT
    if output:
        sys.stdout.write(_printed(output, args) + "\n")
    return 0


def _printed(output: str, args) -> str:
    """What is printed: JSON indented when stdout is a terminal (a person reads it), on one line otherwise (a pipe
    or a file, for scripts and jq); any other output as it is. Every ``--format json`` handler returns compact
    JSON; this is the one place that decides its layout."""
    if getattr(args, "format", None) == "json" and sys.stdout.isatty():
        return json.dumps(json.loads(output), ensure_ascii=False, indent=2)
    return output


def run() -> None:
    """The console entry point (``mtdiag``, ``python -m mtdiag``): :func:`main`, then leave at once.

    :func:`main` runs with Arrow's memory pool the system allocator (:mod:`mtdiag.core.arrow_memory`).

    With pandas loaded, the interpreter's teardown (freeing every module's objects) takes ~60 ms — a tenth of a quick
    ``mtdiag score``. Once ``main`` has returned nothing of mtdiag's is left to clean up (thread pools, Dask clients and
    files are closed by their own ``with`` blocks and ``finally`` clauses), so the output is flushed and the process
    ends with ``os._exit``. An uncaught exception still goes through Python's normal exit (traceback)."""
    import os

    from mtdiag.core.arrow_memory import use_the_system_allocator

    use_the_system_allocator()
    try:
        code = main()
    except SystemExit as exc:  # argparse: --help, usage errors
        code = exc.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


__all__ = ["EXIT_INPUT", "EXIT_USAGE", "CliError", "build_parser", "main", "option_flag", "run"]
