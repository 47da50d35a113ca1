"""Text search: which texts contain a match of a case-insensitive regular expression, in linear time and bounded
memory.

One search for the whole tool: the Segments page's search box (:func:`mtdiag.views.segments.text_filter`) and the
``~`` operator of slice expressions (:mod:`mtdiag.slices.selection`). Patterns run on RE2 (Cox 2010, *Regular
Expression Matching in the Wild*; the ``google-re2`` package): an automaton, never backtracking, so a match costs
time linear in the text and at most :data:`MAX_MEMORY` bytes whatever the pattern — a search box cannot hold a
server's CPU or memory. What needs backtracking (backreferences, lookaround, recursion, atomic groups, possessive
quantifiers) is refused before any text is read, with one line saying what is not supported (``docs/slices.md``).

Kept from the search's earlier engine (the ``regex`` module): case is ignored (Unicode simple case folding: ``Ä``
finds ``ä``), a plain word matches as a substring, and ``\\w``, ``\\d``, ``\\s`` and their negations are Unicode
classes (RE2's own are ASCII; :func:`_unicode_classes` rewrites them). ``\\b`` stays RE2's, a boundary between an
ASCII word character and anything else.
"""

from __future__ import annotations

import re
import time
from typing import Sequence

import numpy as np

SEARCH_SECONDS = 2.0  # time budget of one text search over all its texts
MAX_MEMORY = 8 << 20  # bytes RE2 may use for one compiled pattern (its program and its automaton's cache)

# Unicode bodies of the Perl classes, as Python's and the regex module's str patterns define them
_CLASSES = {"w": r"\p{L}\p{M}\p{N}\p{Pc}", "d": r"\p{Nd}", "s": r"\t\n\x{0b}\f\r\x{1c}-\x{1f}\x{85}\p{Z}"}

# What RE2 refuses that a backtracking engine accepts, recognised in the refused pattern's text (in this order)
_UNSUPPORTED = (
    (re.compile(r"\(\?(?:R|[+-]?\d|&|P>)"), "recursion ((?R), (?1), (?&name))"),
    (re.compile(r"\\[1-9]|\\[gk]|\(\?P="), "backreferences (\\1, (?P=name))"),
    (re.compile(r"\(\?<?[=!]"), "lookaround ((?=…), (?!…), (?<=…), (?<!…))"),
    (re.compile(r"\(\?>"), "atomic groups ((?>…))"),
    (re.compile(r"[*+?}]\+"), "possessive quantifiers (a++, a*+)"),
)


def text_matches(pattern: str, texts: Sequence[str], budget: float = SEARCH_SECONDS) -> np.ndarray:
    """Which texts contain a match of ``pattern``, a case-insensitive regular expression in RE2's syntax
    (``Pandemie|Virus``, ``\\d+ %``; a plain word matches as a substring). ``ValueError`` in one line for a pattern
    that is invalid or not supported, or a search that exceeds ``budget`` seconds over all texts."""
    compiled = compile_pattern(pattern)
    deadline = time.monotonic() + budget
    hits = np.zeros(len(texts), dtype=bool)
    for i, text in enumerate(texts):
        if time.monotonic() >= deadline:
            raise ValueError(f"the search {pattern!r} takes too long on these texts; simplify the pattern")
        hits[i] = compiled.search(text) is not None
    return hits


def compile_pattern(pattern: str):
    """``pattern`` compiled by RE2, case-insensitive, with Unicode ``\\w``/``\\d``/``\\s``; ``ValueError`` saying
    what is not supported or why it is invalid."""
    import re2

    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = MAX_MEMORY
    options.log_errors = False
    options.never_capture = True  # only whether it matches: groups would make RE2 track submatches (slower)
    try:
        return re2.compile(_unicode_classes(pattern), options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"the search {pattern!r}{_refusal(pattern, reason)}") from None


def _refusal(pattern: str, reason: str) -> str:
    """Why RE2 refused ``pattern``: a construct it does not support, a size beyond its bounds, or a syntax error."""
    for construct, name in _UNSUPPORTED:
        if construct.search(pattern):
            return f": not supported: {name}"
    if reason.startswith(("invalid repetition size", "pattern too large")):
        return f": not supported: a pattern this large ({reason}); use smaller repetition counts"
    return f" is not a valid regular expression: {reason}"


def _unicode_classes(pattern: str) -> str:
    """``pattern`` with ``\\w``, ``\\d``, ``\\s`` (and ``\\W``, ``\\D``, ``\\S`` outside ``[…]``) as Unicode classes.
    Escaped characters, ``\\Q…\\E`` quotes and POSIX classes ``[:alpha:]`` are copied as they are."""
    out, i, n, in_class = [], 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            letter = pattern[i + 1]
            if letter == "Q":
                end = pattern.find("\\E", i + 2)
                end = n if end < 0 else end + 2
                out.append(pattern[i:end])
                i = end
                continue
            body = _CLASSES.get(letter.lower())
            if body is None or (in_class and letter.isupper()):  # a negation inside […] stays RE2's (ASCII)
                out.append(pattern[i : i + 2])
            else:
                out.append(body if in_class else f"[{body}]" if letter.islower() else f"[^{body}]")
            i += 2
            continue
        if in_class and pattern.startswith("[:", i) and ":]" in pattern[i + 2 :]:
            end = pattern.index(":]", i + 2) + 2
            out.append(pattern[i:end])
            i = end
            continue
        if not in_class and ch == "[":
            start = i + 1 + (pattern.startswith("^", i + 1))
            in_class = True
            if pattern.startswith("]", start):  # a "]" first in a class is the character itself
                start += 1
            out.append(pattern[i:start])
            i = start
            continue
        if in_class and ch == "]":
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)
