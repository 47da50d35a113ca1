"""The one user-facing input error, shared by every reader (:mod:`mtdiag.io`, :mod:`mtdiag.io.term_matching`)."""

from __future__ import annotations


class InputError(ValueError):
    """A bad input: ``file`` (display name), ``line`` (1-based, or None) and a one-line message.

    ``str(error)`` is ``"<file>: line <N>: <detail>"`` (or ``"<file>: <detail>"`` without a line); ``file`` is
    None only for argument errors that concern no file (e.g. no reference given at all).
    """

    def __init__(self, file: str | None, detail: str, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.detail = detail
        parts = [p for p in (file, f"line {line}" if line is not None else None, detail) if p]
        super().__init__(" ".join(": ".join(parts).split()))  # always one line
