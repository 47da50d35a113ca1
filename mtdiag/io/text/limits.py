"""What one input file may cost: the limits on the work it causes, their flags and environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from mtdiag.core.errors import InputError

LIMIT_SETTINGS: dict[str, tuple[str, str, int]] = {
    "max_file_bytes": ("--max-file-mb", "MTDIAG_MAX_FILE_MB", 1_000_000),
    "max_rows": ("--max-rows", "MTDIAG_MAX_ROWS", 1),
    "max_cells": ("--max-cells", "MTDIAG_MAX_CELLS", 1),
    "max_segment_chars": ("--max-segment-chars", "MTDIAG_MAX_SEGMENT_CHARS", 1),
    "max_columns": ("--max-columns", "MTDIAG_MAX_COLUMNS", 1),
}
"""Each limit's command-line flag, environment variable (read by the dashboard and the command line) and the unit
its value is given in (file sizes in MB, 10^6 bytes)."""


@dataclass(frozen=True)
class Limits:
    """What one input file may cost: limits on the *work* it causes, not only its bytes.

    Every reader counts before it parses: ``max_file_bytes`` bytes (for ``.gz``, the inflated bytes, counted while
    inflating), ``max_rows`` lines, ``max_cells`` table cells (rows x columns; for XML and SGML, tags) and
    ``max_segment_chars`` characters in any one segment or cell, ``max_columns`` columns of a table (each column is a
    system, a reference or a score with work of its own: a one-row table of 100,000 columns fits the cell limit and
    still costs minutes). A file over a limit is refused with an
    :class:`InputError` naming the file, the limit and how to raise it (:meth:`exceeded`). ``how_to_raise`` may say,
    per limit name, what sets it where the flag and variable do not (the dashboard's memory budget).

    ``long_segment_words`` and ``long_segment_chars`` are no limits: a segment over either is kept, with a warning
    (the character count catches unspaced scripts such as Japanese).
    """

    max_file_bytes: int = 200_000_000
    max_rows: int = 2_000_000
    max_cells: int = 20_000_000
    max_segment_chars: int = 1_000_000
    max_columns: int = 1_000
    long_segment_words: int = 10_000
    long_segment_chars: int = 100_000
    how_to_raise: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_environment(cls, environ: "Mapping[str, str] | None" = None, **given: int | None) -> "Limits":
        """The default limits, each replaced by its environment variable when set, then by ``given`` values.

        The variables are ``MTDIAG_MAX_ROWS`` … (:data:`LIMIT_SETTINGS`); the ``given`` values that are not None replace
        them (command-line flags, already in the limit's own unit: bytes, lines, cells, characters). A variable that is
        not a positive whole number is a ``ValueError`` naming it."""
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for field_name, (_, variable, unit) in LIMIT_SETTINGS.items():
            raw = environ.get(variable, "").strip()
            if raw:
                if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
                    raise ValueError(f"{variable}={raw!r}: expected a whole number of at least 1")
                values[field_name] = int(raw) * unit
        values.update({k: v for k, v in given.items() if v is not None})
        return cls(**values)

    def exceeded(self, display: str, field_name: str, what: str, line: int | None = None) -> InputError:
        """The error for a file over limit ``field_name``: ``what`` it has, the limit and how to raise it."""
        flag, variable, _ = LIMIT_SETTINGS[field_name]
        how = dict(self.how_to_raise).get(
            field_name, f"raise it with {flag} N on the command line, or {variable} for the dashboard")
        limit = f"{getattr(self, field_name):,} {_LIMIT_NOUNS[field_name]}"
        return InputError(display, f"{what} (the limit is {limit}; {how})", line)


_LIMIT_NOUNS = {"max_file_bytes": "bytes per file", "max_rows": "lines per file", "max_cells": "cells per file",
                "max_segment_chars": "characters per segment", "max_columns": "columns per table"}


DEFAULT_LIMITS = Limits()
