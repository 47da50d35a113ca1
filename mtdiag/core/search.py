"""Text search: which texts contain a match of a case-insensitive regular expression, in linear time and bounded
memory.

One search for the whole tool: the Segments page's search box (:func:`mtdiag.views.segments.text_filter`) and the
``~`` operator of slice expressions (:mod:`mtdiag.slices.selection`). Patterns run on RE2 (Cox 2010, *Regular
Expression Matching in the Wild*; the ``google-re2`` package): an automaton, never backtracking, so a match costs
time linear in the text and at most :data:`MAX_MEMORY` bytes whatever the pattern — a search box cannot hold a
server's CPU or memory. What needs backtracking (backreferences, lookaround, recursion, atomic groups, possessive
quantifiers) is refused before any text is read, with one line saying what is not supported (``docs/slices.md``).

**The time budget holds inside one text.** RE2's automaton is linear in the text, but when a pattern's automaton
outgrows its memory (large counted repetitions: ``.{0,999}z.{0,999}q``) RE2 falls back to simulating the pattern's
program instruction by instruction, at a cost of up to (text bytes × program size) steps — 6 s of CPU on one
300,000-character text, 20 s on a 1,000,000-character one, with no point where a caller could stop it. So a text is
searched in **windows** of :func:`window_bytes` bytes (:data:`WINDOW_STEPS` steps at most each: ~0.1 s), the
deadline checked between windows. Windows overlap by half their length: every match up to half a window long is
found wherever it lies, and ``^``, ``$`` and ``\b`` see the text around the window (RE2 matches inside a window of
the whole text). A match longer than half a window in a text longer than a window may be missed: for a plain word
or ``Anfang.*Ende`` a window is over 3 MB (more than the longest segment the input limits allow: such texts are
searched whole), for ``.{0,999}z.{0,999}q`` 5,560 bytes (its matches are at most 2,000 characters long).

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
WINDOW_STEPS = 100_000_000
"""Steps of RE2's slowest matcher (text bytes × program instructions) one window may cost: ~0.11 s of CPU (a
300,000-byte text × 17,988 instructions took 6.1 s, 1.1 ns a step)."""

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
    """Which texts contain a match of ``pattern``, a case-insensitive regular expression in RE2's syntax.

    E.g. ``Pandemie|Virus``, ``\\d+ %``; a plain word matches as a substring. ``ValueError`` in one line for a pattern
    that is invalid, not supported or longer than :data:`MAX_PATTERN_CHARS`, or a search that exceeds ``budget``
    seconds over all texts."""
    return columns_matching(pattern, [texts], budget)[0]


def columns_matching(pattern: str, columns: Sequence[Sequence[str]], budget: float = SEARCH_SECONDS
                     ) -> list[np.ndarray]:
    """:func:`text_matches` of each of several columns of texts (a table's source, references and outputs).

    The pattern is compiled once and one time ``budget`` serves them all: compiling is the costly part of a long pattern
    (done once, not once per column: twelve columns would compile it twelve times), and a search box's Enter costs at
    most ``budget`` whatever the columns."""
    compiled = compile_pattern(pattern)
    deadline = time.monotonic() + budget
    window = window_bytes(compiled)
    found = []
    for texts in columns:
        hits = np.zeros(len(texts), dtype=bool)
        for i, text in enumerate(texts):
            hits[i] = _text_matches(compiled, text, window, deadline, pattern)
        found.append(hits)
    return found


def window_bytes(compiled) -> int:
    """The bytes of text one search call is given: :data:`WINDOW_STEPS` over the compiled pattern's program size.

    The program size is its instructions (RE2's ``programsize``), so that a call costs at most ~0.1 s even where RE2
    falls back to its slowest matcher."""
    return max(2, WINDOW_STEPS // max(int(compiled.programsize), 1))


def _text_matches(compiled, text: str, window: int, deadline: float, pattern: str) -> bool:
    """Whether ``text`` contains a match, searched in windows of ``window`` bytes that overlap by half (module
    docstring), the ``deadline`` checked before each; ``ValueError`` past it."""
    data = text.encode("utf-8", "surrogatepass")
    end, step = len(data), max(window // 2, 1)
    start = 0
    while True:
        if time.monotonic() >= deadline:
            raise ValueError(f"the search {_shown(pattern)} takes too long on these texts; simplify the pattern")
        stop = _boundary(data, min(start + window, end))
        if compiled.search(data, start, stop) is not None:
            return True
        if stop >= end:
            return False
        start = _boundary(data, start + step)


def _boundary(data: bytes, at: int) -> int:
    """``at`` moved forward to the start of a UTF-8 character (a window never cuts one)."""
    while at < len(data) and data[at] & 0xC0 == 0x80:
        at += 1
    return at


def _shown(pattern: str) -> str:
    """A pattern as a message quotes it: at most 80 characters."""
    return repr(pattern if len(pattern) <= 80 else pattern[:80] + "…")


def compile_pattern(pattern: str):
    """``pattern`` compiled by RE2, case-insensitive, with Unicode ``\\w``/``\\d``/``\\s``.

    ``ValueError`` saying what is not supported, why it is invalid, or that it is longer than
    :data:`MAX_PATTERN_CHARS` (checked first: the work of compiling grows with the pattern, and a search box is typed
    into by anyone)."""
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
