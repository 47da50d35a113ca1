"""The Terminology page: per-term accuracy and every term occurrence with its spans."""

from __future__ import annotations

import pandas as pd

from mtdiag.core.highlight import Span
from mtdiag.views.base import SYSTEMS, TERMS, Table, View, ViewOption, has_terms, systems

TERM_METRICS = ("term_exact", "term_window2", "term_window3", "term_ter")


def term_table(report, system: str) -> pd.DataFrame | None:
    """Every term occurrence of one system with its verdict and spans (None when the data has no terms)."""
    if not has_terms(report):
        return None
    from mtdiag.metrics.terminology import term_occurrences

    return term_occurrences(report.context, system)


def term_summary(report) -> pd.DataFrame:
    """Per term and system: occurrences, correct, accuracy (0–100) and the segments where it was missed.

    A term is a source term with its target alternatives. Long form, most-missed first."""
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
    """Highlight spans of one term occurrence: (hypothesis spans, first-reference spans).

    They mark the term and its ``window``-token context."""
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


def occurrences(report, system: str, window: int, only_missed: bool = False) -> pd.DataFrame:
    """Every term occurrence of one system as the page lists it (only the missed ones with ``only_missed``).

    Columns: ``seg, src_term, tgt_terms, k, correct`` and the ``window``-token overlap."""
    table = term_table(report, system)
    if only_missed:
        table = table[~table["correct"]]
    return table[["seg", "src_term", "tgt_terms", "k", "correct", f"window{window}"]].reset_index(drop=True)


def occurrence_spans(report, system: str, seg: int, src_term: str, tgt_terms: str, k: int,
                     window: int) -> tuple[list[Span], list[Span], bool]:
    """One occurrence of a term in ``system``'s output: its :func:`term_spans` and whether the output has the term.

    The occurrence: segment ``seg``, 0-based; the ``k``-th of its term there."""
    table = term_table(report, system)
    row = table[(table["seg"] == seg) & (table["src_term"] == src_term) & (table["tgt_terms"] == tgt_terms)
                & (table["k"] == k)].iloc[0]
    return (*term_spans(report, system, row, window), bool(row["correct"]))


def _terms(report, chosen) -> pd.DataFrame:
    summary = term_summary(report)
    return summary[summary["system"].isin(chosen["systems"])].reset_index(drop=True)


def _terms_caption(report, chosen, frame) -> str:
    terms = frame[["src_term", "tgt_terms"]].drop_duplicates().shape[0]
    return f"{terms:,} terms; least often right first. 'missed_in' lists the segments where the term is missing."


VIEW = View(
    name="terminology", title="Terminology",
    help="per-system term scores, per-term accuracy, and every term occurrence in context",
    about="Exact match: share of term occurrences whose target term (or an alternative) is in the output. Window "
          "overlap (2, 3): how much of the term's context in the reference the output keeps around it. TERm: TER "
          "where a missed term word costs 2 (Alam et al. 2021). All 0–100, higher is better.",
    needs=TERMS,
    options=(
        SYSTEMS,
        ViewOption("system", "System", "the system whose occurrences are listed", choices=systems),
        ViewOption("window", "Window", "the context window around a term", choices=(2, 3), type=int,
                   describe={2: "2 words", 3: "3 words"}),
        ViewOption("only_missed", "Only missed terms", "List only the occurrences the output misses.", type=bool,
                   default=False),
    ),
    tables=(
        Table("scores", "Per system", lambda report, chosen: term_scores(report), uses=()),
        Table("terms", "Per term", _terms, uses=("systems",), caption=_terms_caption),
        Table("occurrences", "Occurrences in context",
              lambda report, chosen: occurrences(report, chosen["system"], chosen["window"], chosen["only_missed"]),
              uses=("system", "window", "only_missed")),
    ),
    details={"spans": occurrence_spans},
    in_report=False,
)
