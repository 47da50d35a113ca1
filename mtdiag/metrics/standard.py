"""BLEU and chrF with sacrebleu's definitions and defaults, computed from mtdiag's shared n-gram statistics.

The statistics are sacrebleu's own sufficient statistics, counted by :mod:`mtdiag.metrics.ngram_index` instead of per-segment
Python ``Counter`` objects, and the scores are sacrebleu's formulas transcribed operation for operation into numpy
(so they are vectorised over bootstrap samples as well). Tests check equality with sacrebleu on every segment.

- **BLEU** (Papineni et al. 2002; sacrebleu ``BLEU`` defaults): the user's tokeniser (default 13a, sacrebleu's
  default), case-sensitive (sacrebleu's default, whatever mtdiag's lower-casing option says), max order 4, ``exp``
  smoothing; stats ``[c, r, correct_1..4, total_1..4]`` with closest reference length and clipping by the maximum
  count over references. Corpus BLEU without, sentence BLEU with effective order (``sacrebleu.sentence_bleu``).
- **chrF** (Popović 2015; sacrebleu ``CHRF`` defaults): character 6-grams of the raw text with whitespace removed,
  beta 2, case-sensitive, effective order; stats ``[hyp, ref, match]`` per character order 1..6, then per word order;
  with several references each segment keeps the statistics of the reference with the best sentence chrF (first on
  a tie). Option ``word_order`` (default 0): word n-grams of orders 1..word_order on sacrebleu's chrF++ words
  (:func:`mtdiag.metrics.ngram_index.chrf_words`) — ``word_order=2`` is chrF++ (Popović 2017), sacrebleu ``CHRF(word_order=2)``.
"""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.base import Metric, MetricInfo, OptionSpec, ScoringContext
from mtdiag.metrics.ngram_index import clipped_ngram_statistics

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
    # exp(log(100)) is 100.00000000000004 in floating point (sacrebleu prints that for a perfect system); BLEU
    # is at most 100, so the rounding error above it is cut — every other value is sacrebleu's, bit for bit
    return np.where(correct.sum(axis=-1) > 0, np.minimum(score, 100.0), 0.0)


def chrf_from_stats(stats: np.ndarray) -> np.ndarray:
    """sacrebleu's ``CHRF._compute_f_score`` (no eps smoothing) vectorised over leading axes of ``stats``.

    The last axis holds ``[hyp, ref, match]`` per n-gram order (character orders, then word orders for chrF++)."""
    stats = np.asarray(stats, dtype=float)
    factor = CHRF_BETA**2
    avg_prec = np.zeros(stats.shape[:-1])
    avg_rec = np.zeros(stats.shape[:-1])
    eff = np.zeros(stats.shape[:-1])
    for i in range(stats.shape[-1] // 3):
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
        """Per segment: lengths and clipped n-gram counts on the cased tokens (:func:`clipped_ngram_statistics`)."""
        return ctx.memo(("clipped", "cased", BLEU_ORDER), lambda: clipped_ngram_statistics(
            ctx.cased_word_ngrams(BLEU_ORDER), ctx.cased_tokens, ctx.evalset.systems, BLEU_ORDER))[system]

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """Corpus BLEU from summed statistics, as sacrebleu computes it."""
        return bleu_from_stats(stats_sum, effective_order=False)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence BLEU with effective order, as sacrebleu's sentence BLEU."""
        return bleu_from_stats(stats, effective_order=True)

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """sacrebleu's BLEU fields: case-sensitive whatever mtdiag's lower-casing option says."""
        return (("case", "mixed"), ("eff", "no"), ("tok", ctx.options.tokenize), ("smooth", "exp"))


class CHRF(Metric):
    """chrF (Popović 2015) and chrF++ (Popović 2017, ``word_order=2``) as sacrebleu computes them.

    0-100, higher is better."""

    info = MetricInfo(
        name="chrf",
        label="chrF",
        description="sacrebleu chrF2: character 6-gram F-score (beta 2), case-sensitive; with word order 2, chrF++.",
        paper="Popović 2015 (chrF), Popović 2017 (chrF++); sacrebleu (Post 2018) defaults",
        scale=100,
        higher_is_better=True,
        options=(OptionSpec("word_order", 0, "word n-gram order (0: chrF, 2: chrF++)", minimum=0, maximum=4),),
    )

    @property
    def stat_names(self) -> tuple[str, ...]:
        """``hyp_ORDER``, ``ref_ORDER``, ``match_ORDER`` for character orders 1-6, then word orders (chrF++)."""
        orders = [f"char{n}" for n in range(1, CHRF_ORDER + 1)]
        orders += [f"word{n}" for n in range(1, self.options["word_order"] + 1)]
        return tuple(f"{kind}_{order}" for order in orders for kind in ("hyp", "ref", "match"))

    def _order_indexes(self, ctx: ScoringContext) -> list[tuple[object, int]]:
        """(n-gram index, order) of every n-gram order chrF averages: characters 1..6, then words."""
        chars = ctx.char_ngrams(CHRF_ORDER)
        orders: list[tuple[object, int]] = [(chars, n) for n in range(1, CHRF_ORDER + 1)]
        word_order = self.options["word_order"]
        if word_order:
            words = ctx.chrf_word_ngrams(word_order)
            orders += [(words, n) for n in range(1, word_order + 1)]
        return orders

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: ``[hyp, ref, match]`` per order against the reference with the best sentence chrF."""
        return ctx.memo(("chrf", self.options["word_order"]), lambda: self._all_statistics(ctx))[system]

    def statistics_per_reference(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Per reference: every system's statistics against that reference alone, ``(system, segment, statistic)``.

        ``[hyp, ref, match]`` per order (the hypothesis' n-grams count only where the reference has n-grams of that
        order, as sacrebleu); per order one pass over the n-gram table of every side."""
        systems = ctx.evalset.systems
        hyps = [("hyp", s) for s in systems]
        orders = self._order_indexes(ctx)
        hyp_totals = [index.segment_totals(hyps, n) for index, n in orders]
        out = {}
        for ref in ctx.evalset.ref_names:
            columns = []
            for (index, n), hyp_total in zip(orders, hyp_totals):
                ref_total = index.segment_totals([("ref", ref)], n)
                columns += [np.where(ref_total > 0, hyp_total, 0),
                            np.broadcast_to(ref_total, (len(systems), ctx.evalset.n_segments)),
                            index.segment_sums(np.minimum(index.rows(hyps, n), index.rows([("ref", ref)], n)), n)]
            out[ref] = np.stack(columns, axis=-1)
        return out

    def _all_statistics(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Every system's statistics at once (:meth:`statistics_per_reference`); each segment keeps the reference
        with the best sentence chrF (the first on a tie)."""
        systems = ctx.evalset.systems
        best_stats = best_f = None
        for stats in self.statistics_per_reference(ctx).values():
            f = chrf_from_stats(stats)
            if best_stats is None:
                best_stats, best_f = stats, f
            else:
                better = f > best_f
                best_stats = np.where(better[..., None], stats, best_stats)
                best_f = np.where(better, f, best_f)
        return {s: best_stats[i].astype(np.int64) for i, s in enumerate(systems)}

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """Corpus chrF from summed statistics, as sacrebleu computes it."""
        return chrf_from_stats(stats_sum)

    def signature_name(self) -> str:
        """sacrebleu's name: ``chrF2`` and one ``+`` per word order (``chrF2++`` is chrF++)."""
        return f"chrF{CHRF_BETA}" + "+" * self.options["word_order"]  # sacrebleu's name: chrF2, chrF2++

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """sacrebleu's chrF fields (``nw`` = word order)."""
        return (("case", "mixed"), ("eff", "yes"), ("nc", str(CHRF_ORDER)), ("nw", str(self.options["word_order"])),
                ("space", "no"))
