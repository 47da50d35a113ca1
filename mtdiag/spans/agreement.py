"""How well predicted error spans and metric scores agree with human judgements — the measures of
``benchmarks/spans_vs_human.py`` and ``docs/spans.md``, as pure functions of spans, human error rows and scores.

**Spans** (one character axis: the rated outputs laid end to end, :func:`character_axis`; human error rows as
:mod:`mtdiag.io.annotations` reads them, predicted spans as :func:`mtdiag.spans.predict_spans` gives them —
``system``, ``seg``, ``start``, ``end``, ``severity``):

- **span precision** — the share of predicted spans that overlap (share at least one character with) a human error
  span of the same output;
- **major recall** — the share of the human major spans (:func:`is_major`) that a predicted span overlaps;
- **character precision, recall and F1** over the non-space characters of the rated outputs: predicted = inside a
  predicted span, true = inside a human error span (several raters of one output: the union of their spans);
- **characters marked** — the share of those characters inside a predicted span;
- **character F1 with severity** — the WMT23 QE shared task 2 measure (Blain et al. 2023; the task's
  ``task2_evaluate.py``): over *every* character of each output plus one slot after its end (where an omission is
  marked), a character a human marked counts 1 when the prediction marks it with the same severity, ½ with the
  other (minor vs major), 1 with either when the humans marked it both major and minor; precision = that credit
  over the characters predicted, recall = over the characters the humans marked, summed over all outputs (micro).
  A zero-width span (human or predicted) marks the one character at its start, as the task's script does. The task
  has two labels: *critical* counts as major (the task merged them), and so does any error weighing 5 or more.

**Scores** (each item's metric and human score, both oriented so that higher is better):

- :func:`pairwise_accuracy` — the share of item pairs the metric orders as the humans do (Kocmi et al. 2021,
  "To Ship or Not to Ship", at system level): pairs the humans tie are left out, a pair the metric ties counts ½;
- :func:`within_segment_accuracy` — the same over pairs of systems *of the same segment* (the WMT23 metrics
  task's item-grouped comparison, Deutsch et al. 2023), pooled over segments: one count of agreeing pairs over
  one count of compared pairs;
- :func:`pearson` — Pearson's r over pooled items (the WMT23 metrics task's segment-level "no grouping" r);
- :func:`score_agreement` — all three for one metric of a report against its human scores: system level on the
  systems' corpus scores over their *rated* segments (the metric's own corpus formula on those segments'
  statistics) against their mean human score; segment level on every rated (system, segment);
  :func:`mean_score_agreement` the same for segment scores whose system score is their mean (MQM-like scores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pandas as pd

MAJOR_WEIGHT = 5.0  # an error weighing this much or more is major whatever its severity says (MQM Non-translation)


def is_major(severity: Iterable[str], weight: Iterable[float] | None = None) -> np.ndarray:
    """Per error: major or critical, or (with ``weight``) weighing :data:`MAJOR_WEIGHT` or more."""
    severity = pd.Series(list(severity), dtype=object).astype(str).str.strip().str.lower()
    major = severity.isin(["major", "critical"]).to_numpy(dtype=bool)
    if weight is not None:
        major = major | (np.asarray(list(weight), dtype=float) >= MAJOR_WEIGHT)
    return major


# --- the character axis -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CharacterAxis:
    """Outputs laid end to end on one axis of character slots.

    Output ``i`` (``pairs[i]``, a ``(system, seg)``) takes slots ``base[i]`` .. ``base[i] + lengths[i]`` — its
    characters, then one slot after its end (an omission's place, WMT23's rule). ``nonspace``: per slot, a character
    that is not whitespace (the end slot never is)."""

    pairs: tuple[tuple[str, int], ...]
    base: np.ndarray
    lengths: np.ndarray
    nonspace: np.ndarray

    @property
    def size(self) -> int:
        """The number of slots on the axis."""
        return len(self.nonspace)

    def index(self, systems: Iterable[str], segs: Iterable[int]) -> np.ndarray:
        """Per (system, seg): its output's position in :attr:`pairs`, -1 for an output not on the axis."""
        where = {p: i for i, p in enumerate(self.pairs)}
        return np.array([where.get((s, int(g)), -1) for s, g in zip(systems, segs)], dtype=np.int64)

    def slot_pair(self) -> np.ndarray:
        """Per slot, the position of its output in :attr:`pairs`."""
        return np.repeat(np.arange(len(self.pairs), dtype=np.int64), self.lengths + 1)


def character_axis(hyps: pd.DataFrame, pairs: Iterable[tuple[str, int]]) -> CharacterAxis:
    """The axis of the outputs ``hyps.at[seg, system]`` of ``pairs`` (in that order, duplicates dropped)."""
    pairs = tuple(dict.fromkeys((str(s), int(g)) for s, g in pairs))
    texts = [str(hyps.at[g, s]) for s, g in pairs]
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    base = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64) if len(texts) else np.zeros(0, np.int64)
    joined = (np.frombuffer("\n".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32) if texts
              else np.zeros(0, np.uint32))
    nonspace = np.ones(len(joined) + (1 if texts else 0), dtype=bool)
    if texts:
        spaces = np.array([ord(c) for c in {ch for text in texts for ch in text if ch.isspace()}], dtype=np.uint32)
        nonspace[:-1] = ~np.isin(joined, spaces)
        nonspace[base + lengths] = False  # each output's end slot
    return CharacterAxis(pairs=pairs, base=base, lengths=lengths, nonspace=nonspace)


def rated_pairs(evalset, systems: Iterable[str] | None = None) -> list[tuple[str, int]]:
    """The (system, seg) outputs a human rated, in the set's system order, then by segment.

    Rated: ``EvalSet.rated``, else those with an error row; of ``systems`` (default: the set's)."""
    systems = list(evalset.systems if systems is None else systems)
    rated = evalset.rated if evalset.rated is not None else evalset.annotations
    if rated is None:
        return []
    order = {s: i for i, s in enumerate(systems)}
    found = {(s, int(g)) for s, g in zip(rated["system"], rated["seg"]) if s in order}
    return sorted(found, key=lambda p: (order[p[0]], p[1]))


def _mask(size: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Slots covered by any of the spans ``[start, end)`` (a difference array, then a cumulative sum)."""
    delta = np.zeros(size + 1, dtype=np.int64)
    np.add.at(delta, np.asarray(starts, dtype=np.int64), 1)
    np.add.at(delta, np.asarray(ends, dtype=np.int64), -1)
    return np.cumsum(delta[:-1]) > 0


def _placed(axis: CharacterAxis, spans: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The spans of outputs on the axis: (row positions in ``spans``, pair, start, end on the axis), offsets
    clipped to their output (a span past its output's end stays in it)."""
    pair = axis.index(spans["system"], spans["seg"])
    rows = np.flatnonzero(pair >= 0)
    pair = pair[rows]
    length = axis.lengths[pair]
    start = np.clip(spans["start"].to_numpy(dtype=np.int64)[rows], 0, length)
    end = np.clip(spans["end"].to_numpy(dtype=np.int64)[rows], 0, length)
    return rows, pair, axis.base[pair] + start, axis.base[pair] + end


@dataclass(frozen=True)
class HumanSpans:
    """The human error spans of the outputs on an axis.

    Per slot ``error`` (inside a span that has characters), ``major`` and ``minor`` (WMT23's marks: a zero-width span
    marks its start slot); the spans that have characters as ``start``/``end`` on the axis with their ``pair`` and
    whether each ``is_major``."""

    axis: CharacterAxis
    error: np.ndarray
    major: np.ndarray
    minor: np.ndarray
    pair: np.ndarray
    start: np.ndarray
    end: np.ndarray
    is_major: np.ndarray


def human_spans(axis: CharacterAxis, annotations: pd.DataFrame | None) -> HumanSpans:
    """The target-side human error spans of the outputs on ``axis``.

    The spans are rows of :mod:`mtdiag.io.annotations` (``system``, ``seg``, ``side``, ``start``, ``end``, ``severity``,
    ``weight``); rows of other outputs, source-side errors and errors without a span are left out."""
    if annotations is None:
        annotations = pd.DataFrame({"system": [], "seg": [], "side": [], "start": [], "end": [], "severity": [],
                                    "weight": []})
    rows = annotations[(annotations["side"] == "target") & (annotations["start"] >= 0)]
    at, pair, start, end = _placed(axis, rows)
    major = is_major(rows["severity"].to_numpy()[at], rows["weight"].to_numpy()[at])
    wide = end > start
    point = end.copy()
    point[~wide] = start[~wide] + 1  # a zero-width span marks the slot at its start (WMT23)
    return HumanSpans(axis=axis, error=_mask(axis.size, start[wide], end[wide]),
                      major=_mask(axis.size, start[major], point[major]),
                      minor=_mask(axis.size, start[~major], point[~major]),
                      pair=pair[wide], start=start[wide], end=end[wide], is_major=major[wide])


# --- measures of spans ------------------------------------------------------------------------------------------

SPAN_MEASURES = ("spans", "precision", "major_recall", "char_p", "char_r", "char_f1", "marked")
SEVERITY_MEASURES = ("sev_p", "sev_r", "sev_f1")


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def span_measures(human: HumanSpans, predicted: pd.DataFrame, within: np.ndarray | None = None) -> dict[str, float]:
    """:data:`SPAN_MEASURES` of the predicted spans against the human ones.

    The predicted spans have ``system``, ``seg``, ``start``, ``end``; measured over the outputs of the axis (``within``:
    a boolean per output of the axis, the outputs counted)."""
    axis = human.axis
    keep = np.ones(len(axis.pairs), dtype=bool) if within is None else np.asarray(within, dtype=bool)
    _, pair, start, end = _placed(axis, predicted)
    chosen = keep[pair]
    pair, start, end = pair[chosen], start[chosen], end[chosen]
    marked_mask = _mask(axis.size, start, end)
    counted = axis.nonspace & keep[axis.slot_pair()]
    tp = int((marked_mask & human.error & counted).sum())
    marked = int((marked_mask & counted).sum())
    true = int((human.error & counted).sum())
    error_before = np.concatenate([[0], np.cumsum(human.error)])
    hit = error_before[end] - error_before[start] > 0
    majors = human.is_major & keep[human.pair]
    marked_before = np.concatenate([[0], np.cumsum(marked_mask)])
    found = marked_before[human.end[majors]] - marked_before[human.start[majors]] > 0
    precision_c = tp / marked if marked else 0.0
    recall_c = tp / true if true else 0.0
    return {"spans": len(pair), "precision": float(hit.mean()) if len(hit) else 0.0,
            "major_recall": float(found.mean()) if len(found) else 0.0, "char_p": precision_c, "char_r": recall_c,
            "char_f1": _f1(precision_c, recall_c),
            "marked": marked / int(counted.sum()) if counted.any() else 0.0}


def severity_f1(human: HumanSpans, predicted: pd.DataFrame, within: np.ndarray | None = None) -> dict[str, float]:
    """The WMT23 QE task 2 character precision, recall and F1 with severity (:data:`SEVERITY_MEASURES`).

    These are the measures of the module docstring, of the predicted spans (``system``, ``seg``, ``start``, ``end``,
    ``severity``; critical counts as major) over the outputs of the axis (``within``: a boolean per output, the outputs
    counted)."""
    axis = human.axis
    keep = np.ones(len(axis.pairs), dtype=bool) if within is None else np.asarray(within, dtype=bool)
    rows, pair, start, end = _placed(axis, predicted)
    major = is_major(predicted["severity"].to_numpy()[rows])
    chosen = keep[pair]
    end = np.where(end > start, end, start + 1)  # a zero-width span (an omission) marks the slot at its start
    sys_major = _mask(axis.size, start[chosen & major], end[chosen & major])
    sys_minor = _mask(axis.size, start[chosen & ~major], end[chosen & ~major])
    counted = keep[axis.slot_pair()]
    gold_major, gold_minor = human.major & counted, human.minor & counted
    both = gold_major & gold_minor
    only_major, only_minor = gold_major & ~gold_minor, gold_minor & ~gold_major
    credit = (float((both & (sys_major | sys_minor)).sum())
              + float((only_major & sys_major).sum()) + 0.5 * float((only_major & ~sys_major & sys_minor).sum())
              + float((only_minor & sys_minor).sum()) + 0.5 * float((only_minor & ~sys_minor & sys_major).sum()))
    predicted_chars = int(((sys_major | sys_minor) & counted).sum())
    gold_chars = int((gold_major | gold_minor).sum())
    precision = credit / predicted_chars if predicted_chars else 0.0
    recall = credit / gold_chars if gold_chars else 0.0
    return {"sev_p": precision, "sev_r": recall, "sev_f1": _f1(precision, recall)}


# --- measures of scores -----------------------------------------------------------------------------------------

def _pair_agreement(metric_i: np.ndarray, metric_j: np.ndarray, human_i: np.ndarray,
                    human_j: np.ndarray) -> tuple[float, int]:
    """Summed agreement (1 same order, ½ metric tie) and the number of pairs compared (human ties left out)."""
    human_sign = np.sign(human_i - human_j)
    metric_sign = np.sign(metric_i - metric_j)
    compared = human_sign != 0
    agree = np.where(metric_sign == 0, 0.5, (metric_sign == human_sign).astype(float))
    return float(agree[compared].sum()), int(compared.sum())


def pairwise_accuracy(metric: Iterable[float], human: Iterable[float]) -> tuple[float, int]:
    """The share of item pairs the metric orders as the humans do, and the number of pairs compared.

    Both sides higher = better; pairs the humans tie are left out, a pair the metric ties counts ½ (NaN with no
    pair)."""
    metric, human = np.asarray(list(metric), dtype=float), np.asarray(list(human), dtype=float)
    defined = np.isfinite(metric) & np.isfinite(human)
    metric, human = metric[defined], human[defined]
    i, j = np.triu_indices(len(metric), k=1)
    agree, n = _pair_agreement(metric[i], metric[j], human[i], human[j])
    return (agree / n if n else float("nan")), n


def within_segment_accuracy(segs: Iterable[int], metric: Iterable[float],
                            human: Iterable[float]) -> tuple[float, int]:
    """:func:`pairwise_accuracy` over the pairs of items of the same segment, pooled over the segments.

    Items of the same segment are systems on the same source. Returns agreeing pairs over compared pairs, and the number
    compared (NaN with no pair)."""
    frame = pd.DataFrame({"seg": np.asarray(list(segs)), "metric": np.asarray(list(metric), dtype=float),
                          "human": np.asarray(list(human), dtype=float)})
    frame = frame[np.isfinite(frame["metric"]) & np.isfinite(frame["human"])].sort_values("seg", kind="stable")
    seg = frame["seg"].to_numpy()
    starts = np.flatnonzero(np.concatenate([[True], seg[1:] != seg[:-1]])) if len(seg) else np.zeros(0, np.int64)
    sizes = np.diff(np.concatenate([starts, [len(seg)]]))
    # every pair (a, b), a < b, within each segment's block: a runs over the block, b over the rows after a in it
    block_end = np.repeat(starts + sizes, sizes)
    after = block_end - np.arange(len(seg)) - 1
    first = np.repeat(np.arange(len(seg)), after)
    offset = np.arange(len(first)) - np.repeat(np.cumsum(after) - after, after)
    second = first + 1 + offset
    m, h = frame["metric"].to_numpy(), frame["human"].to_numpy()
    agree, n = _pair_agreement(m[first], m[second], h[first], h[second])
    return (agree / n if n else float("nan")), n


def pearson(x: Iterable[float], y: Iterable[float]) -> float:
    """Pearson's r of the items where both are defined; NaN with fewer than two items or a constant side."""
    x, y = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    defined = np.isfinite(x) & np.isfinite(y)
    x, y = x[defined], y[defined]
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


SCORE_MEASURES = ("sys_accuracy", "sys_pairs", "seg_pearson", "seg_accuracy", "seg_pairs", "n_seg", "n_sys")


def _measures(system_scores: pd.Series, system_means: pd.Series, rated: pd.DataFrame,
              values: np.ndarray) -> dict[str, float]:
    """:data:`SCORE_MEASURES` from per-system scores and human means (aligned by system) and, per row of
    ``rated`` (``seg``, ``score``), the metric's oriented segment value."""
    sys_accuracy, sys_pairs = pairwise_accuracy(system_scores.to_numpy(dtype=float),
                                                system_means.reindex(system_scores.index).to_numpy(dtype=float))
    seg_accuracy, seg_pairs = within_segment_accuracy(rated["seg"], values, rated["score"])
    return {"sys_accuracy": sys_accuracy, "sys_pairs": sys_pairs, "seg_pearson": pearson(values, rated["score"]),
            "seg_accuracy": seg_accuracy, "seg_pairs": seg_pairs, "n_seg": int(np.isfinite(values).sum()),
            "n_sys": len(system_scores)}


def mean_score_agreement(segment_scores: pd.Series, human: pd.DataFrame) -> dict[str, float]:
    """:data:`SCORE_MEASURES` of segment scores whose system score is their mean, against human scores.

    The segment scores are indexed ``(system, seg)``, higher = better, and their system score is their mean — MQM-like
    scores; the human scores (``seg``, ``system``, ``score``) are of the same pairs: a system's score is the mean over
    its rated segments."""
    rated = human[human["system"].isin(segment_scores.index.get_level_values(0))]
    values = segment_scores.reindex(pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])).to_numpy(dtype=float)
    frame = pd.DataFrame({"system": rated["system"].to_numpy(), "value": values, "human": rated["score"].to_numpy()})
    means = frame.dropna().groupby("system", sort=False)[["value", "human"]].mean()
    return _measures(means["value"], means["human"], rated, values)


def score_agreement(report, metric: str, human: pd.DataFrame | None = None,
                    systems: Iterable[str] | None = None) -> dict[str, float]:
    """:data:`SCORE_MEASURES` of one metric of ``report`` against human scores.

    Human scores: ``seg``, ``system``, ``score``, higher = better, as MQM's −penalty; default ``report.evalset.human``.
    Over ``systems`` (default the report's): system-level pairwise accuracy (corpus scores over each system's rated
    segments against its mean human score), segment-level Pearson and within-segment pairwise accuracy over the rated
    (system, segment) pairs; the metric turned so that higher is better
    (:meth:`~mtdiag.metrics.MetricInfo.oriented`)."""
    from mtdiag.metrics import metric_info

    human = report.evalset.human if human is None else human
    systems = [s for s in (report.evalset.systems if systems is None else systems)]
    info = metric_info(metric, report)
    rated = human[human["system"].isin(systems)] if human is not None else None
    if rated is None or not len(rated):
        return {"sys_accuracy": float("nan"), "sys_pairs": 0, "seg_pearson": float("nan"),
                "seg_accuracy": float("nan"), "seg_pairs": 0, "n_seg": 0, "n_sys": 0}
    scorer = report.metric(metric)
    corpus, means = {}, {}
    for system, part in rated.groupby("system", sort=False):
        stats = report.result(metric, system).stats[part["seg"].to_numpy(dtype=np.int64)]
        corpus[system] = float(scorer.corpus_score(stats.sum(axis=0)))
        means[system] = float(part["score"].mean())
    segment = report.segments[metric]
    values = segment.reindex(pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])).to_numpy(dtype=float)
    return _measures(info.oriented(pd.Series(corpus)), pd.Series(means), rated, info.oriented(values))


RESAMPLES = 1000  # bootstrap resamples of the sources for the system accuracy's interval


def system_accuracy_interval(segs: Iterable[int], systems: Iterable[str], values: Iterable[float],
                             human: Iterable[float], resamples: int = RESAMPLES) -> tuple[float, float]:
    """The 95 % bootstrap interval of the system pairwise accuracy of an MQM-like score.

    MQM-like: a score whose system score is the mean of its segment scores. ``resamples`` resamples of the sources (a
    source drawn brings all its rated outputs, so the systems are compared on the same sources; seed 0), each system's
    mean score and mean human score over the drawn outputs; the 2.5 % and 97.5 % quantiles (Koehn 2004's bootstrap, at
    system level)."""
    segs, systems = np.asarray(list(segs)), np.asarray(list(systems))
    values, human = np.asarray(list(values), dtype=float), np.asarray(list(human), dtype=float)
    defined = np.isfinite(values) & np.isfinite(human)
    segs, systems, values, human = segs[defined], systems[defined], values[defined], human[defined]
    if not len(values):
        return float("nan"), float("nan")
    unique, source = np.unique(segs, return_inverse=True)
    names, system = np.unique(systems, return_inverse=True)
    rng = np.random.default_rng(0)
    found = np.empty(resamples)
    for i in range(resamples):
        weight = np.bincount(rng.integers(0, len(unique), len(unique)), minlength=len(unique))[source]
        total = np.bincount(system, weights=weight, minlength=len(names))
        drawn = total > 0
        score = np.bincount(system, weights=weight * values, minlength=len(names))[drawn] / total[drawn]
        people = np.bincount(system, weights=weight * human, minlength=len(names))[drawn] / total[drawn]
        found[i] = pairwise_accuracy(score, people)[0]
    low, high = np.nanquantile(found, [0.025, 0.975])
    return float(low), float(high)
