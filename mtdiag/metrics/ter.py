"""TER — Translation Edit Rate (Snover et al. 2006), with exactly sacrebleu's numbers (Post 2018).

The algorithm is :mod:`mtdiag.metrics.ter_engine`, a compiled port of sacrebleu's ``lib_ter.py`` (beam edit
distance + Tercom-style greedy shifts). It runs on sacrebleu's own TER preprocessing of the raw texts (Tercom
tokenizer, default options: lower-cased, no normalisation, punctuation kept) — not on mtdiag's shared tokens — so
the per-segment statistics, the corpus score and the segment scores equal sacrebleu's ``TER()`` (``corpus_score``
and ``sentence_score``). Per-reference-token costs (TERm, ``shared/spec/METRICS.md`` §3) go through
:func:`ter_statistics`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from mtdiag.metrics.base import Metric, MetricInfo, ScoringContext
from mtdiag.metrics.ter_engine import ReferenceSet, ter_words


@lru_cache(maxsize=8)
def _reference_set(refs: tuple[tuple[str, ...], ...]) -> ReferenceSet:
    return ReferenceSet.from_words([[ter_words(text) for text in column] for column in refs])


def reference_set(refs: Sequence[Sequence[str]]) -> ReferenceSet:
    """The TER-tokenised, encoded references (``refs[k][s]``: column k, segment s), cached on the texts."""
    return _reference_set(tuple(tuple(column) for column in refs))


def ter_statistics(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    ref_costs: Sequence[Sequence[Sequence[float] | None]] | None = None,
) -> np.ndarray:
    """sacrebleu's TER segment statistics from raw texts, shape (n_segments, 2): [edits, average ref length].

    ``refs[k][s]`` is reference column k, segment s. Edits are the minimum over the references, the length the
    average reference length in TER words (sacrebleu's ``TER._compute_segment_statistics``). ``ref_costs[k][s]``,
    when given, is an array of costs over the TER words of that reference (:func:`ter_words`; None = all 1):
    a reference word costs its λ when substituted or missing, hypothesis words and shifts cost 1 (TERm).
    The length stays the unweighted word count.
    """
    return reference_set(refs).statistics([ter_words(text) for text in hyps], ref_costs)


def ter_scores(stats: np.ndarray) -> np.ndarray:
    """sacrebleu's ``TER._compute_score_from_stats``, vectorised over leading axes: (..., 2) -> (...).

    100 · edits / ref_len; with ref_len = 0 the score is 100 if there are edits (empty reference, non-empty
    hypothesis) and 0 otherwise.
    """
    stats = np.asarray(stats, dtype=np.float64)
    edits, ref_len = stats[..., 0], stats[..., 1]
    has_ref = ref_len > 0
    rate = np.where(has_ref, edits / np.where(has_ref, ref_len, 1.0), np.where(edits > 0, 1.0, 0.0))
    return 100 * rate


class TER(Metric):
    """Translation Edit Rate on sacrebleu's TER tokenisation; equal to ``sacrebleu.metrics.TER()``."""

    info = MetricInfo(
        name="ter",
        label="TER",
        description=(
            "Translation Edit Rate: insertions, deletions, substitutions and word-block shifts needed to turn the "
            "hypothesis into the closest reference, per reference word (average reference length). Identical to "
            "sacrebleu's TER with its default options (case-insensitive, Tercom tokenisation)."
        ),
        paper="Snover et al. 2006 via sacrebleu (Post 2018)",
        scale=100,
        higher_is_better=False,
    )
    stat_names = ("edits", "ref_len")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        return ter_statistics(ctx.hyp_texts(system), ctx.ref_texts())

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        return ter_scores(stats_sum)

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """sacrebleu's TER signature fields: TER runs on its own tokenisation, whatever mtdiag's options say."""
        return (("case", "lc"), ("tok", "tercom"), ("norm", "no"), ("punct", "yes"), ("asian", "no"))
