"""The Terminology page: per-term accuracy and every term occurrence with its spans."""

from __future__ import annotations

import pandas as pd

from mtdiag.highlight import Span
from mtdiag.views.base import Table, View, ViewOption, has_terms, systems

TERM_METRICS = ("term_exact", "term_window2", "term_window3", "term_ter")


def term_table(report, system: str) -> pd.DataFrame | None:
    """Every term occurrence of one system with its verdict and spans (None when the data has no terms)."""
    if not has_terms(report):
        return None
    from mtdiag.metrics.terminology import term_occurrences

    return term_occurrences(report.context, system)


def term_summary(report) -> pd.DataFrame:
    """Per term (source term + target alternatives) and system: occurrences, correct, accuracy (0–100) and the
    segments where it was missed; long form, most-missed first."""
    rows = []
    for system in report.evalset.systems:
        occ = term_table(report, system)
        if occ is None or occ.empty:
            continue
        for (src_term, tgt_terms), group in occ.groupby(["src_term", "tgt_terms"], sort=False):
            missed = sorted(int(s) for s in group.loc[~group["correct"], "seg"].unique())
            rows.append({"system": system, "src_term": src_term, "tgt_terms": tgt_terms,
                         "occurrences": len(group), "correct": int(group["correct"].sum()),
                         "accuracy": 100.0 * group["correct"].mean(),
                         "missed_in": ", ".join(str(s) for s in missed)})
    frame = pd.DataFrame(rows, columns=["system", "src_term", "tgt_terms", "occurrences", "correct", "accuracy",
                                        "missed_in"])
    return frame.sort_values(["accuracy", "occurrences", "src_term", "system"], ascending=[True, False, True, True],
                             ignore_index=True)


def term_spans(report, system: str, occurrence: pd.Series, window: int) -> tuple[list[Span], list[Span]]:
    """Highlight spans of one term occurrence: (hypothesis spans, first-reference spans) with the term and its
    ``window``-token context."""
    hyp, ref = [], []
    title = f"{occurrence['src_term']} → {occurrence['tgt_terms']}"
    if occurrence["hyp_span"] is not None:
        hyp.append(Span(*occurrence["hyp_span"], "term_ok", title))
        hyp += [Span(i, i + 1, "window") for i in occurrence[f"hyp_window{window}"]]
    if occurrence["ref_span"] is not None:
        ref.append(Span(*occurrence["ref_span"], "term_ok" if occurrence["correct"] else "term_miss", title))
        ref += [Span(i, i + 1, "window") for i in occurrence[f"ref_window{window}"]]
    return hyp, ref


# ----------------------------------------------------------------------------------------------- the view


def term_scores(report) -> pd.DataFrame:
    """Per system: the term metrics computed (exact match, window overlap, 1 − TERm)."""
    return report.corpus[[m for m in TERM_METRICS if m in report.metrics]].reset_index()


def occurrences(report, system: str, window: int) -> pd.DataFrame:
    """Every term occurrence of one system as the page lists it: ``seg, src_term, tgt_terms, k, correct`` and the
    ``window``-token overlap."""
    return term_table(report, system)[["seg", "src_term", "tgt_terms", "k", "correct", f"window{window}"]]


VIEW = View(
    name="terminology", title="Terminology",
    help="per-system term scores, per-term accuracy, and every term occurrence in context",
    needs=("terms",),
    options=(
        ViewOption("system", "System", "the system whose occurrences are listed", choices=systems),
        ViewOption("window", "Window", "the context window around a term", choices=(2, 3), type=int,
                   describe={2: "2 words", 3: "3 words"}),
    ),
    tables=(
        Table("scores", "Per system", lambda report, chosen: term_scores(report)),
        Table("terms", "Per term", lambda report, chosen: term_summary(report)),
        Table("occurrences", "Occurrences in context",
              lambda report, chosen: occurrences(report, chosen["system"], chosen["window"])),
    ),
    in_report=False,
)
