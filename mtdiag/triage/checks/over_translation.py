"""``over_translation``: the output repeats many words beyond what the references have — OTEM's over-matched
unigrams (Yang et al. 2018, eq. 3: a word the output has more often than the references, or more than once where
they never have it) counted, not divided by the length: the most of them in the set (its worst 10 %, ties broken
by the OTEM score) and at least :data:`MIN_WORDS`.

Why a count and not the OTEM rate: a human penalises each error, so a 60-word paragraph with four repeated words
holds more to fix than a 4-word line with one, although its rate is lower. On the three dev sets the count found
the human-worst outputs far more often than OTEM's own worst 10 % (lift 2.58 / 1.55 / 2.97 against 1.78 / 1.45 /
2.02, ``docs/triage.md``). A source that repeats itself excuses the output (``source_loops``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Finding, WorstByCount, by_pair, has_source
from mtdiag.triage.checks.tokens import source_loops

MIN_WORDS = 2


class OverTranslation(WorstByCount):
    """The ``over_translation`` check: many words repeated beyond the references (OTEM's over-matched words).

    Among the set's 10 % of outputs with the most such words, at least :data:`MIN_WORDS`."""
    name = "over_translation"
    label = "over-translation"
    help = (f"among the set's 10 % of outputs with the most words repeated beyond the references (OTEM's "
            f"over-matched words; at least {MIN_WORDS})")
    needs = ("metric:otem",)
    reads_reference = True
    claims = ("Accuracy/Addition",)
    metric, statistic, min_count = "otem", "matched_1", MIN_WORDS  # OTEM's over-matched unigrams

    def fires(self, report) -> pd.Series:
        """One boolean per pair: :class:`WorstByCount`'s rule, but not where the source itself repeats.

        Whether the source repeats is read only for the segments where the rule fired (:func:`source_loops`)."""
        fired = super().fires(report)
        if has_source(report):
            segs = fired.index.get_level_values("seg").to_numpy()
            candidates = np.zeros(report.evalset.n_segments, bool)
            candidates[segs[fired.to_numpy()]] = True
            loops = source_loops(report, candidates)
            fired &= by_pair(report, {s: ~loops for s in report.evalset.systems})
        return fired

    def explain(self, report, system, seg):
        """Why ``over_translation`` fired on one pair: its count of words repeated beyond the references, its OTEM."""
        count = int(self.counts(report).loc[(system, seg)])
        return Finding((f"{count} word(s) repeated beyond the references (OTEM "
                        f"{report.segments.at[(system, seg), 'otem']:.3g}): among the set's most",))
