"""Paired significance tests, confidence intervals, ranked clusters, signatures and corrections for every metric.

Two paired tests compare each system with a chosen baseline, for every metric, by re-aggregating the per-segment
sufficient statistics that the metrics already computed (:meth:`mtdiag.metrics.base.Metric.corpus_score` is
vectorised over leading axes, so a whole resampling distribution is one call):

- **Paired bootstrap resampling** (Koehn 2004, "Statistical Significance Tests for Machine Translation
  Evaluation"), as sacrebleu's ``--paired-bs`` (``sacrebleu/significance.py``, ``_paired_bs_test``, itself after
  Moses' ``bootstrap-hypothesis-difference-significance.pl``): ``B`` full-size samples of segment indices drawn
  with replacement by ``numpy.random.default_rng(seed).choice(n, size=(B, n))`` — the very draw sacrebleu makes,
  shared by every system and metric, which is what makes the test paired. p-value: the bootstrap distribution of
  ``|score_sys - score_base|`` is shifted to mean zero and compared with the observed ``|difference|``,
  ``p = (#{shifted >= observed} + 1) / (B + 1)``.
- **Paired approximate randomisation** (Noreen 1989; Riezler & Maxwell 2005, "On Some Pitfalls in Automatic
  Evaluation and Significance Testing for MT"), as sacrebleu's ``--paired-ar`` (``_paired_ar_test``, after
  MultEval): in each of ``T`` trials every segment's statistics are swapped between system and baseline with
  probability 1/2 (``rng.integers(2, size=(T, n), dtype=bool)``, sacrebleu's draw);
  ``p = (#{|shuffled difference| >= observed} + 1) / (T + 1)``.

Mean and 95% confidence interval are sacrebleu's ``estimate_ci``: the mean of the bootstrap scores, the interval
between the ``B // 40``-th smallest and largest bootstrap score, and sacrebleu's ``± ci`` = half its width.

**One deliberate difference from sacrebleu**: a trial counts when its statistic is *at least as extreme* as the
observed one (``>=``, Riezler & Maxwell 2005, Fig. 1), where sacrebleu and MultEval count only strictly greater
ones (``>``). The two agree except on exact ties, which with real data arise only when the two systems have equal
statistics: sacrebleu then reports ``p = 1/(B+1)`` ("significant") for a system compared with itself, mtdiag
reports ``p = 1``. ``docs/significance.md`` records the agreement measured against sacrebleu.

Every resampled sum is one matrix product ``weights @ stats`` over the statistics of all systems and metrics at
once (weights: a ``(B, n)`` matrix of resample counts, or the ``(T, n)`` swap mask), so the tests cost a couple of
BLAS calls plus one vectorised ``corpus_score`` per metric, whatever the number of systems. A statistics column
that repeats (reference counts are the same for every system) is multiplied once, and the bootstrap's counts are
made block by block from the drawn indices (:func:`bootstrap_sums`), so memory stays bounded at 100,000 segments.

The package's modules, by job: ``resampling`` (the draws and the resampled sums), ``paired`` (the tests against a
baseline: intervals, p-values, the result frame), ``clusters`` (every pair, ranked clusters), ``signatures``
(sacrebleu-style signatures with the resampling fields) and ``corrections`` (Holm, Benjamini-Hochberg). Every name
is handed on here: ``from mtdiag.analysis.significance import significance``.
"""

from mtdiag.analysis.significance.clusters import pairwise_matrix, pairwise_significance, ranked_clusters
from mtdiag.analysis.significance.corrections import CORRECTIONS, benjamini_hochberg, corrected, holm
from mtdiag.analysis.significance.paired import (ALPHA, COLUMNS, METHODS, bootstrap_p_value, compare_stats,
                                                 confidence_interval, p_value, paired_bootstrap,
                                                 paired_randomization, significance)
from mtdiag.analysis.significance.resampling import (DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_SEED, MAX_SAMPLES,
                                                     bootstrap_count_blocks, bootstrap_counts, bootstrap_indices,
                                                     bootstrap_sums, one_blas_thread, randomization_draws,
                                                     resample_counts, weighted_sums)
from mtdiag.analysis.significance.signatures import (report_signatures, resampling_fields, resampling_signature,
                                                     with_version)

__all__ = [
    "ALPHA", "COLUMNS", "CORRECTIONS", "DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_SEED", "MAX_SAMPLES", "METHODS",
    "benjamini_hochberg", "bootstrap_count_blocks", "bootstrap_counts", "bootstrap_indices", "bootstrap_p_value",
    "bootstrap_sums", "compare_stats", "confidence_interval", "corrected", "holm", "one_blas_thread", "p_value",
    "paired_bootstrap", "paired_randomization", "pairwise_matrix", "pairwise_significance", "randomization_draws",
    "ranked_clusters", "report_signatures", "resample_counts", "resampling_fields", "resampling_signature",
    "significance", "weighted_sums", "with_version",
]
