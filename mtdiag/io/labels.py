"""Segment labels: a TSV ``seg_id`` plus one column per label (``doc``, ``domain``, …) (:func:`read_segment_labels`).

A test-set folder's ``segments.tsv`` (as in the TED zh-en development set's: ``seg_id, orig_seg_id, doc, doc_id``)
is read automatically: every column but ``seg_id`` becomes a label column of ``EvalSet.segments`` — what bucket
dimensions (``label:doc``) and slice expressions (``doc == "talk.2"``) read. Labels are text, as written; a segment
the file does not list gets the empty label.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import ORIGIN_COLUMN
from mtdiag.io.parsing import parse_seg_id, parse_table
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote, quote_names

SEGMENT_LABELS_FILE = "segments.tsv"
_RESERVED = ("src", ORIGIN_COLUMN)  # segment columns a label must not replace


def read_segment_labels(source: Source, name: str | None = None, n_segments: int | None = None, *,
                        limits: Limits = DEFAULT_LIMITS) -> pd.DataFrame:
    """Labels per segment from a TSV with a ``seg_id`` column and one column per label.

    ``seg_id`` is 1-based, checked against ``n_segments``. Returns a frame indexed by ``seg`` (0..n-1, every segment;
    the empty label where the file has no row), one column per label. A segment listed twice is an error naming both
    lines."""
    table = parse_table(source, name, "tsv", limits)
    lowered = [h.lower() for h in table.header]
    if "seg_id" not in lowered:
        raise InputError(table.name, f"missing column seg_id; found columns {quote_names(table.header)}; expected seg_id "
                                     "and one column per label", 1)
    seg_at = lowered.index("seg_id")
    labels = [(i, h) for i, h in enumerate(table.header) if i != seg_at]
    if not labels:
        raise InputError(table.name, "has no label column besides seg_id", 1)
    for _, label in labels:
        if not label.strip():
            raise InputError(table.name, "a label column has no name", 1)
        if label in _RESERVED:
            raise InputError(table.name, f"column {quote(label)} cannot be a label (the name is reserved)", 1)
    n = n_segments if n_segments is not None else 0
    seen: dict[int, int] = {}
    for row, line in zip(table.rows, table.lines):
        seg_id = parse_seg_id(row[seg_at], table, line, n_segments)
        if seg_id in seen:
            raise InputError(table.name, f"a second row for seg_id {seg_id} (the first is on line {seen[seg_id]})",
                             line)
        seen[seg_id] = line
        n = max(n, seg_id)
    columns = {label: [""] * n for _, label in labels}
    for row in table.rows:
        seg = int(row[seg_at].strip()) - 1
        for i, label in labels:
            columns[label][seg] = row[i]
    return pd.DataFrame(columns, index=pd.RangeIndex(n, name="seg"), dtype=object)


def with_segment_labels(evalset, source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS):
    """``evalset`` with the label columns of a labels file added to its segments.

    A label the set already has is replaced."""
    labels = read_segment_labels(source, name, evalset.n_segments, limits=limits)
    return replace(evalset, segments=evalset.segments.assign(**{c: labels[c].to_numpy() for c in labels.columns}))
