"""``wrong_language``: the output is not in the target language — CLD2 reliably reads most of it as another
language, also once the names kept from the source are blanked out (:mod:`mtdiag.triage.checks.languages`: thresholds,
the expected language, names). A critical check: an output in the wrong language is plainly broken, whatever a
metric makes of it. An output only partly in another language is ``mixed_language``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans
from mtdiag.triage.checks.languages import language_findings, language_name, source_language, target_language


def whole_outputs(report, whole: bool) -> dict[str, np.ndarray]:
    """Per system: the outputs mostly in another language (``whole``), or with passages in another (not ``whole``).

    With ``whole``: the outputs whose text is mostly in another language than the target; without: those in the target
    language with passages in another."""
    n = report.evalset.n_segments
    flagged = {}
    for system, findings in language_findings(report).items():
        mask = np.zeros(n, dtype=bool)
        segs = [seg for seg, f in findings.items() if (f.language is not None) == whole]
        mask[np.asarray(segs, dtype=np.int64)] = True
        flagged[system] = mask
    return flagged


def described(report, language: str) -> str:
    """``French``, or ``English (the source's language)``."""
    return language_name(language) + (" (the source's language)" if language == source_language(report) else "")


class WrongLanguage(Check):
    """The ``wrong_language`` check (critical): the output is not in the target language.

    By language identification, names kept from the source aside."""
    name = "wrong_language"
    label = "wrong language"
    help = "the output is not in the target language (language identification, names kept from the source aside)"
    needs = ("source",)
    critical = True
    claims = ("Accuracy/Untranslated", "Non-translation", "Source language fragment")
    marks = ("language",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output is mostly in another language than the target (:func:`whole_outputs`)."""
        return by_pair(report, whole_outputs(report, whole=True))

    def explain(self, report, system, seg):
        """Why ``wrong_language`` fired on one pair: the language it is in and its share, the passages marked."""
        finding = language_findings(report)[system][seg]
        sentence = (f"the output is in {described(report, finding.language)} ({finding.percent} % of its text), "
                    f"not in {language_name(target_language(report))}")
        spans = character_spans(report, system, seg, [(a, b) for a, b, _ in finding.passages], "language",
                                "not in the target language")
        return Finding((sentence,), tuple(spans))
