"""``length_outlier``: hallucinated length — the output is longer than the set's outputs usually are: the robust
z-score of log(length ratio) above :data:`LENGTH_Z` (median and MAD of the set, MAD scaled by 1.4826 to a normal's
σ; Iglewicz & Hoaglin 1993), at least :data:`MIN_FACTOR` times its closest reference, and the reference at least
:data:`MIN_REFERENCE_TOKENS` tokens long: a ratio of two short lengths is noise (``Danke.`` → ``Vielen Dank.`` is
twice as long and perfectly fine). When more than half the ratios equal the median (MAD 0), the mean absolute
deviation scaled by 1.2533 stands in for it (Iglewicz & Hoaglin's modified z-score). Short outputs are left to
``under_translation`` and ``truncated``: on zh-en, outputs at 0.5–0.67 of the reference's length were *better* by
MQM than average (lift 0.29), outputs over 1.5 worse (1.22; over 2: 2.92). A set whose ratios never vary flags
nothing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, modified_z_scores
from mtdiag.triage.checks.tokens import reference_lengths

LENGTH_Z = 3.5
MIN_FACTOR = 1.5
MIN_REFERENCE_TOKENS = 10


class LengthOutlier(Check):
    """The ``length_outlier`` check: an output/reference length ratio far outside the set's range.

    Only for references of at least :data:`MIN_REFERENCE_TOKENS` tokens."""
    name = "length_outlier"
    label = "length outlier"
    help = ("output/reference length ratio far outside the set's range (references of at least "
            f"{MIN_REFERENCE_TOKENS} tokens)")
    needs = ("metric:length_ratio",)
    reads_reference = True
    claims = ("Accuracy/Addition",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: a long-enough reference and a log length ratio that is a high modified z-score outlier.

        The modified z-score (:func:`modified_z_scores`) is above :data:`LENGTH_Z` and the ratio at least
        :data:`MIN_FACTOR`; the reference has at least :data:`MIN_REFERENCE_TOKENS` tokens."""
        ratio = report.segments["length_ratio"].astype(float)
        logs = np.log(ratio.where(ratio > 0))
        z = pd.Series(modified_z_scores(logs.to_numpy()), index=ratio.index)
        long_enough = by_pair(report, {s: reference_lengths(report) >= MIN_REFERENCE_TOKENS
                                       for s in report.evalset.systems})
        return ((z > LENGTH_Z) & (logs >= math.log(MIN_FACTOR))).fillna(False) & long_enough

    def explain(self, report, system, seg):
        """Why ``length_outlier`` fired on one pair: its length ratio, far outside the set's range."""
        ratio = report.segments.at[(system, seg), "length_ratio"]
        return Finding((f"length ratio {ratio:.2f}, far outside the set's range",))
