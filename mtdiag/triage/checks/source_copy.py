"""``source_copy``: the output is the source itself — identical once Unicode compatibility forms (NFKC), case and
white space are normalised — where the target language differs from the source's (declared by the set's
language pair, else detected: :func:`~mtdiag.triage.checks.languages.source_language`,
:func:`~mtdiag.triage.checks.languages.target_language`; nothing fires while either is unknown). Only sources of at
least :data:`MIN_WORDS` words or :data:`MIN_SYLLABIC` Chinese, Japanese or Korean characters count: a name or a
number alone (*Joe*, *2020*, *iPhone*) may rightly stay as it is. A critical check: the output is not a
translation."""

from __future__ import annotations

import pandas as pd

from mtdiag.core.tokenize import collapse_spaces
from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans
from mtdiag.triage.checks.languages import declared_languages, same_language, source_language, target_language
from mtdiag.triage.checks.untranslated import SCRIPTS, SYLLABIC

MIN_WORDS = 2
MIN_SYLLABIC = 4
_SYLLABIC = "".join(SCRIPTS[s] for s in SYLLABIC)
_WORD = rf"[^\W\d_{_SYLLABIC}]+"  # a run of letters of an alphabet


def normalised(texts: pd.Series) -> pd.Series:
    """NFKC, lower-cased, white space collapsed and trimmed."""
    folded = texts.astype(str).str.normalize("NFKC").str.lower().tolist()
    return pd.Series(collapse_spaces(folded), index=texts.index)  # 2× faster than str.replace


def copyable_sources(report) -> pd.Series:
    """Per segment: the source is long enough that an identical output is a copy.

    Long enough: :data:`MIN_WORDS` words or :data:`MIN_SYLLABIC` syllabic characters."""
    src = report.evalset.src.astype(str)
    return (src.str.count(_WORD) >= MIN_WORDS) | (src.str.count(f"[{_SYLLABIC}]") >= MIN_SYLLABIC)


def languages_differ(report) -> bool:
    """The target language is known and differs from the known source language.

    Declared codes are taken as they are, also those CLD2 does not know."""
    source = source_language(report)
    target = declared_languages(report)[1] or target_language(report)
    return source is not None and target is not None and not same_language(source, target)


class SourceCopy(Check):
    """The ``source_copy`` check (critical): the output is identical to the source though the languages differ.

    Case and spaces aside."""
    name = "source_copy"
    label = "copy of the source"
    help = "the output is identical to the source (case and spaces aside) though the languages differ"
    needs = ("source",)
    critical = True
    claims = ("Accuracy/Untranslated", "Non-translation", "Source language fragment")
    marks = ("copied",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output is its copyable source (case and spaces aside), the languages differing."""
        if not languages_differ(report):
            return pd.Series(False, index=report.segments.index)
        src = normalised(report.evalset.src)
        copyable = (copyable_sources(report) & src.ne("")).to_numpy()
        return by_pair(report, {s: (normalised(report.evalset.hyps[s]) == src).to_numpy() & copyable
                                for s in report.evalset.systems})

    def explain(self, report, system, seg):
        """Why ``source_copy`` fired on one pair: the output is the source, not translated; all of it marked."""
        text = str(report.evalset.hyps.at[seg, system])
        spans = character_spans(report, system, seg, [(0, len(text))], "copied", "copied from the source")
        return Finding(("the output is the source, not translated",), tuple(spans))
