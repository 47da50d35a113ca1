"""What every command shares: the one-line error (:class:`CliError`), the exit statuses, and the parser of a
command this run does not use, which stops before the imports its options need (``mtdiag --help`` lists every
command without importing pandas)."""

from __future__ import annotations

import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterable

EXIT_USAGE = 2
EXIT_INPUT = 1


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 1."""


def json_value(value: float):
    """A number for JSON: NaN (undefined) becomes null."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def note(text: str) -> None:
    """A line for the person at the terminal (stderr): ``mtdiag: TEXT``."""
    print(f"mtdiag: {text}", file=sys.stderr)


def write_file(path: str | Path, pieces: Iterable[str]) -> int:
    """Write ``pieces`` of text (UTF-8) to ``path`` whole or not at all; returns the bytes written.

    The text goes into a temporary file beside it, renamed over it once complete (a run stopped half-way leaves the file
    as it was)."""
    target = Path(path)
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".part", delete=False)
    try:
        with handle:
            for piece in pieces:
                handle.write(piece)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)  # a file as any other the user writes (a temporary one is 0600)
        os.replace(handle.name, target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return target.stat().st_size


class Skip(Exception):
    """Raised by :class:`Unfilled`: the set-up of a command this run does not use stops there."""


class Unfilled:
    """Stands for the parser of a command this run does not use.

    Its first use stops that command's set-up (:class:`Skip`), so the imports its options need (pandas, the metric
    registry) never happen."""

    def __getattr__(self, name: str):
        raise Skip


class Commands:
    """The subparsers of ``mtdiag``, filled only for ``only`` (None: every command).

    Every command is still listed with its help line, so ``mtdiag --help`` shows them all without importing pandas
    (0.05 s instead of 0.4 s). ``argv``: the arguments of this run (a command may read what follows its name, as
    ``mtdiag view NAME``)."""

    def __init__(self, action, only: str | None, argv: list[str]):
        self._action, self._only, self.argv = action, only, argv

    def add_parser(self, name: str, **kwargs):
        """The parser of command ``name`` (argparse's ``kwargs``); :class:`Unfilled` when this run does not use it."""
        parser = self._action.add_parser(name, **kwargs)
        return parser if self._only is None or name == self._only else Unfilled()
