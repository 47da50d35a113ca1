"""``under_translation``: the output leaves out many words of the references — UTEM's under-matched unigrams
(Yang et al. 2018, eq. 6; with several references the fewest of any reference) counted, not divided by the
length: the most of them in the set (its worst 10 %, ties broken by the UTEM score) and at least
:data:`MIN_WORDS`.

Why a count: a 3-word line missing one word has a worse UTEM than a 60-word paragraph missing eight, but the
paragraph has more left out. On the three dev sets the count found human-worst outputs far more often than UTEM's
own worst 10 % (lift 3.18 / 2.29 / 3.46 against 1.59 / 1.55 / 1.08) and human-marked omissions (Accuracy/Omission)
2.75 times as often as chance on TED, against 2.13 (``docs/triage.md``)."""

from __future__ import annotations

from mtdiag.triage.checks.base import Finding, WorstByCount

MIN_WORDS = 3


class UnderTranslation(WorstByCount):
    """The ``under_translation`` check: many reference words left out (UTEM's under-matched words).

    Among the set's 10 % of outputs that leave out the most reference words, at least :data:`MIN_WORDS`."""
    name = "under_translation"
    label = "under-translation"
    help = (f"among the set's 10 % of outputs that leave out the most reference words (UTEM's under-matched "
            f"words; at least {MIN_WORDS})")
    needs = ("metric:utem",)
    reads_reference = True
    claims = ("Accuracy/Omission",)
    metric, statistic, min_count = "utem", "matched_1", MIN_WORDS  # UTEM's under-matched unigrams

    def explain(self, report, system, seg):
        """Why ``under_translation`` fired on one pair: its count of reference words left out, and its UTEM."""
        count = int(self.counts(report).loc[(system, seg)])
        return Finding((f"{count} reference word(s) left out (UTEM {report.segments.at[(system, seg), 'utem']:.3g}): "
                        "among the set's most",))
