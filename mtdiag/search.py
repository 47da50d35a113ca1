"""Text search: which texts contain a match of a case-insensitive regular expression, within a time budget.

One search for the whole tool: the Segments page's search box (:func:`mtdiag.views.segments.text_filter`) and the
``~`` operator of slice expressions (:mod:`mtdiag.slices.selection`). A pathological pattern must not hold a
server: every search has a budget (the ``regex`` module's timeout).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


SEARCH_SECONDS = 2.0  # time budget of one text search (a pathological pattern must not hold the server)


def text_matches(pattern: str, texts: Sequence[str], budget: float = SEARCH_SECONDS) -> np.ndarray:
    """Which texts contain a match of ``pattern``, a case-insensitive regular expression (the ``regex`` module's
    syntax: ``Pandemie|Virus``, ``\\d+ %``; a plain word matches as a substring). ``ValueError`` with a clear
    message for an invalid pattern or a search that exceeds ``budget`` seconds over all texts."""
    import time

    import regex

    try:
        compiled = regex.compile(pattern, regex.IGNORECASE | regex.V1)
    except regex.error as exc:
        raise ValueError(f"the search {pattern!r} is not a valid regular expression: {exc}") from None
    deadline = time.monotonic() + budget
    hits = np.zeros(len(texts), dtype=bool)
    try:
        for i, text in enumerate(texts):
            hits[i] = compiled.search(text, timeout=max(deadline - time.monotonic(), 0.001)) is not None
    except TimeoutError:
        raise ValueError(f"the search {pattern!r} takes too long on these texts; simplify the pattern") from None
    return hits
