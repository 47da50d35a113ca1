"""The WAFT vs NEVA page: per (system, segment) WAFT, NEVA and the word-order flag, and the corpus's edit
operations (confusion pairs, insertions, deletions); a segment's alignment is :func:`mtdiag.views.detail.segment_detail`'s."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.triage import checks
from mtdiag.triage.checks.word_order import NEVA_ABOVE_WAFT
from mtdiag.views.base import SYSTEMS, Chart, Table, View, ViewOption, systems
from mtdiag.views.detail import segment_detail
from mtdiag.views.distributions import SCATTER_POINTS, sample_rows
from mtdiag.views.ngrams import content_only

__all__ = ["NEVA_ABOVE_WAFT", "disagreement", "word_order_table", "edit_tables", "op_counts", "sample_rows"]


def word_order_table(report, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (system, segment): WAFT, NEVA, ``neva_minus_waft`` and ``word_order``; word-order rows first.

    ``word_order`` (:mod:`mtdiag.triage.checks.word_order`): shared words in an order no reference has, in two or
    more places; those rows first, each group by largest NEVA − WAFT; ``hyp`` holds the output whole."""
    frame = report.segments[["waft", "neva"]].copy()
    frame["neva_minus_waft"] = frame["neva"] - frame["waft"]
    frame["word_order"] = checks.flag(report, "word_order")
    frame = frame.reset_index()
    if systems is not None:
        frame = frame[frame["system"].isin(list(systems))]
    hyps = report.evalset.hyps.astype(str)
    column = {s: i for i, s in enumerate(hyps.columns)}
    frame["hyp"] = hyps.to_numpy()[frame["seg"].to_numpy(dtype=np.int64),
                                   frame["system"].map(column).to_numpy(dtype=np.int64)]  # int even when empty
    return frame.sort_values(["word_order", "neva_minus_waft", "system", "seg"],
                             ascending=[False, False, True, True], ignore_index=True)


def disagreement(frame: pd.DataFrame) -> dict[str, int]:
    """What the page counts of a :func:`word_order_table` frame: ``rows``, ``neva_above`` and ``word_order``.

    ``neva_above`` — rows with NEVA > WAFT, the shaded half of the scatter; ``word_order`` — rows whose shared words
    are in an order no reference has."""
    return {"rows": len(frame), "neva_above": int((frame["neva_minus_waft"] > 0).sum()),
            "word_order": int(frame["word_order"].sum())}


def edit_tables(report, system: str, top: int | None = 50, hide_function_words: bool = False) -> dict[str, pd.DataFrame]:
    """The corpus's most frequent edit operations of one system: ``substitute``, ``insert`` and ``delete``.

    ``substitute``: confusion pairs hyp → ref; ``insert``: words only in the hypothesis; ``delete``: reference words
    missing; each ``hyp, ref, count``. ``hide_function_words`` drops the rows whose words are all punctuation or stop
    words (a confusion pair stays when either side is a content word: ``die → der`` goes, ``Virus → Erreger``
    stays)."""
    pairs = report.evidence("waft", system).confusion_pairs()
    out = {}
    for op, cols in (("substitute", ["hyp", "ref", "count"]), ("insert", ["hyp", "count"]),
                     ("delete", ["ref", "count"])):
        rows = pairs[pairs["op"] == op][cols].reset_index(drop=True)
        if hide_function_words:
            rows = content_only(rows, [c for c in ("hyp", "ref") if c in cols], report.context.tgt_lang)
        out[op] = rows.head(top) if top else rows
    return out


def op_counts(report) -> pd.DataFrame:
    """Per system: how many substitutions, insertions and deletions its best-reference alignments have."""
    rows = [{"system": system, **report.evidence("waft", system).operation_counts()}
            for system in report.evalset.systems]
    return pd.DataFrame(rows, columns=["system", "substitute", "insert", "delete"]).set_index("system")


# ----------------------------------------------------------------------------------------------- the view


def disagreeing(report, chosen) -> pd.DataFrame:
    """:func:`word_order_table` of the chosen systems, in its order or, with ``reverse``, the other way round.

    Its order: word-order rows first, largest NEVA − WAFT first; the other way round: the largest WAFT − NEVA
    first."""
    frame = word_order_table(report, chosen["systems"])
    return frame.iloc[::-1].reset_index(drop=True) if chosen["reverse"] else frame


def _scatter(report, chosen):
    from mtdiag.views.charts import waft_neva_scatter

    return waft_neva_scatter(sample_rows(word_order_table(report, chosen["systems"])), seg_ids=report.evalset.seg_ids)


def _scatter_caption(report, chosen, figure) -> str:
    rows = int(report.segments.index.get_level_values("system").isin(chosen["systems"]).sum())
    if rows <= SCATTER_POINTS:
        return ""
    return (f"Showing a random sample of {SCATTER_POINTS:,} of {rows:,} segments (one mass otherwise); the table "
            "below has them all.")


def _segments_caption(report, chosen, frame) -> str:
    counts = disagreement(frame)
    return (f"{counts['neva_above']:,} of {counts['rows']:,} rows have NEVA > WAFT (the shaded half of the chart); "
            f"{counts['word_order']:,} have shared words in an order no reference has, in two or more places "
            "(word_order: they come first). Select a row for its alignment.")


def _ops(report, chosen):
    from mtdiag.views.charts import op_bars

    return op_bars(op_counts(report))


def _edits(op: str):
    return lambda report, chosen: edit_tables(report, chosen["system"], top=None,
                                              hide_function_words=chosen["hide_function_words"])[op]


EDITS = ("system", "hide_function_words")

VIEW = View(
    name="waft_neva", title="WAFT vs NEVA",
    help="per-segment WAFT against NEVA (NEVA > WAFT: the right words in the wrong order), the word-order flag, "
         "and the corpus's edit operations",
    about="WAFT (1 − word edit distance / longer length) punishes words in the wrong place; NEVA (mean n-gram "
          "precision) does not. Forsbom (2003 §5) reads NEVA > WAFT as the right words in the wrong order; measured "
          "against human judgements, that reading does not hold for today's systems.",
    notes=(("What NEVA > WAFT does and does not mean (measured)", NEVA_ABOVE_WAFT),),
    needs=("references", "metric:waft", "metric:neva"),
    options=(
        SYSTEMS,
        ViewOption("reverse", "WAFT > NEVA first (the opposite disagreement, e.g. short outputs)",
                   "List the segments where WAFT is furthest above NEVA first.", type=bool, default=False),
        ViewOption("system", "System", "the system whose edit operations are listed", choices=systems),
        ViewOption("hide_function_words", "Hide punctuation and stop words", "Leave out edits whose words are all "
                   "punctuation, symbols or stop words of the target language.", type=bool, default=True),
    ),
    tables=(
        Table("segments", "Disagreeing segments", disagreeing, uses=("systems", "reverse"),
              caption=_segments_caption),
        Table("operations", "Edit operations per system", lambda report, chosen: op_counts(report).reset_index(),
              uses=()),
        Table("substitute", "Confusion pairs (hyp → ref)", _edits("substitute"), uses=EDITS),
        Table("insert", "Insertions (only in the output)", _edits("insert"), uses=EDITS),
        Table("delete", "Deletions (reference words missing)", _edits("delete"), uses=EDITS),
    ),
    charts=(Chart("scatter", "NEVA against WAFT", _scatter, uses=("systems",), caption=_scatter_caption),
            Chart("op_bars", "Edit operations over the corpus", _ops, uses=())),
    details={"segment": segment_detail},
    in_report=False,
)
