"""``under_translation``: the output leaves out many words of the references — UTEM's under-matched unigrams
(Yang et al. 2018, eq. 6; with several references the fewest of any reference) counted, not divided by the
length: the most of them in the set (its worst 10 %, ties broken by the UTEM score) and at least
:data:`MIN_WORDS`.

Why a count: a 3-word line missing one word has a worse UTEM than a 60-word paragraph missing eight, but the
paragraph has more left out. On the three dev sets the count found human-worst outputs far more often than UTEM's
own worst 10 % (lift 3.18 / 2.29 / 3.46 against 1.59 / 1.55 / 1.08) and human-marked omissions (Accuracy/Omission)
2.75 times as often as chance on TED, against 2.13 (``docs/triage.md``)."""

from __future__ import annotations

import pandas as pd

from mtdiag.checks.base import Check, Finding, statistic, worst_share_by

MIN_WORDS = 3


def under_matched_words(report) -> pd.Series:
    """Per pair: UTEM's under-matched unigram count (reference words the output leaves out)."""
    return statistic(report, "utem", "matched_1")


class UnderTranslation(Check):
    name = "under_translation"
    label = "under-translation"
    help = (f"among the set's 10 % of outputs that leave out the most reference words (UTEM's under-matched "
            f"words; at least {MIN_WORDS})")
    needs = ("utem",)
    claims = ("Accuracy/Omission",)

    def fires(self, report) -> pd.Series:
        count = under_matched_words(report)
        return worst_share_by(count, report.segments["utem"]) & (count >= MIN_WORDS)

    def explain(self, report, system, seg):
        count = int(under_matched_words(report).loc[(system, seg)])
        return Finding((f"{count} reference word(s) left out (UTEM {report.segments.at[(system, seg), 'utem']:.3g}): "
                        "among the set's most",))
