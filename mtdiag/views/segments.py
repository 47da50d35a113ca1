"""The frames of the Segments page and of the segment export: the worst-first queue with full texts, one source
with every system, and the per-document scores (``docs/dashboard.md``).

Everything is built on :func:`mtdiag.triage.ranking.worst_first` — the one ranking of (system, segment) pairs, the same
order as ``mtdiag triage`` — so the page, the export and the command line agree. Every frame of this module names
a segment by its 0-based position (``seg``), as every view's builders do; the tables show its id in the set
(``seg_id``, :func:`mtdiag.views.with_set_ids`). Flag columns are the checks of
:data:`mtdiag.triage.checks.REGISTRY` the ranking computed (:func:`mtdiag.triage.checks.flag_columns`), plus
``flags`` (the fired ones, comma-joined).

Texts are never cut here: the queue holds the full source and hypothesis; a table cell shows the first
:data:`mtdiag.views.TABLE_TEXT` characters (:func:`mtdiag.views.for_table`), the export writes them whole (Excel's cell limit is handled by :func:`mtdiag.report.export.to_excel`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.triage import checks, ranking
from mtdiag.core import search
from mtdiag.metrics import metric_info
from mtdiag.views.base import SYSTEMS, Table, View, ViewOption, has_human_scores
from mtdiag.views.columns import flag_label
from mtdiag.views.detail import SPAN_THRESHOLD
from mtdiag.views.reference_notes import why


def human_scores(report) -> pd.Series | None:
    """The human score of each rated (system, seg) pair of the report's systems; None without human scores.

    Index ``(system, seg)``, 0-based ``seg``; the data's own scale — MQM: 0 best, more negative worse."""
    if not has_human_scores(report):
        return None
    human = report.evalset.human
    rated = human[human["system"].isin(report.evalset.systems)]
    return rated.groupby(["system", "seg"])["score"].mean().rename("human")


def score_columns(report) -> list[str]:
    """The segment-level scores shown and exported: every metric of the report with segment scores."""
    return [m for m in report.metrics if m in report.segments.columns and metric_info(m, report).segment_level]


def queue(report, requested: checks.Requested | None = None, strict: bool = False) -> pd.DataFrame:
    """Every (system, segment) pair worst first, with what a translator reads.

    The order is :func:`mtdiag.triage.ranking.worst_first`'s, one pair per source on the first screen unless ``strict``.
    The columns: ``system, seg, doc`` (when the data has documents), ``src, hyp`` (full texts),
    ``problem, relative``, the flag columns, ``flags`` and ``critical`` (the critical checks that put the row ahead of
    rows of higher problem; empty when none), ``human`` (when loaded), then every segment score. ``requested``:
    on-request checks with their options (e.g. ``(("mt_only_ngram", (("order", 2),)),)``,
    :func:`mtdiag.triage.checks.freeze`). The ranking and the metric columns are computed once per scored report and
    arguments (:func:`source_view` reads them for every segment opened) and kept in its context, shared by every report
    its human judgements join; the ``human`` column is the report's own, added after (a human file uploaded re-ranks
    nothing). Do not modify the frame."""
    requested = checks.freeze(requested)
    # the report's metrics in the key: a report completed with predicted MQM shares its first one's context
    ranked = report.context.memo(("segments", "queue", report.metrics, requested, bool(strict)),
                                 lambda: _queue(report, requested, bool(strict)))
    human = human_scores(report)
    if human is None:
        return ranked
    seg = ranked["seg"].to_numpy()
    metrics = [c for c in score_columns(report) if c in ranked.columns]
    at = list(ranked.columns).index(metrics[0]) if metrics else len(ranked.columns)  # before the metric columns
    out = ranked.copy()
    out.insert(at, "human", human.reindex(pd.MultiIndex.from_arrays([ranked["system"], seg])).to_numpy())
    return out


def _queue(report, requested: checks.Requested, strict: bool) -> pd.DataFrame:
    ranked = ranking.worst_first(report, requested=requested, strict=strict)
    evalset = report.evalset
    seg = ranked["seg"].to_numpy()
    out = ranked[["system", "seg"]].copy()
    if "doc" in evalset.segments.columns:
        out["doc"] = evalset.segments["doc"].astype(str).to_numpy()[seg]
    out["src"] = evalset.src.astype(str).to_numpy()[seg]
    hyps = evalset.hyps.astype(str)
    column = {s: i for i, s in enumerate(hyps.columns)}
    out["hyp"] = hyps.to_numpy()[seg, ranked["system"].map(column).to_numpy()]
    out["problem"] = ranked["problem"].to_numpy()
    out["relative"] = ranked["relative"].to_numpy()
    flags = checks.flag_columns(ranked)
    for flag in flags:
        out[flag] = ranked[flag].astype(bool).to_numpy()
    for column in ("flags", "critical"):
        if column in ranked.columns:
            out[column] = ranked[column].to_numpy()
    for metric in score_columns(report):
        out[metric] = ranked[metric].to_numpy()
    return out


def queue_columns(report, columns: Sequence[str]) -> list[str]:
    """The ``columns`` of a :func:`queue` table as the Segments grid shows them, in its order.

    ``system, seg_id`` and then what a reader scans first — ``critical`` (why a row is ahead of rows with a higher
    problem score), ``flags`` (the checks that fired) and ``problem`` — then the texts ``src, hyp``, ``human``, every
    segment score, one check box per flag, ``relative`` and ``doc``; only those of ``columns``."""
    flags = [name for name in checks.REGISTRY if name in columns]
    order = ["system", "seg_id", "critical", "flags", "problem", "src", "hyp", "human", *score_columns(report),
             *flags, "relative", "doc"]
    return [c for c in order if c in columns]


def segment_export(report, rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """The segment export: ``rows`` with every reference added after the source.

    ``rows``: a :func:`queue` or a filtered part of it (the dashboard's current view; all pairs when None). It is
    written by :func:`mtdiag.report.export.to_csv`, :func:`~mtdiag.report.export.to_excel` or
    :func:`~mtdiag.report.export.to_json`.

    *Long* format — one row per (system, segment), in the queue's worst-first order — because a row is then one
    thing to read and judge (a source, its references, one output, that output's scores and flags) and
    filters/sorting in a spreadsheet work per output; a wide layout would need one hypothesis and one score column
    per system × metric. Columns: ``seg`` (0-based; the view's ``export`` table shows the set's ``seg_id``), ``doc``
    (when present), ``src``, one ``ref:NAME`` column per reference, ``system``, ``hyp``, ``problem``, ``relative``,
    every flag, ``human`` (when loaded), every segment score; full texts."""
    rows = queue(report) if rows is None else rows
    evalset = report.evalset
    seg = rows["seg"].to_numpy()
    out = rows.reset_index(drop=True)
    position = list(out.columns).index("src") + 1
    for i, ref in enumerate(evalset.ref_names):
        out.insert(position + i, f"ref:{ref}", evalset.refs[ref].astype(str).to_numpy()[seg])
    system = out.pop("system")
    out.insert(list(out.columns).index("hyp"), "system", system)
    return out


def sources(report) -> pd.DataFrame:
    """The queue viewed as sources, hardest first, with ``doc`` (when present), the full ``src`` and the references.

    The sources are :func:`mtdiag.triage.ranking.source_difficulty`'s (``seg, difficulty, spread, worst_system,
    worst_problem``); one ``ref:NAME`` per reference."""
    frame = ranking.source_difficulty(report)
    evalset = report.evalset
    seg = frame["seg"].to_numpy()
    position = 1
    if "doc" in evalset.segments.columns:
        frame.insert(position, "doc", evalset.segments["doc"].astype(str).to_numpy()[seg])
        position += 1
    frame.insert(position, "src", evalset.src.astype(str).to_numpy()[seg])
    for i, ref in enumerate(evalset.ref_names):
        frame.insert(position + 1 + i, f"ref:{ref}", evalset.refs[ref].astype(str).to_numpy()[seg])
    return frame


def source_view(report, seg: int, sort_by: str = "problem") -> pd.DataFrame:
    """One source with every system, sorted worst first by ``sort_by``; ``seg`` is the 0-based position.

    Per system ``system, hyp, problem, relative``, the flag columns, ``human`` (when loaded) and every segment score;
    ``sort_by`` is ``problem``, ``human`` or a metric, direction-aware; ties in system order."""
    rows = queue(report, strict=True)
    rows = rows[rows["seg"] == int(seg)].drop(columns=["seg", "src", *(["doc"] if "doc" in rows else [])])
    if len(rows) == 0:
        raise ValueError(f"no segment at position {seg}: the data has {len(report.evalset.src)} segments")
    if sort_by not in rows.columns:
        raise ValueError(f"cannot sort by {sort_by!r}: choose problem, human or one of {', '.join(score_columns(report))}")
    if sort_by == "problem":
        badness = rows["problem"]
    elif sort_by == "human":
        badness = -rows["human"]
    else:
        badness = -metric_info(sort_by, report).oriented(rows[sort_by])
    order = {s: i for i, s in enumerate(report.evalset.systems)}
    rows = rows.assign(_bad=badness.fillna(-np.inf), _sys=rows["system"].map(order))
    rows = rows.sort_values(["_bad", "_sys"], ascending=[False, True], kind="stable")
    return rows.drop(columns=["_bad", "_sys"]).reset_index(drop=True)


def sort_keys(report) -> list[str]:
    """What :func:`source_view` can sort by: ``problem``, ``human`` when loaded, every segment score."""
    return ["problem", *(["human"] if has_human_scores(report) else []), *score_columns(report)]


def has_documents(report) -> bool:
    """True when the segments carry a document id (``doc``)."""
    return "doc" in report.evalset.segments.columns


def documents(report) -> list[str]:
    """The document ids in file order (empty without documents)."""
    if not has_documents(report):
        return []
    return list(dict.fromkeys(report.evalset.segments["doc"].astype(str)))


def document_scores(report, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Per document and system: ``doc, system, segments`` and every metric by its *corpus* formula, in document order.

    The formula runs on the document's summed statistics (:func:`mtdiag.analysis.segment_groups.bucket_scores` over
    ``label:doc``)."""
    from mtdiag.analysis.segment_groups import bucket_scores, bucketing

    frame = bucket_scores(report, bucketing(report, "label:doc"), metrics)
    return frame.rename(columns={"bucket": "doc"})


def text_filter(report, frame: pd.DataFrame, pattern: str) -> pd.DataFrame:
    """Rows of a :func:`queue` (or of :func:`sources`) whose texts contain a match of ``pattern``.

    The texts: the source, any reference or hypothesis — a pair's own, for a source any system's. Matched by
    :func:`mtdiag.core.search.columns_matching`: regular expression, case-insensitive, compiled once, one time budget
    for every column; ``ValueError`` for an invalid pattern or one longer than
    :data:`mtdiag.core.search.MAX_PATTERN_CHARS`."""
    evalset = report.evalset
    hyps = evalset.hyps.astype(str)
    sides = [evalset.src.astype(str).tolist(), *(evalset.refs[r].astype(str).tolist() for r in evalset.ref_names)]
    found = search.columns_matching(pattern, sides + [hyps[s].tolist() for s in hyps.columns])  # compiled once
    seg_hit = np.logical_or.reduce(found[:len(sides)])
    seg = frame["seg"].to_numpy()
    hyp_hit = np.column_stack(found[len(sides):])
    if "system" in frame.columns:
        column = {s: i for i, s in enumerate(hyps.columns)}
        return frame[seg_hit[seg] | hyp_hit[seg, frame["system"].map(column).to_numpy()]]
    return frame[seg_hit[seg] | hyp_hit.any(axis=1)[seg]]


# ----------------------------------------------------------------------------------------------- the view

ALL_DOCUMENTS = "(all documents)"
ORDERS = {0: "off", **{order: f"{order}-grams" for order in (1, 2, 3, 4)}}
SOURCE_ORDER = {"difficulty": "difficulty (mean problem over systems)", "spread": "spread (systems disagree)"}


def requested(mt_order: int) -> checks.Requested | None:
    """The on-request checks of a queue: MT-only n-grams of order ``mt_order`` (0: none)."""
    return checks.freeze({"mt_only_ngram": {"order": mt_order}} if mt_order else None)


def _flags(report, chosen) -> list[str]:
    return [check.name for check in checks.active_checks(report, requested(chosen["mt_order"]))]


def _documents(report, chosen) -> list[str]:
    return [ALL_DOCUMENTS, *documents(report)]


def _check_pattern(pattern: str) -> None:
    search.text_matches(pattern.strip(), [])  # ValueError for a pattern that is no regular expression


def _kept(report, frame: pd.DataFrame, chosen) -> pd.DataFrame:
    """``frame``'s rows in the chosen document whose texts match the chosen search."""
    if chosen["doc"] not in (None, ALL_DOCUMENTS):
        frame = frame[frame["doc"] == chosen["doc"]]
    if chosen["search"].strip():
        frame = text_filter(report, frame, chosen["search"].strip())
    return frame.reset_index(drop=True)


def worst_first(report, chosen) -> pd.DataFrame:
    """The queue (:func:`queue`) of the chosen systems, with any of the chosen flags, in the chosen document.

    Only the rows whose texts match the chosen search."""
    rows = queue(report, requested=requested(chosen["mt_order"]), strict=chosen["strict"])
    rows = rows[rows["system"].isin(chosen["systems"])]
    if chosen["flags"]:
        rows = rows[rows[list(chosen["flags"])].any(axis=1)]
    return _kept(report, rows, chosen)


def hardest_sources(report, chosen) -> pd.DataFrame:
    """The sources (:func:`sources`) by the chosen order, hardest first (ties: segment order).

    Only those in the chosen document whose texts match the chosen search."""
    frame = sources(report).sort_values([chosen["sort_sources"], "seg"], ascending=[False, True], kind="stable")
    return _kept(report, frame, chosen)


def export(report, chosen) -> pd.DataFrame:
    """:func:`segment_export` of the rows :func:`worst_first` keeps: what the Segments page's downloads write."""
    return segment_export(report, worst_first(report, chosen))


FIRST_SCREEN_TEXT = (f"the first {ranking.FIRST_SCREEN} rows show one pair per source (its worst output), then every "
                     "other pair from the worst again, so the problem column falls through those rows and starts "
                     f"over below them (strict pair order: one order throughout)")
"""What the queue's order is when it is not strict (:func:`mtdiag.triage.ranking.first_screen`): said where its reader
looks, since a problem of 1.000 under rows of 0.934 reads as a sorting error."""


def _queue_caption(report, chosen, frame) -> str:
    """How many rows of how many; and, when the first screen's one-pair-per-source order shows (not strict, a
    source with several pairs shown), that the problem column is not in one descending order."""
    count = f"{len(frame):,} of {report.evalset.n_segments * len(report.evalset.systems):,} rows, worst first"
    if chosen["strict"] or not frame["seg_id"].duplicated().any():
        return count
    return f"{count}: {FIRST_SCREEN_TEXT}."


def _sources_caption(report, chosen, frame) -> str:
    return f"{len(frame):,} of {report.evalset.n_segments:,} sources"


QUEUE = ("systems", "flags", "doc", "search", "mt_order", "strict")

VIEW = View(
    name="segments", title="Segments",
    help="the worst-first queue of (system, segment) pairs with their flags, the sources hardest first, documents",
    about=f"Worst first: {ranking.PROBLEM_TEXT}; the same order as mtdiag triage. A row whose critical column names a "
          "check is a plainly broken output and comes before rows of higher problem. Unless the order is strict, "
          f"{FIRST_SCREEN_TEXT}. Select a row to open its source with every system's output.",
    options=(
        SYSTEMS,
        ViewOption("doc", "Document", "only the segments of this document", choices=_documents,
                   needs=("documents",)),
        ViewOption("search", "Search source, references and outputs (regular expression)",
                   "Case-insensitive; a plain word matches anywhere in a text.", type=str, default="",
                   maximum=search.MAX_PATTERN_CHARS, check=_check_pattern),
        ViewOption("mt_order", "MT-only n-grams of order", "Flag outputs containing an n-gram the system uses ≥ 2 "
                   "times and the human translation (first reference) never uses.", choices=tuple(ORDERS), type=int,
                   describe=ORDERS, needs=("references",)),
        ViewOption("flags", "Flags (any of)", "only the outputs where any of these checks fired", choices=_flags,
                   many=True, default=(), describe=flag_label),
        ViewOption("strict", "Strict pair order", f"Off: the first {ranking.FIRST_SCREEN} rows show one pair per "
                   "source (its worst system), then every pair in order. On: every pair in problem order "
                   "(`mtdiag triage --strict`).", type=bool, default=False),
        ViewOption("sort_sources", "Sort sources by", "the order of the sources", choices=tuple(SOURCE_ORDER),
                   describe=SOURCE_ORDER),
        SPAN_THRESHOLD,
    ),
    tables=(
        Table("queue", "Worst first", worst_first, uses=QUEUE, caption=_queue_caption),
        Table("sources", "Sources, hardest first", hardest_sources, uses=("doc", "search", "sort_sources"),
              caption=_sources_caption),
        Table("documents", "Per document: corpus scores", lambda report, chosen: document_scores(report),
              needs=("documents",), uses=(),
              caption="Every metric by its corpus formula on the document's segments (statistics summed, not "
                      "segment scores averaged)."),
        Table("export", "Every shown pair with its texts", export, uses=QUEUE),
    ),
    details={"columns": queue_columns, "signals": why, "source": source_view, "sort_keys": sort_keys,
             "score_columns": score_columns},
)
