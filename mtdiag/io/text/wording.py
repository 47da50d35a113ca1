"""How a message names what a file holds: quoted values, lists of names and of lines, counted nouns."""

from __future__ import annotations

import json
from typing import Iterable

_SHOWN_LINES = 5


def quote(value: str, width: int = 40) -> str:
    """A value from a file, quoted and shortened for a message (control characters escaped)."""
    text = value if len(value) <= width else value[:width] + "…"
    return json.dumps(text, ensure_ascii=False)


SHOWN_NAMES = 10


def quote_names(values: Iterable[str], total: int | None = None) -> str:
    """``a, b, c``: names listed for a message, at most ten (empty names shown as ``""``).

    Of more than ten (or of ``total`` names, when ``values`` holds only the first), the first ten and ``… N in all``: a
    message stays short whatever the file holds."""
    values = list(values)
    total = len(values) if total is None else total
    shown = ", ".join(v if v else '""' for v in values[:SHOWN_NAMES]) or "none"
    return shown + (f", … {total:,} in all" if total > SHOWN_NAMES else "")


def lines_phrase(numbers: list[int], noun: str = "line") -> str:
    """``line 3`` / ``lines 3 and 7`` / ``lines 3, 7, 9, 10, 15, …`` (first few of many)."""
    if len(numbers) == 1:
        return f"{noun} {numbers[0]}"
    shown = [str(n) for n in numbers[:_SHOWN_LINES]]
    if len(numbers) > _SHOWN_LINES:
        return f"{noun}s " + ", ".join(shown) + ", …"
    return f"{noun}s " + ", ".join(shown[:-1]) + " and " + shown[-1]


def plural(count: int, noun: str) -> str:
    """``1 line`` / ``2 lines``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def is_number(value: str) -> bool:
    """Whether ``value`` parses as a Python ``float``."""
    try:
        float(value)
    except ValueError:
        return False
    return True
