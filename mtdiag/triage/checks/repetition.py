"""``repetition``: the output loops — a word three times in a row, or a phrase of 2–4 words twice in a row — where
neither the source nor any reference does (the hallucination loop OTEM measures, Yang et al. 2018, caught where it
is unmistakable). A critical check: a loop is a broken output. A repetition the source has (``Thank you. Thank
you.``, ``交了啦，交了啦``) is a faithful translation, not a fault."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, has_source, runs
from mtdiag.triage.checks.tokens import loop_positions, loops_per_segment, source_loops, word_ids


class Repetition(Check):
    """The ``repetition`` check (critical): a phrase repeated in a row that neither the source nor a reference repeats.

    A word counts when it is said three times in a row."""
    name = "repetition"
    label = "repetition loop"
    help = "the output repeats a phrase in a row (a word: three times), and neither the source nor a reference does"
    critical = True
    claims = ("Accuracy/Addition", "Fluency", "Style/Awkward")
    marks = ("loop",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output loops (:func:`loop_positions`), neither the source nor a reference."""
        toks = report.context.tokens
        words = word_ids(report)
        loops = {s: loops_per_segment(side.ids, side.offsets, words) for s, side in toks.hyps.items()}
        excused = np.zeros(report.evalset.n_segments, bool)
        for side in toks.refs.values():
            excused |= loops_per_segment(side.ids, side.offsets, words)
        if has_source(report):
            excused |= source_loops(report, np.any(list(loops.values()), axis=0) & ~excused)
        return by_pair(report, {s: loop & ~excused for s, loop in loops.items()})

    def explain(self, report, system, seg):
        """Why ``repetition`` fired on one pair: the words that repeat in a row, marked."""
        ids = report.context.tokens.hyps[system].segment(seg)
        marked = loop_positions(ids, np.array([0, len(ids)]), word_ids(report))
        return Finding(("the marked words repeat in a row, and neither the source nor a reference does",),
                       tuple(runs(marked, "loop", "repeated in a loop")))
