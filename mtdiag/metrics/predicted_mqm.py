"""Predicted MQM: an MQM-like score of each output from the error spans mtdiag predicts (``docs/spans.md``).

MQM scores a segment by the severity-weighted count of the errors raters mark, negated (Freitag et al. 2021,
"Experts, Errors, and Context", TACL: minor 1, major 5; a segment scores 0 when clean). Predicted MQM applies the
same sum to the *predicted* spans of an output (:func:`mtdiag.spans.predict_spans` at the option ``threshold``), with
the weights of :data:`SEVERITY_WEIGHTS` — minor 1, major 5, critical 10 (critical as WMT22/23's MQM weighs it,
Freitag et al. 2022) — each span's weight taken with its confidence (its measured probability of being on a human
error): the segment score is minus the *expected* MQM penalty of its predicted spans, ``−Σ confidence · weight`` —
and, with references, of what the output leaves out: :data:`OMISSION_WEIGHT` per reference word it lacks
(:mod:`mtdiag.spans.omissions`; an omission has no words a span could mark). That weight is measured, not set: the
ratio of the two least-squares coefficients of the human MQM scores of the dev sets on the spans' penalty and on
the missing words (``docs/spans.md``, "Omissions").

Computed by default on sets of up to :data:`DEFAULT_MAX_PAIRS` (system, segment) pairs, on request above.

Sufficient statistics per segment: ``critical``, ``major``, ``minor`` (the spans of each severity), ``penalty``
(their expected penalty), ``segments`` (1) and ``omitted`` (the words of the closest reference the output
lacks). The segment score is ``−(penalty + OMISSION_WEIGHT · omitted)``, the corpus score its sum over the
segments divided by ``Σ segments`` — the mean segment score, as a system's MQM score is the mean over its
segments — so significance, buckets and slices re-aggregate it like any metric. Higher is better; 0 = nothing
predicted and nothing missing.

The statistics come from the spans, a layer above the metrics: this is a :class:`~mtdiag.metrics.base.
DerivedMetric`, whose statistics :func:`mtdiag.scoring.evaluate.evaluate` derives from the report of the other metrics through
:attr:`PredictedMQM.provider` (``mtdiag.spans.mqm``; ``docs/architecture.md``).
"""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.base import DerivedMetric, MetricInfo, OptionSpec, ScoringContext

# the one table of the weights of predicted severities (docs/spans.md: how they relate to the human MQM weights)
SEVERITY_WEIGHTS: dict[str, float] = {"minor": 1.0, "major": 5.0, "critical": 10.0}
# the predicted penalty of one missing reference word: benchmarks/spans_vs_human.py --fit (TED zh-en and en-de)
OMISSION_WEIGHT = 0.67
STAT_NAMES = ("critical", "major", "minor", "penalty", "segments", "omitted")
# by default on sets of at most this many (system, segment) pairs; above, on request (--metrics): its spans are
# predicted on the whole set, not slice by slice — 100k segments x 4 systems took 3,010 MiB and 141 s of CPU with
# it (docs/scaling.md), 10k x 2 1.7x the CPU of the other default metrics
DEFAULT_MAX_PAIRS = 100_000


class PredictedMQM(DerivedMetric):
    """Minus the expected severity-weighted count of an output's predicted error spans; higher is better."""

    info = MetricInfo(
        name="predicted_mqm", label="Predicted MQM", scale=25, higher_is_better=True,
        needs=("references_or_three_systems",),  # without a reference, the other systems are the evidence
        compares_systems=True,  # a word's support counts the other systems
        default_max_pairs=DEFAULT_MAX_PAIRS,
        range_text="≤ 0 (0: no predicted error)",
        description="Minus the severity-weighted count (minor 1, major 5, critical 10) of the error spans mtdiag "
                    "predicts in the output, each weighted by its confidence, and of the reference words the output "
                    "lacks (omissions, with references); 0 = nothing predicted. A system's score is the mean over "
                    "its segments, as MQM's.",
        paper="MQM scoring of Freitag et al. 2021 (TACL) applied to mtdiag's predicted spans (docs/spans.md)",
        options=(OptionSpec("threshold", 0.10, "confidence from which a predicted span counts", minimum=0.0,
                            maximum=1.0),),
    )
    provider = "mtdiag.spans.mqm:predicted_mqm_statistics"
    stat_names = STAT_NAMES

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        stats_sum = np.asarray(stats_sum, dtype=float)
        segments = stats_sum[..., STAT_NAMES.index("segments")]
        return np.where(segments > 0, self.segment_scores(stats_sum) / np.maximum(segments, 1), np.nan) + 0.0

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=float)
        penalty, omitted = stats[..., STAT_NAMES.index("penalty")], stats[..., STAT_NAMES.index("omitted")]
        return -(penalty + OMISSION_WEIGHT * omitted) + 0.0

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        weights = "/".join(f"{w:g}" for w in SEVERITY_WEIGHTS.values())
        return (("spans", "mtdiag"), ("weights", weights), ("omission", f"{OMISSION_WEIGHT:g}"),
                *super().signature_fields(ctx))
