"""``inconsistent``: the same source segment occurs more than once in the set (identical text once white space is
collapsed) and one system translated its occurrences differently (outputs compared with white space collapsed).
Every occurrence of that source in that system's output is flagged: which one is right is the reader's call. The
consistency check of the translators' QA tools (Xbench, Verifika), within one test set; a grouping over all
pairs at once (pandas), no loop over pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import collapse_spaces
from mtdiag.triage.checks.base import Check, Finding, by_pair

QUOTED = 80  # characters of another translation quoted in the explanation


def _collapsed(texts: pd.Series) -> pd.Series:
    """White space collapsed and trimmed (:func:`~mtdiag.core.tokenize.collapse_spaces`), on the texts' index."""
    return pd.Series(collapse_spaces(texts.tolist()), index=texts.index)


def repeated_sources(report) -> pd.Series:
    """Per segment: an id shared by the segments with the same (non-empty) source text.

    The id is −1 for a source that occurs once."""
    def build():
        src = report.evalset.src.astype(str)
        codes, _ = pd.factorize(_collapsed(src))
        counts = np.bincount(codes, minlength=codes.max(initial=-1) + 1)
        return pd.Series(np.where((counts[codes] > 1) & src.str.strip().ne("").to_numpy(), codes, -1),
                         index=src.index)

    return report.context.memo(("checks", "repeated_sources"), build)


def inconsistent_segments(report) -> dict[str, np.ndarray]:
    """Per system: the segments whose source recurs in the set and that the system translated in more than one way.

    Only the outputs of recurring sources are read."""
    group = repeated_sources(report)
    repeated = np.flatnonzero(group.to_numpy() >= 0)
    out = {}
    for system in report.evalset.systems:
        mask = np.zeros(report.evalset.n_segments, dtype=bool)
        if len(repeated):
            outputs = _collapsed(report.evalset.hyps[system].iloc[repeated])
            ways = outputs.groupby(group.iloc[repeated].to_numpy()).transform("nunique").to_numpy()
            mask[repeated[ways > 1]] = True
        out[system] = mask
    return out


class Inconsistent(Check):
    """The ``inconsistent`` check: a source that recurs in the set, translated by this system in different ways."""
    name = "inconsistent"
    label = "inconsistent"
    help = "the same source occurs more than once in the set and this system translated it in different ways"
    needs = ("source",)
    claims = ("Terminology/Inconsistent", "Fluency/Inconsistency", "Style/Inconsistent")

    def fires(self, report) -> pd.Series:
        """One boolean per pair: :func:`inconsistent_segments`."""
        return by_pair(report, inconsistent_segments(report))

    def explain(self, report, system, seg):
        """Why ``inconsistent`` fired on one pair: the system's other translations of the same source.

        One sentence per other translation, with the segments that have it."""
        group = repeated_sources(report)
        others = np.flatnonzero(group.to_numpy() == group.iat[seg])
        outputs = _collapsed(report.evalset.hyps[system].iloc[others]).to_numpy()
        own = outputs[others == seg][0]
        sentences = []
        for other, segs in pd.Series(others).groupby(outputs):
            if other == own:
                continue
            shown = other if len(other) <= QUOTED else other[: QUOTED - 1] + "…"
            where = ", ".join(str(s + 1) for s in segs)
            sentences.append(f"the same source is translated “{shown}” in segment(s) {where}")
        return Finding(tuple(sentences))
