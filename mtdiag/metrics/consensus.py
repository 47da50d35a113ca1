"""Consensus: how much an output agrees with the other systems' outputs of the same source — a reference-free
signal. With no human reference, the outputs of several systems are each other's pseudo-references:
the expected agreement of a candidate with the others is what minimum-Bayes-risk decoding maximises (Kumar &
Byrne 2004), and its n-gram form — counts of the n-grams the candidate shares with each other output — is the
consensus decoding of DeNero et al. 2009. An output that disagrees with every other system gets a low score and
rises in the worst-first queue.

Definition (0–100, higher = more agreement). For order n (1..N, default N = 2, words as the report tokenises
them), segment i and system s among k systems, with ``c_s(g)`` the count of n-gram g in s's output:

- ``match_n = Σ_{j≠s} Σ_g min(c_s(g), c_j(g))`` — clipped matches against each other output, summed;
- ``hyp_n = (k − 1) · Σ_g c_s(g)`` — s's n-grams, once per pseudo-reference;
- ``ref_n = Σ_{j≠s} Σ_g c_j(g)`` — the other outputs' n-grams.

Precision ``P = mean_n match_n / hyp_n`` and recall ``R = mean_n match_n / ref_n`` over the orders (as chrF averages
its orders; an order with no n-grams on either side is left out), and the score is ``100 · 2PR / (P + R)`` (F1:
agreement is symmetric). Sufficient statistics per segment are ``[match_1..N, hyp_1..N, ref_1..N]``; the corpus
score applies the same formula to their sums (so significance resamples it like any metric), the segment score to
one row. It needs at least three systems: with two, each is the other's only pseudo-reference and both get the
same score. It is computed by default where there is no reference; with references it is there on request
(``--metrics ...,consensus``), so that a set with references scores exactly as before.

Vectorised: ``Σ_{j≠s} min(c_s, c_j) = c_s>0 · (#{j ≠ s: c_j ≥ 1})`` wherever at most one output has the n-gram
twice or more (most n-grams occur once) — one pass over the whole table —, and in the few columns where two or more
outputs have it twice or more, each column's counts ranked: the count at rank r (ascending) meets the r lower counts
and ``k − 1 − r`` counts at least its own, ``Σ_{j≠s} min(c_s, c_j) = Σ_{q<r} c_(q) + (k − 1 − r) · c_s`` — no loop
over pairs of systems, nor over count levels (a run of one character or word held thousands of times by several
outputs took a pass per level). chrF consensus (:mod:`mtdiag.metrics.chrf_consensus`, on characters) and the
suspect-reference check count with the same function.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.core.highlight import Span
from mtdiag.metrics.base import EvidenceTable, Metric, MetricInfo, OptionSpec, ScoringContext, SegmentEvidence

_PAPER = "Kumar & Byrne 2004 (MBR); DeNero et al. 2009 (consensus n-gram expectations)"


def against_the_others(index, sides: list, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each side scored against the other sides pooled, at order ``n``: (matches, own n-grams, the others' n-grams).

    Per side (rows) and segment (columns): its matches with the others (:func:`matches_with_the_others`), its n-grams
    once per other side (precision's denominator) and the others' n-grams (recall's) — the counts of both
    reference-free metrics, in one layout."""
    totals = index.segment_totals(sides, n)
    return (matches_with_the_others(index, sides, n), totals * (len(sides) - 1),
            totals.sum(axis=0, keepdims=True) - totals)


def matches_with_the_others(index, sides: list, n: int) -> np.ndarray:
    """Per side of ``sides`` (rows) and segment (columns): ``Σ_{j≠s} Σ_g min(c_s(g), c_j(g))`` at order ``n``.

    Over the order-``n`` n-grams of ``index`` (:class:`~mtdiag.metrics.ngram_index.NgramIndex`; the module
    docstring's "Vectorised"): the presence count over the whole table, then the exact sums in the columns two sides
    have twice or more."""
    rows = index.rows(sides, n)
    present = rows > 0
    others = present.sum(axis=0, dtype=np.int16) - 1  # #{j ≠ s: c_j ≥ 1}, for any s that has the n-gram
    out = index.segment_sums(present * others, n)
    columns = np.flatnonzero((rows >= 2).sum(axis=0, dtype=np.int16) >= 2)
    if len(columns):
        counts = rows[:, columns].astype(np.int64)
        order = np.argsort(counts, axis=0, kind="stable")
        ranked = np.take_along_axis(counts, order, axis=0)  # ascending: c_s at rank r meets r lower counts
        exact = np.empty_like(counts)
        np.put_along_axis(exact, order, np.cumsum(ranked, axis=0) - ranked
                          + ranked * np.arange(len(sides) - 1, -1, -1, dtype=np.int64)[:, None], axis=0)
        extra = exact - present[:, columns] * others[columns]
        segment = np.searchsorted(index.seg_start(n), columns, side="right") - 1
        first = np.flatnonzero(np.concatenate([[True], segment[1:] != segment[:-1]]))
        out[:, segment[first]] += np.add.reduceat(extra, first, axis=1)
    return out


def _f_score(stats: np.ndarray, order: int) -> np.ndarray:
    stats = np.asarray(stats, dtype=float)
    match, hyp, ref = stats[..., :order], stats[..., order:2 * order], stats[..., 2 * order:3 * order]
    present = (hyp > 0) | (ref > 0)
    n = present.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(hyp > 0, match / np.where(hyp > 0, hyp, 1), 0.0)
        r = np.where(ref > 0, match / np.where(ref > 0, ref, 1), 0.0)
        precision = np.where(n > 0, (p * present).sum(axis=-1) / np.maximum(n, 1), 0.0)
        recall = np.where(n > 0, (r * present).sum(axis=-1) / np.maximum(n, 1), 0.0)
        f = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    return 100.0 * f


def pairwise_agreement(ctx: ScoringContext, segments: np.ndarray, order: int = 2) -> np.ndarray:
    """The agreement of every two systems' outputs on the given segments, ``(system, system, segment)``.

    ``segments`` are 0-based positions. The agreement is the consensus formula with one pseudo-reference (word n-gram
    F1 over orders 1..``order``, symmetric; the diagonal is each output against itself). One pass per order over the
    n-gram table's columns of those segments."""
    index = ctx.word_ngrams(order)
    outputs = [("hyp", s) for s in ctx.evalset.systems]
    segments = np.asarray(segments, dtype=np.int64)
    k, m = len(outputs), len(segments)
    match = np.zeros((order, k, k, m), dtype=np.int64)
    totals = np.zeros((order, k, m), dtype=np.int64)
    for n in range(1, order + 1):
        columns, where = index.segment_columns(n, segments)
        table = index.rows(outputs, n)[:, columns].astype(np.int64)
        for i in range(k):
            pairs = np.minimum(table[i][None, :], table)
            for j in range(k):
                match[n - 1, i, j] = np.bincount(where, weights=pairs[j], minlength=m)
        totals[n - 1] = index.segment_totals(outputs, n)[:, segments]
    stats = np.concatenate([np.moveaxis(match, 0, -1), np.broadcast_to(
        np.moveaxis(totals, 0, -1)[:, None], (k, k, m, order)), np.broadcast_to(
        np.moveaxis(totals, 0, -1)[None, :], (k, k, m, order))], axis=-1)
    return _f_score(stats, order)


class Consensus(Metric):
    """Agreement with the other systems' outputs (MBR / consensus n-grams); 0–100, higher is better; no reference."""

    info = MetricInfo(
        name="consensus", label="Consensus", paper=_PAPER, scale=100, higher_is_better=True,
        needs=("three_systems",), default_with_references=False, compares_systems=True,
        description="Agreement of the output with the other systems' outputs of the same source (word n-gram F1 "
                    "against them as pseudo-references); reference-free.",
        options=(OptionSpec("order", 2, "maximum word n-gram order N", minimum=1, maximum=4),),
    )

    @property
    def order(self) -> int:
        """The maximum word n-gram order N."""
        return self.options["order"]

    @property
    def stat_names(self) -> tuple[str, ...]:
        """``match_1..N``, ``hyp_1..N``, ``ref_1..N`` (module docstring)."""
        n = range(1, self.order + 1)
        return (*(f"match_{i}" for i in n), *(f"hyp_{i}" for i in n), *(f"ref_{i}" for i in n))

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """No reference, the other systems as pseudo-references, then the shared tokenisation and the options."""
        return (("ref", "none"), ("pseudo", "other-systems"), *super().signature_fields(ctx))

    def _all_statistics(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Every system's statistics at once (:func:`against_the_others` per order), memoised per order."""
        def build():
            index = ctx.word_ngrams(self.order)
            systems = ctx.evalset.systems
            outputs = [("hyp", s) for s in systems]
            parts = [against_the_others(index, outputs, n) for n in range(1, self.order + 1)]
            return {s: np.column_stack([p[kind][i] for kind in range(3) for p in parts])
                    for i, s in enumerate(systems)}

        return ctx.memo(("consensus", self.order), build)

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: ``[match_1..N, hyp_1..N, ref_1..N]`` against the other systems' outputs."""
        return self._all_statistics(ctx)[system]

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """``100 · 2PR / (P + R)`` over the orders that have n-grams (module docstring)."""
        return _f_score(stats_sum, self.order)

    def segment_evidence(self, ctx: ScoringContext, system: str, seg: int) -> SegmentEvidence | None:
        """The output's words that no other system's output of the segment has (marked ``unshared``)."""
        others = {t for s in ctx.evalset.systems if s != system for t in ctx.tokens.hyps[s].segment(seg).tolist()}
        ids = ctx.tokens.hyps[system].segment(seg)
        alone = [i for i, t in enumerate(ids.tolist()) if t not in others]
        shown, _ = ctx.display_tokens(system, seg)
        frame = pd.DataFrame({"word": [shown[i] for i in alone]})
        return SegmentEvidence(hyp_spans=tuple(Span(i, i + 1, "unshared", "used by no other system") for i in alone),
                               legend=("unshared",),
                               tables={"consensus": EvidenceTable(
                                   "Consensus", frame, "Words of this output that no other system's output has.",
                                   empty="Every word of this output is in some other system's output.")})
