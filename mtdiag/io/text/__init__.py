"""Bytes to decoded lines: sources (paths, bytes, uploads), size limits, encodings, segment warnings.

The package's modules, by job: ``limits`` (what one file may cost), ``reading`` (a file's bytes from any source,
counted against the limits before parsing; gzip; the one-segment-per-line reader), ``decoding`` (encodings, line
ends, blank segments: the text rules), ``long_and_empty`` (warnings for segments kept as they are) and ``wording``
(how messages name values, names and lines). Every reader imports its names through this face.
"""

from mtdiag.io.text.decoding import (ACCEPTED_ENCODINGS, Lines, as_lines, blank_mask, decode_text, read_segments,
                                     split_lines)
from mtdiag.io.text.limits import DEFAULT_LIMITS, LIMIT_SETTINGS, Limits
from mtdiag.io.text.long_and_empty import column_warnings, segment_warnings
from mtdiag.io.text.reading import (MEMBER_BYTES, Source, WorkCounter, check_segment_chars, inflate_counted,
                                    read_counted, read_lines, unpack)
from mtdiag.io.text.wording import SHOWN_NAMES, is_number, lines_phrase, plural, quote, quote_names

__all__ = [
    "ACCEPTED_ENCODINGS", "DEFAULT_LIMITS", "LIMIT_SETTINGS", "Limits", "Lines", "MEMBER_BYTES", "SHOWN_NAMES",
    "Source", "WorkCounter", "as_lines", "blank_mask", "check_segment_chars", "column_warnings", "decode_text",
    "inflate_counted", "is_number", "lines_phrase", "plural", "quote", "quote_names", "read_counted", "read_lines",
    "read_segments", "segment_warnings", "split_lines", "unpack",
]
