"""chrF consensus: chrF's character F-score of an output against the other systems' outputs of the same source
pooled as pseudo-references — the consensus of minimum-Bayes-risk decoding (Kumar & Byrne 2004; DeNero et al.
2009) on chrF's character n-grams (Popović 2015), where :mod:`mtdiag.metrics.consensus` counts words.

Definition (0–100, higher = more agreement). For character order n (1..6, whitespace removed, case-sensitive:
chrF's n-grams), segment i and system s among k systems, with ``c_s(g)`` the count of n-gram g in s's output:

- ``match_n = Σ_{j≠s} Σ_g min(c_s(g), c_j(g))`` — clipped matches against each other output, summed;
- ``hyp_n = (k − 1) · Σ_g c_s(g)`` — s's n-grams, once per pseudo-reference;
- ``ref_n = Σ_{j≠s} Σ_g c_j(g)`` — the other outputs' n-grams.

The score is chrF's F-score of these per-order counts (β = 2, the orders averaged as sacrebleu averages them:
:func:`mtdiag.metrics.standard.chrf_from_stats`); the statistics are chrF's layout, ``[hyp, ref, match]`` per
order, so the corpus score is the same formula on their sums. Needs three systems (with two, each is the other's
only pseudo-reference and both get the same score).

It is computed on request (``--metrics …,chrf_consensus``) and wherever the learned judge needs it (predicted MQM
and ESA read it, :attr:`mtdiag.metrics.base.DerivedMetric.reads`): as a metric its counts are made where chrF's are,
on the same character n-gram index, slice by slice on a large set — not recounted on the whole set afterwards.

Vectorised: the counts are :func:`mtdiag.metrics.consensus.against_the_others` (consensus's counting, on the
character index).
"""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.base import Metric, MetricInfo, ScoringContext
from mtdiag.metrics.consensus import against_the_others
from mtdiag.metrics.standard import CHRF_ORDER, chrf_from_stats


class ChrfConsensus(Metric):
    """chrF of the output against the other systems' outputs (MBR on character n-grams).

    0–100, higher is better; no reference."""

    info = MetricInfo(
        name="chrf_consensus", label="chrF consensus", scale=100, higher_is_better=True,
        paper="Kumar & Byrne 2004 (MBR); DeNero et al. 2009 (consensus); Popović 2015 (chrF)",
        needs=("three_systems",), compares_systems=True, on_request=True,
        description="chrF (character 6-grams, β 2) of the output against the other systems' outputs of the same "
                    "source pooled as pseudo-references; reference-free. Computed on request and for the learned "
                    "judge (predicted MQM).",
    )
    stat_names = tuple(f"char{n}_{kind}" for n in range(1, CHRF_ORDER + 1) for kind in ("hyp", "ref", "match"))

    def _all_statistics(self, ctx: ScoringContext) -> dict[str, np.ndarray]:
        """Every system's statistics at once (:func:`~mtdiag.metrics.consensus.against_the_others` per order, in
        chrF's layout), memoised per context."""
        def build():
            index = ctx.char_ngrams(CHRF_ORDER)
            systems = ctx.evalset.systems
            hyps = [("hyp", s) for s in systems]
            columns = []
            for n in range(1, CHRF_ORDER + 1):
                match, hyp, ref = against_the_others(index, hyps, n)
                columns += [hyp, ref, match]
            stats = np.stack(columns, axis=-1)  # (system, segment, statistic)
            return {s: stats[i] for i, s in enumerate(systems)}

        return ctx.memo(("chrf_consensus",), build)

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: chrF's ``[hyp, ref, match]`` per character order, against the other systems' outputs."""
        return self._all_statistics(ctx)[system]

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """chrF's F-score (β = 2) of the summed counts (:func:`mtdiag.metrics.standard.chrf_from_stats`)."""
        return chrf_from_stats(stats_sum)

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """No reference, the other systems as pseudo-references, chrF's order and β, then the shared fields."""
        return (("ref", "none"), ("pseudo", "other-systems"), ("nc", str(CHRF_ORDER)), ("beta", "2"),
                *super().signature_fields(ctx))
