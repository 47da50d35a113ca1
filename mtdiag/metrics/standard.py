"""BLEU and chrF with sacrebleu's definitions and defaults, computed from mtdiag's shared n-gram statistics.

The statistics are sacrebleu's own sufficient statistics, counted by :mod:`mtdiag.ngrams` instead of per-segment
Python ``Counter`` objects, and the scores are sacrebleu's formulas transcribed operation for operation into numpy
(so they are vectorised over bootstrap samples as well). Tests check equality with sacrebleu on every segment.

- **BLEU** (Papineni et al. 2002; sacrebleu ``BLEU`` defaults): the user's tokeniser (default 13a, sacrebleu's
  default), case-sensitive (sacrebleu's default, whatever mtdiag's lower-casing option says), max order 4, ``exp``
  smoothing; stats ``[c, r, correct_1..4, total_1..4]`` with closest reference length and clipping by the maximum
  count over references. Corpus BLEU without, sentence BLEU with effective order (``sacrebleu.sentence_bleu``).
- **chrF** (Popović 2015; sacrebleu ``CHRF`` defaults): character 6-grams of the raw text with whitespace removed,
  no word n-grams, beta 2, case-sensitive, effective order; stats ``[hyp, ref, match] x 6``; with several
  references each segment keeps the statistics of the reference with the best sentence chrF (first on a tie).
"""

from __future__ import annotations

import numpy as np

from mtdiag import __version__
from mtdiag.metrics.base import Metric, MetricInfo, ScoringContext
from mtdiag.metrics.waft_neva import clipped_ngram_statistics

BLEU_ORDER = 4
CHRF_ORDER = 6
CHRF_BETA = 2
_LOG_ZERO = -9999999999.0  # sacrebleu.utils.my_log(0)


def bleu_from_stats(stats: np.ndarray, effective_order: bool) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` (exp smoothing) vectorised over leading axes of ``stats``."""
    stats = np.asarray(stats, dtype=float)
    c, r = stats[..., 0], stats[..., 1]
    correct, total = stats[..., 2 : 2 + BLEU_ORDER], stats[..., 2 + BLEU_ORDER : 2 + 2 * BLEU_ORDER]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(c < r, np.where(c > 0, np.exp(1 - r / np.where(c > 0, c, 1)), 0.0), 1.0)
        smooth = np.ones(c.shape)
        active = np.ones(c.shape, dtype=bool)  # no zero total met yet ("break")
        eff_order = np.zeros(c.shape) if effective_order else np.full(c.shape, float(BLEU_ORDER))
        log_sum = np.zeros(c.shape)
        for n in range(BLEU_ORDER):
            active &= total[..., n] > 0
            if effective_order:
                eff_order = np.where(active, n + 1, eff_order)
            zero = active & (correct[..., n] == 0)
            smooth = np.where(zero, smooth * 2, smooth)
            safe_total = np.where(total[..., n] > 0, total[..., n], 1)
            precision = np.where(
                active,
                np.where(zero, 100.0 / (smooth * safe_total), 100.0 * correct[..., n] / safe_total),
                0.0,
            )
            log_p = np.where(precision > 0, np.log(np.where(precision > 0, precision, 1)), _LOG_ZERO)
            included = (n < eff_order) if effective_order else np.ones(c.shape, dtype=bool)
            log_sum = np.where(included, log_sum + log_p, log_sum)
        score = bp * np.exp(log_sum / np.where(eff_order > 0, eff_order, 1))
    return np.where(correct.sum(axis=-1) > 0, score, 0.0)


def chrf_from_stats(stats: np.ndarray) -> np.ndarray:
    """sacrebleu's ``CHRF._compute_f_score`` (no eps smoothing) vectorised over leading axes of ``stats``."""
    stats = np.asarray(stats, dtype=float)
    factor = CHRF_BETA**2
    avg_prec = np.zeros(stats.shape[:-1])
    avg_rec = np.zeros(stats.shape[:-1])
    eff = np.zeros(stats.shape[:-1])
    for i in range(CHRF_ORDER):
        n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
        both = (n_hyp > 0) & (n_ref > 0)
        avg_prec = np.where(both, avg_prec + n_match / np.where(n_hyp > 0, n_hyp, 1), avg_prec)
        avg_rec = np.where(both, avg_rec + n_match / np.where(n_ref > 0, n_ref, 1), avg_rec)
        eff = eff + both
    avg_prec = np.where(eff > 0, avg_prec / np.where(eff > 0, eff, 1), 0.0)
    avg_rec = np.where(eff > 0, avg_rec / np.where(eff > 0, eff, 1), 0.0)
    nonzero = (avg_prec + avg_rec) != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (1 + factor) * avg_prec * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
    return np.where(nonzero, 100 * score, 0.0)


class BLEU(Metric):
    """BLEU as sacrebleu computes it (Papineni et al. 2002; Post 2018); 0-100, higher is better."""

    info = MetricInfo(
        name="bleu",
        label="BLEU",
        description="sacrebleu BLEU (13a, case-sensitive, exp smoothing); sentence BLEU with effective order.",
        paper="Papineni et al. 2002; sacrebleu (Post 2018) defaults",
        scale=100,
        higher_is_better=True,
    )
    stat_names = ("hyp_len", "ref_len", *(f"correct_{n}" for n in range(1, 5)), *(f"total_{n}" for n in range(1, 5)))

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        return clipped_ngram_statistics(ctx.cased_word_ngrams(BLEU_ORDER), ctx.cased_tokens, system, BLEU_ORDER)

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        return bleu_from_stats(stats_sum, effective_order=False)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return bleu_from_stats(stats, effective_order=True)

    def signature(self, ctx: ScoringContext) -> str:
        return (f"bleu|nrefs:{len(ctx.evalset.ref_names)}|case:mixed|eff:no|tok:{ctx.options.tokenize}"
                f"|smooth:exp|version:mtdiag-{__version__}")


class CHRF(Metric):
    """chrF as sacrebleu computes it (Popović 2015); 0-100, higher is better."""

    info = MetricInfo(
        name="chrf",
        label="chrF",
        description="sacrebleu chrF2: character 6-gram F-score (beta 2), case-sensitive.",
        paper="Popović 2015; sacrebleu (Post 2018) defaults",
        scale=100,
        higher_is_better=True,
    )
    stat_names = tuple(f"{kind}_{n}" for n in range(1, CHRF_ORDER + 1) for kind in ("hyp", "ref", "match"))

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        index = ctx.char_ngrams(CHRF_ORDER)
        best_stats, best_f = None, None
        for ref in ctx.evalset.ref_names:
            columns = []
            for n in range(1, CHRF_ORDER + 1):
                hyp = index.counts(("hyp", system), n)
                ref_counts = index.counts(("ref", ref), n)
                match = hyp.per_segment(np.minimum(hyp.counts, ref_counts.lookup(hyp.keys)))
                ref_total = ref_counts.totals
                columns += [np.where(ref_total > 0, hyp.totals, 0), ref_total, match]
            stats = np.column_stack(columns)
            f = chrf_from_stats(stats)
            if best_stats is None:
                best_stats, best_f = stats, f
            else:
                better = f > best_f
                best_stats = np.where(better[:, None], stats, best_stats)
                best_f = np.where(better, f, best_f)
        return best_stats.astype(np.int64)

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        return chrf_from_stats(stats_sum)

    def signature(self, ctx: ScoringContext) -> str:
        return (f"chrF2|nrefs:{len(ctx.evalset.ref_names)}|case:mixed|eff:yes|nc:6|nw:0|space:no"
                f"|version:mtdiag-{__version__}")
