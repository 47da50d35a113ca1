"""``mixed_language``: the output is in the target language but has a passage in another — a sentence left in the
source language, a quotation kept untranslated: a passage CLD2 reads as another language, with at least
:data:`~mtdiag.triage.checks.languages.MIN_LETTER_BYTES` bytes of letters once the names kept from the source are
blanked out (:mod:`mtdiag.triage.checks.languages`). There is no minimum share of the output: one untranslated sentence
is an error in a paragraph of any length."""

from __future__ import annotations

import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans
from mtdiag.triage.checks.languages import language_findings
from mtdiag.triage.checks.wrong_language import described, whole_outputs

QUOTED = 60  # characters of a passage quoted in the explanation


class MixedLanguage(Check):
    """The ``mixed_language`` check: a passage of the output is in another language than the target."""
    name = "mixed_language"
    label = "mixed language"
    help = "a passage of the output is in another language than the target (e.g. a sentence left untranslated)"
    needs = ("source",)
    claims = ("Accuracy/Untranslated", "Non-translation", "Source language fragment")
    marks = ("language",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: an output in the target language with passages in another (:func:`whole_outputs`)."""
        return by_pair(report, whole_outputs(report, whole=False))

    def explain(self, report, system, seg):
        """Why ``mixed_language`` fired on one pair: each passage in another language, quoted and marked."""
        finding = language_findings(report)[system][seg]
        text = str(report.evalset.hyps.at[seg, system])
        sentences = []
        for start, end, language in finding.passages:
            passage = " ".join(text[start:end].split())
            passage = passage if len(passage) <= QUOTED else passage[: QUOTED - 1] + "…"
            sentences.append(f"a passage in {described(report, language)}: “{passage}”")
        spans = character_spans(report, system, seg, [(a, b) for a, b, _ in finding.passages], "language",
                                "not in the target language")
        return Finding(tuple(sentences), tuple(spans))
