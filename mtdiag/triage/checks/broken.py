"""Plainly broken outputs, each a *critical* check (the pair leads the queue): an empty output
(``empty``), an output that is a fraction of what its source asks for (``truncated``), and a flood of one
character that the source does not have (``flood``). None needs a reference, and none is a matter of degree:
a translator must look at every one of them.

Lengths are in characters of the text without surrounding space. "What the source asks for" is calibrated on the
test set itself: the source's length times the median output/source length ratio of the set's non-empty outputs
(a zh→en output is about four times as long as its source in characters, an en→ja output less than half), so the
same rule holds for every language pair."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, character_spans

TRUNCATED_SHARE = 0.2  # an output under a fifth of the length its source asks for is truncated ...
TRUNCATED_MIN_CHARS = 20  # ... when that expected length is at least 20 characters (about four words)
FLOOD_RUN = 8  # one character (not a digit, not a space) this many times in a row is a flood
FLOOD = re.compile(r"([^\s\d])\1{%d,}" % (FLOOD_RUN - 1))  # linear: a run of one character, matched greedily


def _lengths(texts: pd.Series) -> np.ndarray:
    return texts.astype(str).str.strip().str.len().to_numpy()


def expected_lengths(report) -> np.ndarray:
    """Per segment: the output length (characters) its source asks for in this set.

    It is the source's length times the median output/source ratio over the set's non-empty outputs of non-empty
    sources."""
    def build():
        src = _lengths(report.evalset.src)
        hyps = np.column_stack([_lengths(report.evalset.hyps[s]) for s in report.evalset.systems])
        both = (hyps > 0) & (src[:, None] > 0)
        ratio = float(np.median((hyps / np.maximum(src, 1)[:, None])[both])) if both.any() else 1.0
        return src * ratio

    return report.context.memo(("checks", "expected_lengths"), build)


class Empty(Check):
    """The ``empty`` check (critical): the output is empty (or only spaces) while the source is not."""
    name = "empty"
    label = "empty output"
    help = "the output is empty (or only spaces) while the source is not"
    needs = ("source",)
    critical = True
    claims = ("Accuracy/Omission", "Non-translation")

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output is empty (or only spaces) while its source is not."""
        src = _lengths(report.evalset.src) > 0
        return by_pair(report, {s: (_lengths(report.evalset.hyps[s]) == 0) & src for s in report.evalset.systems})

    def explain(self, report, system, seg):
        """Why ``empty`` fired on one pair: nothing of the source was translated."""
        return Finding(("the output is empty: nothing of the source was translated",))


class Truncated(Check):
    """The ``truncated`` check (critical): the output is under a fifth of the length its source asks for in this set."""
    name = "truncated"
    label = "truncated"
    help = "the output is under a fifth of the length its source asks for in this set"
    needs = ("source",)
    critical = True
    claims = ("Accuracy/Omission",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: a non-empty output under :data:`TRUNCATED_SHARE` of :func:`expected_lengths`.

        Only where the expected length is at least :data:`TRUNCATED_MIN_CHARS` characters."""
        expected = expected_lengths(report)
        long_enough = expected >= TRUNCATED_MIN_CHARS
        flagged = {}
        for system in report.evalset.systems:
            length = _lengths(report.evalset.hyps[system])
            flagged[system] = (length > 0) & long_enough & (length < TRUNCATED_SHARE * expected)
        return by_pair(report, flagged)

    def explain(self, report, system, seg):
        """Why ``truncated`` fired on one pair: the output's length against the length its source asks for."""
        length = len(str(report.evalset.hyps.at[seg, system]).strip())
        return Finding((f"{length} characters where the source asks for about {expected_lengths(report)[seg]:.0f} "
                        "in this set: most of the source is not translated",))


def _floods(texts: pd.Series) -> list[set[str]]:
    """Per text: the flooded characters (a run of :data:`FLOOD_RUN` or more, not a space or digit), as a set.
    The code points of all texts are scanned at once (numpy: equal neighbours, run lengths by cumulative sums);
    the few texts with a long enough run are then read with :data:`FLOOD`."""
    texts = texts.astype(str).tolist()
    found: list[set[str]] = [set() for _ in texts]
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if len(codes) < FLOOD_RUN:
        return found
    text_of = np.repeat(np.arange(len(texts)), lengths)
    same = (codes[1:] == codes[:-1]) & (text_of[1:] == text_of[:-1])  # position i continues the run of i - 1
    need = FLOOD_RUN - 1
    run = np.concatenate([[0], np.cumsum(same)])
    ends = np.flatnonzero(run[need:] - run[:-need] == need)  # same[i : i + need] all true: a run of FLOOD_RUN
    for i in np.unique(text_of[ends]):
        found[i] = set(FLOOD.findall(texts[i]))
    return found


class Flood(Check):
    """The ``flood`` check (critical): a run of :data:`FLOOD_RUN` or more of one character the source does not have."""
    name = "flood"
    label = "character flood"
    help = f"one character {FLOOD_RUN} or more times in a row (!!!!!!!!, ........), which the source does not have"
    needs = ("source",)
    critical = True
    claims = ("Accuracy/Addition", "Fluency")
    marks = ("loop",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: the output floods a character (:data:`FLOOD`) that its source does not flood."""
        src = _floods(report.evalset.src)
        flagged = {}
        for system in report.evalset.systems:
            hyp = _floods(report.evalset.hyps[system])
            flagged[system] = np.fromiter((bool(h - s) for h, s in zip(hyp, src)), dtype=bool, count=len(hyp))
        return by_pair(report, flagged)

    def explain(self, report, system, seg):
        """Why ``flood`` fired on one pair: the flooded characters, their runs marked."""
        text = str(report.evalset.hyps.at[seg, system])
        source = set(FLOOD.findall(str(report.evalset.src.iat[seg])))
        runs = [m for m in FLOOD.finditer(text) if m.group(1) not in source]
        spans = character_spans(report, system, seg, [(m.start(), m.end()) for m in runs], "loop",
                                "a flood of one character")
        parts = [f"{len(m.group(0))} × {m.group(1)!r}" for m in runs[:3]]
        return Finding((f"a flood of one character: {', '.join(parts)}",), tuple(spans))
