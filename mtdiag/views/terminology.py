"""The Terminology page: per-term accuracy and every term occurrence with its spans."""

from __future__ import annotations

import pandas as pd

from mtdiag.highlight import Span


def has_terms(report) -> bool:
    terms = report.evalset.terms
    return terms is not None and len(terms) > 0 and "term_exact" in report.metrics


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
