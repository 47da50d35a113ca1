"""``missed_term``: a required term of the segment is not translated as annotated (term exact match < 100,
Alam et al. 2021); the Terms view shows each occurrence in context."""

from __future__ import annotations

import pandas as pd

from mtdiag.triage.checks.base import Check, Finding


class MissedTerm(Check):
    """The ``missed_term`` check: a term of the segment is not translated as annotated."""
    name = "missed_term"
    label = "missed term"
    help = "a term of the segment is not translated as annotated"
    needs = ("metric:term_exact",)
    claims = ("Terminology",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the pair has a term score (``term_exact``) below 100."""
        exact = report.segments["term_exact"]
        return exact.notna() & (exact < 100)

    def explain(self, report, system, seg):
        """Why ``missed_term`` fired on one pair: a term is not translated as annotated."""
        return Finding(("a term is not translated as annotated (see Terms)",))
