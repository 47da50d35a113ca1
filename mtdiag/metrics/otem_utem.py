"""OTEM and UTEM: over- and under-translation evaluation metrics (Yang et al. 2018, eqs. 1-7).

``score = LP * exp(sum_n (1/N) log mp_n) * 100``, lower is better (``docs/metrics.md``, "OTEM / UTEM").

- OTEM (eq. 3): for each candidate n-gram g with candidate count cc and reference count rc,
  ``over(g) = cc - rc`` if ``cc > rc > 0``; ``cc - 1`` if ``rc = 0`` and ``cc > 1``; else 0.
  ``mp_n = sum over / sum cc``. Several references: ``rc = min_k count_k(g)`` (the paper's rule, eq. 3 text).
  ``LP = 1 if c < r else exp(1 - r/c)`` (eq. 5), c and r summed over the corpus, r = closest reference length.
- UTEM (eq. 6): for each reference n-gram, ``under(g) = max(0, rc - cc)``; ``mp_n = sum under / sum rc``.
  Several references, per segment and order (the reference script's "optimistic" rule):
  ``under_n = min_k under_k``, ``total_n = max_k total_k``, chosen independently; a reference with no n-grams of
  order n is left out of that order. ``LP = 1 if c > r else exp(1 - c/r)`` (eq. 7).

If any ``mp_n = 0`` (including orders with no n-grams at all) the geometric mean collapses and the score is 0, as
in the public reference script (DeepLearnXMU/Otem-Utem ``metric.py``); a corpus with reference length 0 scores 0.
Single-reference numbers equal that script's to 1e-12 (tests). Its multi-reference OTEM takes the minimum
*positive* over-count; we follow the paper (minimum reference count) — documented in docs/metrics.md.

Sufficient statistics per segment: ``[c, r, m_1..m_N, t_1..t_N]`` (m = over/under counts, t = totals).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.core.highlight import Span, ngram_spans
from mtdiag.metrics.base import EvidenceTable, Metric, MetricInfo, OptionSpec, ScoringContext, SegmentEvidence
from mtdiag.metrics.ngram_index import hyp_and_closest_ref_lengths

_PAPER = "Yang et al. 2018, Otem&Utem (eqs. 1-7)"

HIGHLIGHT_MAX_ORDER = 2  # under-matched n-grams above this order are listed, not highlighted


def _geometric_score(stats: np.ndarray, order: int, long_penalty: bool) -> np.ndarray:
    """``100 * LP * exp(mean_n log mp_n)`` from summed statistics, vectorised over leading axes."""
    stats = np.asarray(stats, dtype=float)
    c, r = stats[..., 0], stats[..., 1]
    matched, total = stats[..., 2 : 2 + order], stats[..., 2 + order : 2 + 2 * order]
    with np.errstate(divide="ignore", invalid="ignore"):
        mp = np.where(total > 0, matched / np.where(total > 0, total, 1), 0.0)
        if long_penalty:  # OTEM: penalise candidates longer than the reference
            lp = np.where(c < r, 1.0, np.exp(1.0 - r / np.where(c > 0, c, 1)))
        else:  # UTEM: penalise candidates shorter than the reference
            lp = np.where(c > r, 1.0, np.exp(1.0 - c / np.where(r > 0, r, 1)))
        log_sum = np.zeros(c.shape)
        for n in range(order):  # sequential sum, as the reference script
            log_sum = log_sum + np.log(np.where(mp[..., n] > 0, mp[..., n], 1.0)) * (1.0 / order)
        score = lp * np.exp(log_sum) * 100.0
    collapsed = (mp <= 0).any(axis=-1) | (r <= 0)
    return np.where(collapsed, 0.0, score)


def _lengths(ctx: ScoringContext, system: str) -> tuple[np.ndarray, np.ndarray]:
    return hyp_and_closest_ref_lengths(ctx.tokens, system)


class _OverUnder(Metric):
    order_default: int

    @property
    def order(self) -> int:
        return self.options["order"]

    @property
    def stat_names(self) -> tuple[str, ...]:
        n = range(1, self.order + 1)
        return ("hyp_len", "ref_len", *(f"matched_{i}" for i in n), *(f"total_{i}" for i in n))

    def mp_per_order(self, stats: np.ndarray) -> np.ndarray:
        """``mp_n`` per order from (summed or per-segment) statistics; 0 where an order has no n-grams."""
        matched = stats[..., 2 : 2 + self.order].astype(float)
        total = stats[..., 2 + self.order :].astype(float)
        return np.divide(matched, total, out=np.zeros_like(matched), where=total > 0)


class OTEM(_OverUnder):
    """Over-translation evaluation metric (Yang et al. 2018, eqs. 2-5); 0-100, lower is better."""

    info = MetricInfo(
        name="otem",
        label="OTEM",
        description="Over-translation: share of repeated (over-matched) n-grams, with a long-length penalty.",
        paper=_PAPER + ", eqs. 2-5",
        scale=100,
        higher_is_better=False,
        options=(OptionSpec("order", 2, "maximum n-gram order N", minimum=1, maximum=4),),
    )

    def over_counts(self, ctx: ScoringContext, system: str, n: int, segments: Sequence[int] | None = None):
        """Per candidate (segment, n-gram) of order ``n``: segments, n-grams, the counts and the over-count (eq. 3).

        Of ``segments`` only when given; the arrays are the segments, the n-grams, the candidate count, the reference
        count (min over refs) and the over-count."""
        index = ctx.word_ngrams(self.order)
        hyp = index.counts(("hyp", system), n)
        at = _positions(hyp, segments)
        keys, cc = hyp.keys[at], hyp.counts[at]
        rc = index.reference_extremes(n)[1][keys].astype(np.int64)
        over = np.where((cc > rc) & (rc > 0), cc - rc, np.where((rc == 0) & (cc > 1), cc - 1, 0))
        return hyp.seg[at], keys, cc, rc, over

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: ``[c, r, m_1..m_N, t_1..t_N]`` (m: over-counts), computed once for every system."""
        return ctx.memo(("otem", self.order), lambda: self._all_statistics(ctx))[system]

    def _all_statistics(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Every system's statistics at once, per order one pass over the n-gram table: :meth:`over_counts`'s
        rule on every cell (a cell the hypothesis lacks over-counts nothing)."""
        index, systems = ctx.word_ngrams(self.order), ctx.evalset.systems
        hyps = [("hyp", s) for s in systems]
        over_n, total_n = [], []
        for n in range(1, self.order + 1):
            cc, rc = index.rows(hyps, n), index.reference_extremes(n)[1]
            # cc - rc where cc > rc > 0 (cc - min(cc, rc): 0 otherwise); where rc = 0, cc - 1 where cc > 1
            over = np.where(rc > 0, cc - np.minimum(cc, rc), np.maximum(cc, 1) - 1)
            over_n.append(index.segment_sums(over, n))
            total_n.append(index.segment_totals(hyps, n))
        return {s: np.column_stack([*_lengths(ctx, s), *(o[i] for o in over_n), *(t[i] for t in total_n)]
                                   ).astype(np.int64) for i, s in enumerate(systems)}

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """``100 * LP * exp(mean_n log mp_n)`` with OTEM's long-length penalty (LP, eq. 5)."""
        return _geometric_score(stats_sum, self.order, long_penalty=True)

    def evidence(self, ctx: ScoringContext, system: str, segments: Sequence[int] | None = None) -> pd.DataFrame:
        """The over-matched n-grams of every segment (or of ``segments``).

        Columns: ``seg, order, ngram, hyp_count, ref_count, over``."""
        parts = []
        for n in range(1, self.order + 1):
            seg, keys, cc, rc, over = self.over_counts(ctx, system, n, segments)
            keep = over > 0
            parts.append({"seg": seg[keep], "order": np.full(int(keep.sum()), n, dtype=np.int64),
                          "ngram": _ngram_texts(ctx, n, keys[keep], self.order), "hyp_count": cc[keep],
                          "ref_count": rc[keep], "over": over[keep]})
        return _sorted_frame(parts, ["seg", "order"])

    def segment_evidence(self, ctx: ScoringContext, system: str, seg: int) -> SegmentEvidence:
        """The segment's over-matched n-grams, marked in the hypothesis (unigrams in the strong colour).

        Only this segment's n-grams are spelled out (a view of one source shows every system: not the whole corpus
        each)."""
        over = self.evidence(ctx, system, segments=[seg])
        _, hyp_tokens = ctx.display_tokens(system, seg)
        spans = _order_spans(hyp_tokens, over, "over", lambda r: f"over-matched {r.order}-gram: {r.hyp_count}× in "
                                                                  f"the hypothesis, {r.ref_count}× in the reference")
        return SegmentEvidence(
            hyp_spans=spans, legend=("over1", "over"),
            tables={"over": EvidenceTable("Over-matched n-grams", over, empty="No over-matched n-gram: the "
                                          "hypothesis repeats nothing beyond what the references have.")})


class UTEM(_OverUnder):
    """Under-translation evaluation metric (Yang et al. 2018, eqs. 6-7); 0-100, lower is better."""

    info = MetricInfo(
        name="utem",
        label="UTEM",
        description="Under-translation: share of reference n-grams missing from the output, with a short-length penalty.",
        paper=_PAPER + ", eqs. 6-7",
        scale=100,
        higher_is_better=False,
        options=(OptionSpec("order", 4, "maximum n-gram order N", minimum=1, maximum=4),),
    )

    def under_counts(self, ctx: ScoringContext, system: str, ref: str, n: int,
                     segments: Sequence[int] | None = None):
        """Per reference (segment, n-gram) of order ``n``: segments, n-grams, the counts and the under-count (eq. 6).

        Of ``segments`` only when given; the arrays are the segments, the n-grams, the reference count, the candidate
        count and the under-count."""
        index = ctx.word_ngrams(self.order)
        ref_counts = index.counts(("ref", ref), n)
        at = _positions(ref_counts, segments)
        keys, rc = ref_counts.keys[at], ref_counts.counts[at]
        cc = index.count_of(("hyp", system), n, keys)
        return ref_counts.seg[at], keys, rc, cc, np.maximum(rc - cc, 0)

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: ``[c, r, m_1..m_N, t_1..t_N]`` (m: under-counts), computed once for every system."""
        return ctx.memo(("utem", self.order), lambda: self._all_statistics(ctx))[system]

    def _all_statistics(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Every system's statistics at once, per order and reference one pass over the n-gram table:
        :meth:`under_counts`'s ``max(rc - cc, 0)`` on every cell (a cell the reference lacks under-counts
        nothing); per segment the minimum under-count and the maximum total over the references."""
        index, systems = ctx.word_ngrams(self.order), ctx.evalset.systems
        hyps = [("hyp", s) for s in systems]
        under_n, total_n = [], []
        for n in range(1, self.order + 1):
            cc = index.rows(hyps, n)
            unders, totals = [], []
            for ref in ctx.tokens.refs:
                rc = index.rows([("ref", ref)], n)
                total = index.segment_totals([("ref", ref)], n)
                totals.append(total)
                # a reference without n-grams of this order is left out of the minimum
                unders.append(np.where(total > 0, index.segment_sums(rc - np.minimum(rc, cc), n), np.inf))
            under = np.min(unders, axis=0)
            under_n.append(np.where(np.isfinite(under), under, 0))
            total_n.append(np.broadcast_to(np.max(totals, axis=0), under.shape))
        return {s: np.column_stack([*_lengths(ctx, s), *(u[i] for u in under_n), *(t[i] for t in total_n)]
                                   ).astype(np.int64) for i, s in enumerate(systems)}

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """``100 * LP * exp(mean_n log mp_n)`` with UTEM's short-length penalty (LP, eq. 7)."""
        return _geometric_score(stats_sum, self.order, long_penalty=False)

    def evidence(self, ctx: ScoringContext, system: str, segments: Sequence[int] | None = None) -> pd.DataFrame:
        """Under-matched reference n-grams of every segment (or of ``segments``).

        Columns: ``seg, ref, order, ngram, ref_count, hyp_count, under``."""
        parts = []
        for ref in ctx.tokens.refs:
            for n in range(1, self.order + 1):
                seg, keys, rc, cc, under = self.under_counts(ctx, system, ref, n, segments)
                keep = under > 0
                kept = int(keep.sum())
                parts.append({"seg": seg[keep], "ref": np.full(kept, ref, dtype=object),
                              "order": np.full(kept, n, dtype=np.int64),
                              "ngram": _ngram_texts(ctx, n, keys[keep], self.order), "ref_count": rc[keep],
                              "hyp_count": cc[keep], "under": under[keep]})
        return _sorted_frame(parts, ["seg", "ref", "order"])

    def segment_evidence(self, ctx: ScoringContext, system: str, seg: int) -> SegmentEvidence:
        """The segment's under-matched reference n-grams, marked in each reference up to :data:`HIGHLIGHT_MAX_ORDER`.

        Longer ones are listed, not marked: they would cover most of the text. Only this segment's n-grams are spelled
        out."""
        under = self.evidence(ctx, system, segments=[seg])
        marked = under[under["order"] <= HIGHLIGHT_MAX_ORDER]
        ref_spans = {}
        for ref, rows in marked.groupby("ref", sort=False):
            _, ref_tokens = ctx.display_tokens(ref, seg)
            ref_spans[ref] = _order_spans(ref_tokens, rows, "under", lambda r: f"under-matched {r.order}-gram: "
                                          f"{r.ref_count}× in the reference, {r.hyp_count}× in the hypothesis")
        return SegmentEvidence(
            ref_spans=ref_spans, legend=("under1", "under"),
            tables={"under": EvidenceTable("Under-matched n-grams", under,
                                           empty="No under-matched n-gram: every reference n-gram is covered.")})


def _sorted_frame(parts: list[dict[str, np.ndarray]], by: list[str]) -> pd.DataFrame:
    """The evidence rows of every order (and reference) in one frame, sorted by ``by``; stable, so the rows of a
    segment keep the parts' order (one frame built from the joined columns, not one per part). The text columns
    (``ngram``, ``ref``) have pandas' string dtype, also when empty."""
    frame = pd.DataFrame({column: np.concatenate([part[column] for part in parts]) for column in parts[0]})
    frame = frame.astype({column: str for column in ("ngram", "ref") if column in frame})
    return frame.sort_values(by, kind="stable", ignore_index=True)


def _positions(counts, segments: Sequence[int] | None) -> np.ndarray | slice:
    """The positions of ``counts``' keys (:class:`~mtdiag.metrics.ngram_index.NgramCounts`) in ``segments`` (each
    segment's keys are one run: ``bounds``), every one when None — one segment's evidence reads its own keys, not
    the whole set's."""
    if segments is None:
        return slice(None)
    wanted = np.unique(np.asarray(segments, dtype=np.int64))
    starts, stops = counts.bounds[wanted], counts.bounds[wanted + 1]
    return np.concatenate([np.arange(a, b) for a, b in zip(starts.tolist(), stops.tolist())] or [np.zeros(0, int)])


def _order_spans(tokens: list[str], rows: pd.DataFrame, prefix: str, describe) -> tuple[Span, ...]:
    """Spans of evidence n-grams in ``tokens``: kind ``{prefix}1`` for unigrams (drawn last, so a missing or
    repeated word keeps the strong colour), ``{prefix}`` for longer n-grams."""
    grams = {row.ngram: (f"{prefix}1" if row.order == 1 else prefix, describe(row)) for row in rows.itertuples(index=False)}
    return tuple(sorted(ngram_spans(tokens, grams), key=lambda s: (s.kind.endswith("1"), s.start)))


def _ngram_texts(ctx: ScoringContext, n: int, grams: np.ndarray, max_order: int) -> np.ndarray:
    """N-gram ids -> their tokens joined by one space."""
    if len(grams) == 0:
        return np.array([], dtype=object)
    words = ctx.tokens.vocab[ctx.word_ngrams(max_order).gram_ids(n, grams)]
    return np.array([" ".join(row) for row in words], dtype=object)
