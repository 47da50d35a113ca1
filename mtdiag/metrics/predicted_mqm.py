"""Predicted MQM and predicted ESA: each output's quality on a human scale, from the learned judge
(:mod:`mtdiag.spans.judge`, ``docs/spans.md``, "The learned judge").

The judge reads the evidence mtdiag has about an output — chrF against the references, character consensus with
the other outputs, the support of its words and the reference words it lacks, its length, the checks and its
predicted error spans — in a model fitted on public human judgements (WMT MQM and ESA). **Predicted MQM** is its
score on MQM's scale (Freitag et al. 2021, "Experts, Errors, and Context": minus the weighted error count, ≤ 0);
**predicted ESA** on ESA's (Kocmi et al. 2024, "Error Span Annotation": 0–100). The part that compares the outputs
of one source is free of length and is what ranks systems; the source's level (mostly its length, as an MQM score
sums errors) is what makes the number read like a human score.

Sufficient statistics per segment: ``critical``, ``major``, ``minor`` (mtdiag's predicted error spans of each
severity at the option ``threshold``), ``penalty`` (their expected MQM penalty, ``Σ confidence · weight`` with
:data:`SEVERITY_WEIGHTS`), ``segments`` (1), ``omitted`` (the words of the closest reference the output lacks)
and ``judged`` (the judge's score of the output). The segment score is ``judged``, the corpus score its sum over the
segments divided by ``Σ segments`` — the mean segment score, as a system's MQM score is the mean over its segments
— so significance, buckets and slices re-aggregate it like any metric. Higher is better.

Computed by default on sets of up to :data:`DEFAULT_MAX_PAIRS` (system, segment) pairs, on request above; predicted
ESA by default where the set's human scores are ESA.

The statistics come from the spans and the judge, a layer above the metrics: these are
:class:`~mtdiag.metrics.base.DerivedMetric`, whose statistics :func:`mtdiag.scoring.evaluate.evaluate` derives from
the report of the other metrics through their ``provider`` (``mtdiag.spans.mqm``; ``docs/architecture.md``).
"""

from __future__ import annotations

import numpy as np

from mtdiag.metrics.base import DerivedMetric, MetricInfo, OptionSpec, ScoringContext

# the one table of the weights of predicted severities (docs/spans.md: how they relate to the human MQM weights)
SEVERITY_WEIGHTS: dict[str, float] = {"minor": 1.0, "major": 5.0, "critical": 10.0}
STAT_NAMES = ("critical", "major", "minor", "penalty", "segments", "omitted", "judged")
# by default on sets of at most this many (system, segment) pairs; above, on request (--metrics): its spans are
# predicted on the whole set, not slice by slice — 100k segments x 4 systems took 3,010 MiB and 141 s of CPU with
# it (docs/scaling.md), 10k x 2 1.7x the CPU of the other default metrics
DEFAULT_MAX_PAIRS = 100_000
# the judge's model (mtdiag/spans/judge_model.json, its "format"): in the signature, so that numbers of another
# model are not compared as equal
JUDGE_VERSION = "1"


class PredictedMQM(DerivedMetric):
    """The learned judge's score of each output on MQM's scale (≤ 0); higher is better."""

    info = MetricInfo(
        name="predicted_mqm", label="Predicted MQM", scale=25, higher_is_better=True,
        needs=("references_or_three_systems",),  # without a reference, the other systems are the evidence
        compares_systems=True,  # consensus and a word's support count the other systems
        default_max_pairs=DEFAULT_MAX_PAIRS,
        range_text="≤ 0 (0: no error expected)",
        description="The learned judge's estimate of the output's MQM score (minus the weighted error count, "
                    "minor 1, major 5): chrF, consensus with the other outputs, the words' support, missing "
                    "reference words, length, the checks and the predicted spans in a model fitted on WMT MQM and "
                    "ESA judgements. A system's score is the mean over its segments, as MQM's. Good at finding "
                    "bad outputs and at comparing the systems' outputs of one source (docs/spans.md).",
        paper="MQM scale of Freitag et al. 2021 (TACL); pairwise ranking (Burges et al. 2005) on mtdiag's evidence "
              "(docs/spans.md)",
        options=(OptionSpec("threshold", 0.10, "confidence from which a predicted span counts", minimum=0.0,
                            maximum=1.0),),
    )
    provider = "mtdiag.spans.mqm:predicted_mqm_statistics"
    reads = ("chrf_consensus",)  # the judge's character consensus, counted where chrF's n-grams are
    stat_names = STAT_NAMES
    protocol = "mqm"

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """The mean segment score: summed ``judged`` / summed ``segments`` (NaN without segments)."""
        stats_sum = np.asarray(stats_sum, dtype=float)
        segments = stats_sum[..., STAT_NAMES.index("segments")]
        return np.where(segments > 0, self.segment_scores(stats_sum) / np.maximum(segments, 1), np.nan) + 0.0

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """The judge's score of each output (``judged``)."""
        return np.asarray(stats, dtype=float)[..., STAT_NAMES.index("judged")] + 0.0

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """mtdiag's spans, the severity weights and the judge's model version, then the shared fields."""
        weights = "/".join(f"{w:g}" for w in SEVERITY_WEIGHTS.values())
        return (("spans", "mtdiag"), ("weights", weights), ("judge", JUDGE_VERSION),
                *super().signature_fields(ctx))


class PredictedESA(PredictedMQM):
    """The learned judge's score of each output on ESA's scale (0–100); higher is better."""

    info = MetricInfo(
        name="predicted_esa", label="Predicted ESA", scale=100, higher_is_better=True,
        needs=("references_or_three_systems", "esa_scores"), compares_systems=True,
        default_max_pairs=DEFAULT_MAX_PAIRS,
        description="The learned judge's estimate of the output's ESA score (0–100, a rater's judgement of the "
                    "whole output); the same judge as predicted MQM on ESA's scale, fitted on WMT24 ESA "
                    "judgements. A system's score is the mean over its segments.",
        paper="ESA scale of Kocmi et al. 2024 (WMT); pairwise ranking (Burges et al. 2005) on mtdiag's evidence "
              "(docs/spans.md)",
        options=PredictedMQM.info.options,
    )
    protocol = "esa"
