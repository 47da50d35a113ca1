"""Human scores: a long TSV ``system, seg_id, score`` (:func:`read_human_scores`)."""

from __future__ import annotations

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.io.annotations import error_table_scores_and_spans, is_error_table
from mtdiag.io.error_weights import DEFAULT_WEIGHTS, ErrorWeights
from mtdiag.io.parsing import Table, all_numbers, parse_score, parse_seg_id, parse_table
from mtdiag.io.pearmut_log import read_pearmut_log, sniff_log
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote_names

HUMAN_SCORES_FILE = "mqm.seg.tsv"


def _score_column(table: Table, lowered: list[str]) -> int:
    """The score column: ``score``, else ``mqm_score``, else the single numeric column that is not an id."""
    for wanted in ("score", "mqm_score"):
        if wanted in lowered:
            return lowered.index(wanted)
    candidates = [
        i for i, column in enumerate(lowered)
        if column not in ("system", "seg_id") and not column.endswith("id") and all_numbers(table.column(i))
    ]
    if len(candidates) == 1:
        return candidates[0]
    found = f"found columns {quote_names(table.header)}"
    if not candidates:
        raise InputError(table.name, f"no score column; {found}; expected score, mqm_score or one numeric column", 1)
    numeric = quote_names(table.header[i] for i in candidates)
    raise InputError(table.name, f"several numeric columns ({numeric}) could be the score; name one score", 1)


def read_human_scores(source: Source, name: str | None = None, n_segments: int | None = None, *,
                      limits: Limits = DEFAULT_LIMITS, error_weights: ErrorWeights = DEFAULT_WEIGHTS) -> pd.DataFrame:
    """Human judgements from a long TSV into a frame ``seg`` (0-based), ``system``, ``score``.

    The header has ``system``, ``seg_id`` (1-based, checked against ``n_segments`` when given) and a score
    column (``score``, ``mqm_score`` or the one numeric non-id column). A blank score means not rated and the row
    is dropped; system names (``ref.A``, ``ref-A``, …) are kept as they are. A system rated twice on the same
    segment is an error.

    An MQM error table (``…, category, severity``, one row per error) or ESA spans (``error_spans``) given as human
    scores give the segment scores :func:`mtdiag.io.read_error_annotations` derives from them under
    ``error_weights`` (the file users have is often the error file, and ``--human`` is where they give human
    judgements); so does a Pearmut annotation log (:mod:`mtdiag.io.pearmut_log`).
    """
    source, log = sniff_log(source, name, limits=limits)
    if log is not None:
        return read_pearmut_log(*log, n_segments, error_weights=error_weights)[0]
    table = parse_table(source, name, "tsv", limits)
    if is_error_table(table.header):
        return error_table_scores_and_spans(table, n_segments, error_weights)[0]
    lowered = [h.lower() for h in table.header]
    for required in ("system", "seg_id"):
        if required not in lowered:
            raise InputError(table.name, f"missing column {required}; found columns {quote_names(table.header)}; "
                                         "expected system, seg_id and a score column", 1)
    system_at, seg_at, score_at = lowered.index("system"), lowered.index("seg_id"), _score_column(table, lowered)
    seen: dict[tuple[str, int], int] = {}
    records = []
    for row, line in zip(table.rows, table.lines):
        system = row[system_at].strip()
        if not system:
            raise InputError(table.name, "the system name is empty", line)
        seg_id = parse_seg_id(row[seg_at], table, line, n_segments)
        score = parse_score(row[score_at], table, line)
        if (system, seg_id) in seen:
            raise InputError(table.name, f"a second row for system {system}, seg_id {seg_id} "
                                         f"(the first is on line {seen[system, seg_id]})", line)
        seen[system, seg_id] = line
        if score is not None:
            records.append((seg_id - 1, system, score))
    frame = pd.DataFrame(records, columns=["seg", "system", "score"])
    return frame.astype({"seg": "int64", "score": "float64"})



def unknown_score_systems(scores: pd.DataFrame, refs: list[str], systems: list[str], display: str,
                          absent: str = "that are not loaded") -> list[str]:
    """A warning naming the systems ``scores`` rates that are neither a loaded system nor a reference (as
    ``NAME``, ``ref.NAME``, ``ref-NAME`` or ``ref_NAME``): their scores match no output. ``absent`` says where
    they are missing (``not in the folder`` for a folder)."""
    known = set(systems) | set(refs) | {f"ref{sep}{r}" for r in refs for sep in ".-_"}
    unknown = sorted(set(scores["system"]) - known)
    if not unknown:
        return []
    return [f"{display}: scores for systems {absent} ({quote_names(unknown)}) are kept but match no output"]
