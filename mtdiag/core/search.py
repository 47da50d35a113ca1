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
MAX_PATTERN_CHARS = 2_000  # characters of one search pattern: as a slice expression's (``--where``)
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
    that is invalid, not supported or longer than :data:`MAX_PATTERN_CHARS`, or a search that exceeds ``budget``
    seconds over all texts."""
    return columns_matching(pattern, [texts], budget)[0]


def columns_matching(pattern: str, columns: Sequence[Sequence[str]], budget: float = SEARCH_SECONDS
                     ) -> list[np.ndarray]:
    """:func:`text_matches` of each of several columns of texts (a table's source, references and outputs), the
    pattern compiled once and one time ``budget`` for them all: compiling is the costly part of a long pattern
    (done once, not once per column: twelve columns compiled it twelve times), and a search box's Enter costs at
    most ``budget`` whatever the columns."""
    compiled = compile_pattern(pattern)
    deadline = time.monotonic() + budget
    found = []
    for texts in columns:
        hits = np.zeros(len(texts), dtype=bool)
        for i, text in enumerate(texts):
            if time.monotonic() >= deadline:
                raise ValueError(f"the search {_shown(pattern)} takes too long on these texts; simplify the pattern")
            hits[i] = compiled.search(text) is not None
        found.append(hits)
    return found


def _shown(pattern: str) -> str:
    """A pattern as a message quotes it: at most 80 characters."""
    return repr(pattern if len(pattern) <= 80 else pattern[:80] + "…")


def compile_pattern(pattern: str):
    """``pattern`` compiled by RE2, case-insensitive, with Unicode ``\\w``/``\\d``/``\\s``; ``ValueError`` saying
    what is not supported, why it is invalid, or that it is longer than :data:`MAX_PATTERN_CHARS` (checked first:
    the work of compiling grows with the pattern, and a search box is typed into by anyone)."""
    import re2

    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the search pattern has {len(pattern):,} characters; at most {MAX_PATTERN_CHARS:,}")

    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = MAX_MEMORY
    options.log_errors = False
    options.never_capture = True  # only whether it matches: groups would make RE2 track submatches (slower)
    try:
        return re2.compile(_unicode_classes(pattern), options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"the search {_shown(pattern)}{_refusal(pattern, reason)}") from None


def _refusal(pattern: str, reason: str) -> str:
    """Why RE2 refused ``pattern``: a construct it does not support, a size beyond its bounds, or a syntax error."""
    for construct, name in _UNSUPPORTED:
        if construct.search(pattern):
            return f": not supported: {name}"
    if reason.startswith(("invalid repetition size", "pattern too large")):
        return f": not supported: a pattern this large ({reason}); use smaller repetition counts"
    return f" is not a valid regular expression: {reason if len(reason) <= 160 else reason[:160] + '…'}"


def _unicode_classes(pattern: str) -> str:
    """``pattern`` with ``\\w``, ``\\d``, ``\\s`` (and ``\\W``, ``\\D``, ``\\S`` outside ``[…]``) as Unicode classes.
    Escaped characters, ``\\Q…\\E`` quotes and POSIX classes ``[:alpha:]`` are copied as they are. Linear in the
    pattern: the ``:]`` that closes a POSIX class is searched for again only once the last one found is passed (a
    ``[`` and 40,000 ``[:`` without one took 5.7 s when the rest of the pattern was searched at each ``[:``)."""
    out, i, n, in_class = [], 0, len(pattern), False
    closing = -1  # where the next ":]" is, searched again only once passed: each character is scanned once
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
        if in_class and pattern.startswith("[:", i):
            if closing != n and closing < i + 2:
                found = pattern.find(":]", i + 2)
                closing = n if found < 0 else found
            if closing != n:
                out.append(pattern[i:closing + 2])
                i = closing + 2
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
