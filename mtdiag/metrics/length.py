"""Length ratio: hypothesis length / reference length on BLEU's tokens (Papineni et al. 2002 §2.2.2).

Per segment, the hypothesis length divided by the *closest* reference length — the reference length BLEU's brevity
penalty chooses (:func:`mtdiag.metrics.ngram_index.closest_ref_length`: nearest, the shorter on a tie); per corpus, summed
hypothesis lengths over summed closest reference lengths, so the corpus value equals sacrebleu BLEU's
``sys_len / ref_len`` (whenever that is defined). Lengths are counted on BLEU's tokens (the user's tokeniser, case-sensitive; case does not
change a length except where a tokeniser splits differently by case).

Read next to OTEM/UTEM: a high OTEM with a ratio near 1 is repetition inside a normal-length output; a high UTEM
with a ratio well below 1 is an output that is simply short. An empty reference counts as one token, so the ratio
stays finite and defined everywhere (decision; sacrebleu's ratio divides by zero there): an output of c tokens
against an empty reference reads c, and an empty output against an empty reference reads 1.
"""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.base import Metric, MetricInfo, ScoringContext
from mtdiag.metrics.ngram_index import hyp_and_closest_ref_lengths


class LengthRatio(Metric):
    """Hypothesis length / closest reference length (BLEU's ``sys_len / ref_len``); 1 = as long as the reference."""

    info = MetricInfo(
        name="length_ratio",
        label="Length ratio",
        description="Hypothesis length / closest reference length on BLEU's tokens (1 = same length; above 1 longer).",
        paper="Papineni et al. 2002 §2.2.2 (BLEU's closest reference length); sacrebleu sys_len/ref_len",
        scale=1,
        higher_is_better=None,  # no better direction: 1 is ideal, and both sides of it can be wrong
        decimals=3,
    )
    stat_names = ("hyp_len", "ref_len")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: the hypothesis length and the closest reference length, on BLEU's tokens."""
        c, r = hyp_and_closest_ref_lengths(ctx.cased_tokens, system)
        return np.column_stack([c, r]).astype(np.int64)

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """Summed hypothesis length c / summed closest reference length r; with r = 0: c, or 1 when c is 0 too."""
        stats_sum = np.asarray(stats_sum, dtype=float)
        c, r = stats_sum[..., 0], stats_sum[..., 1]
        return np.where(r > 0, c / np.maximum(r, 1), np.where(c > 0, c, 1.0))

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """``tok`` (the user's tokeniser), ``case:mixed`` (as written) and ``ref:closest`` (the closest reference)."""
        return (("tok", ctx.options.tokenize), ("case", "mixed"), ("ref", "closest"))
