"""``mt_only_ngram`` (on request, option ``order``): the output contains an n-gram of the system's MT-only table
(Aikawa & Rarrick: an n-gram the system uses at least twice and the human translation — the first reference —
never). A view of the system's habits rather than a fault of one output, so it is computed only when asked for."""

from __future__ import annotations

import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair_segments
from mtdiag.metrics.ht_mt_ngrams import context_ngram_tables

MIN_COUNT = 2


def mt_only_segments(report, order: int = 1, min_count: int = MIN_COUNT) -> dict[str, list[int]]:
    """Per system, the segments whose hypothesis contains an n-gram of its MT-only table at ``order``."""
    tables = context_ngram_tables(report.context, orders=(order,), min_count=min_count)
    return {system: sorted({int(s) for arr in tables.table(system, order).mt_only["segments"] for s in arr})
            for system in report.evalset.systems}


class MtOnlyNgram(Check):
    """The ``mt_only_ngram`` check (on request): an n-gram of the output never occurs in the human translation."""
    name = "mt_only_ngram"
    label = "MT-only n-gram"
    help = "the output contains an n-gram that never occurs in the human translation"
    needs = ("references",)
    reads_reference = True
    on_request = True

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output has an MT-only n-gram of the ``order`` option (default 1)."""
        return by_pair_segments(report, mt_only_segments(report, int(self.options.get("order", 1))))

    def explain(self, report, system, seg):
        """Why ``mt_only_ngram`` fired on one pair: the output has an MT-only n-gram of this system."""
        return Finding((f"the output has an MT-only {self.options.get('order', 1)}-gram of this system "
                        "(see N-grams)",))
