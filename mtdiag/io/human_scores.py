"""Human scores: a long TSV ``system, seg_id, score``, or an error file given as the human scores
(:func:`read_human_file`, :func:`with_human_file`)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.annotations import Ratings, is_error_table, scores_under, table_ratings, with_ratings
from mtdiag.io.error_weights import DEFAULT_WEIGHTS, ErrorWeights
from mtdiag.io.parsing import Table, all_numbers, parse_score, parse_seg_id, parse_table
from mtdiag.io.pearmut_log import read_pearmut_log, sniff_log
from mtdiag.io.ratings import error_rows_frame, rated_frame
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote_names, unpack

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


def read_human_file(source: Source, name: str | None = None, n_segments: int | None = None, *,
                    limits: Limits = DEFAULT_LIMITS, outputs=None) -> Ratings:
    """A file given as human judgements, as :class:`~mtdiag.io.annotations.Ratings`.

    A score table's scores, or the ratings of an MQM error table, ESA spans (``error_spans``) or a Pearmut log (the file
    users have is often the error file, and ``--human`` is where they give human judgements) — weighed by the analysis's
    scheme later.

    A score table's header has ``system``, ``seg_id`` (1-based, checked against ``n_segments`` when given) and a
    score column (``score``, ``mqm_score`` or the one numeric non-id column). A blank score means not rated and the
    row is dropped; system names (``ref.A``, ``ref-A``, …) are kept as they are. A system rated twice on the same
    segment is an error."""
    source, log = sniff_log(source, name, limits=limits)
    if log is not None:
        return Ratings(*read_pearmut_log(*log, n_segments, outputs))
    table = parse_table(source, name, "tsv", limits)
    if is_error_table(table.header):
        return table_ratings(table, n_segments)
    return Ratings(_score_table(table, n_segments), error_rows_frame([]), rated_frame([]))


def read_human_scores(source: Source, name: str | None = None, n_segments: int | None = None, *,
                      limits: Limits = DEFAULT_LIMITS, error_weights: ErrorWeights = DEFAULT_WEIGHTS) -> pd.DataFrame:
    """Human judgements from a file as a frame ``seg`` (0-based), ``system``, ``score``, in one call.

    For scripts; a loaded set keeps an error file's rows and weighs them later (:func:`with_human_file`). A score
    table's scores, or the scores an error file gives under ``error_weights`` (:func:`read_human_file`)."""
    return scores_under(read_human_file(source, name, n_segments, limits=limits), error_weights)


def with_human_file(evalset: EvalSet, source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
                    absent: str = "that are not loaded") -> EvalSet:
    """``evalset`` with the human judgements of a file as its human scores, in place of any it had.

    The file is read by :func:`read_human_file`: a score table's scores (systems it rates that are neither loaded nor a
    reference give a warning, ``absent`` says where they are missing), or an error file's ratings, whose errors then
    give the human scores under the analysis's scheme (:func:`mtdiag.io.annotations.with_ratings`)."""
    display = name or unpack(source, "human scores")[1]
    ratings = read_human_file(source, name or display, evalset.n_segments, limits=limits, outputs=evalset.hyps)
    if len(ratings.rows) or len(ratings.rated):
        return with_ratings(evalset, ratings, display, replace_scores=True)
    warnings = [*evalset.warnings, *unknown_score_systems(ratings.scores, evalset.ref_names, evalset.systems, display,
                                                         absent)]
    if ratings.scores.empty:
        warnings.append(f"{display}: no segment is rated, so there are no human scores")
    return replace(evalset, human=None if ratings.scores.empty else ratings.scores, warnings=tuple(warnings))


def _score_table(table: Table, n_segments: int | None) -> pd.DataFrame:
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
    """A warning naming the systems ``scores`` rates that are neither a loaded system nor a reference.

    A reference is matched as ``NAME``, ``ref.NAME``, ``ref-NAME`` or ``ref_NAME``; the scores of these systems match no
    output. ``absent`` says where they are missing (``not in the folder`` for a folder)."""
    known = set(systems) | set(refs) | {f"ref{sep}{r}" for r in refs for sep in ".-_"}
    unknown = sorted(set(scores["system"]) - known)
    if not unknown:
        return []
    return [f"{display}: scores for systems {absent} ({quote_names(unknown)}) are kept but match no output"]
