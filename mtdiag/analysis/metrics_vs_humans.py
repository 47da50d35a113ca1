"""Every metric of a report put on trial against its human scores (``docs/meta-evaluation.md``): the statistics of
WMT's metrics task per metric (:func:`metric_table`), per group of segments (:func:`group_table`), the human
system scores as published beside the tool's means (:func:`system_table`), and where one metric disagrees most with
the humans (:func:`disagreements`). The arithmetic is :mod:`mtdiag.analysis.meta_statistics`'.

Decisions (the papers leave them open; ``docs/meta-evaluation.md`` says each with its reason):

- **Metrics**: every metric of the report with a better direction — imported (a WMT release's, COMET …) and the
  tool's own (predicted MQM included) — each turned so that higher is better; the length ratio has no direction.
- **Items**: a (system, segment) pair counts at segment level where both the human and the metric score it
  (``None``/missing on either side leaves it out; WMT drops missing human scores and has no missing metric ones).
- **System scores**: a system's human score is the published one when the set brings it (a WMT ``.sys.score``,
  whole set only), else the mean of its rated segments; a metric's is its corpus score in the report (for a WMT
  metric its published ``.sys.score`` on the whole set). Systems lacking either side are left out of that pair.
- **Intervals**: a percentile bootstrap over source segments (each resample draws N source segments with
  replacement, with every system's output of each); in a resample a system's human score is the mean of its
  rated segments drawn and a metric's its corpus formula on the drawn statistics (published scores describe the
  whole set only), so where the human system scores exist only as published numbers there is no interval.
- **Tied with the best**: WMT's clusters (``AssignRanks``) with p-values from the same bootstrap draws — the share of
  resamples where a lower metric is at least as good — in place of WMT's permutation test (which costs a
  thousand re-correlations per *pair* of metrics); rank 1 is the cluster of the best metric.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtdiag.analysis import meta_statistics as ms
from mtdiag.metrics import metric_info

STATISTICS = {
    "segment_pearson": "segment Pearson",
    "within_segment_accuracy": "within-segment accuracy",
    "system_accuracy": "system accuracy",
    "system_pearson": "system Pearson",
    "acc_t": "acc-t (WMT23)",
}
"""The statistics per metric, as the tables name them and a person reads them."""
GROUP_STATISTICS = tuple(STATISTICS)[:4]
"""The statistics of a breakdown by groups (acc-t's ε is chosen on the whole set, so a group's acc-t is not
shown)."""
DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 44
LEVEL = 0.95
ALPHA = 0.05


@dataclass(frozen=True)
class Evidence:
    """What the statistics read of a report: the systems and metrics on trial and their human and metric scores.

    The systems (``S``) and metrics (``M``) on trial, the human segment scores (``S × N``), the metrics' oriented
    segment scores (``M × S × N``), the human system scores (``S``: published where the set has them, else the mean of
    the rated segments) and the metrics' oriented corpus scores (``M × S``)."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    human: np.ndarray
    scores: np.ndarray
    human_system: np.ndarray
    published: bool
    corpus: np.ndarray


def judged_metrics(report) -> list[str]:
    """The report's metrics with a better direction (those that can agree or disagree with people)."""
    return [m for m in report.metrics if metric_info(m, report).has_direction]


def human_matrix(report) -> np.ndarray:
    """The human segment scores as ``systems × segments`` (NaN where unrated; a pair rated twice: the mean)."""
    evalset = report.evalset
    out = np.full((len(evalset.systems), evalset.n_segments), np.nan)
    human = evalset.human
    if human is None or not len(human):
        return out
    rows = pd.Index(evalset.systems).get_indexer(human["system"])
    kept = rows >= 0
    flat = rows[kept] * evalset.n_segments + human["seg"].to_numpy(dtype=np.int64)[kept]
    totals = np.bincount(flat, weights=human["score"].to_numpy(dtype=float)[kept], minlength=out.size)
    counts = np.bincount(flat, minlength=out.size)
    np.divide(totals, counts, out=out.reshape(-1), where=counts > 0)
    return out


def published_human(report) -> pd.Series:
    """The published human system score of each system (whole set), empty when the set has none."""
    frame = report.evalset.human_systems
    if frame is None or not len(frame):
        return pd.Series(dtype=float)
    whole = frame[frame["domain"] == ""]
    return whole.groupby("system", sort=False)["score"].mean()


def evidence(report) -> Evidence:
    """The :class:`Evidence` of a report (its slice's, for a slice)."""
    systems, metrics = tuple(report.evalset.systems), tuple(judged_metrics(report))
    human = human_matrix(report)
    n = report.evalset.n_segments
    signs = np.array([metric_info(m, report).sign for m in metrics])
    segments = report.segments
    scores = np.stack([segments[m].to_numpy(dtype=float).reshape(len(systems), n) for m in metrics]) if metrics \
        else np.zeros((0, len(systems), n))
    corpus = report.corpus.reindex(index=list(systems), columns=list(metrics)).to_numpy(dtype=float).T
    published = published_human(report)
    if len(published):
        human_system = published.reindex(list(systems)).to_numpy(dtype=float)
    else:
        with np.errstate(invalid="ignore"):
            human_system = ms.resampled_means(np.ones((1, n)), human)[0]
    return Evidence(systems, metrics, human, scores * signs[:, None, None], human_system, bool(len(published)),
                    corpus * signs[:, None])


def _corpus_draws(report, ev: Evidence, weights: np.ndarray) -> np.ndarray:
    """Each metric's oriented corpus score of each system under each row of ``weights``: ``M × R × S`` (the
    metric's corpus formula on the weighted sums of its statistics — one matrix product for every metric)."""
    blocks, shapes = [], []
    for metric in ev.metrics:
        stats = [np.asarray(report.result(metric, s).stats, dtype=np.float64) for s in ev.systems]
        shapes.append(stats[0].shape[1])
        blocks.append(np.concatenate(stats, axis=1))
    if not blocks:
        return np.zeros((0, len(weights), len(ev.systems)))
    sums = weights @ np.concatenate(blocks, axis=1)
    out, at = [], 0
    for metric, k in zip(ev.metrics, shapes):
        width = k * len(ev.systems)
        summed = sums[:, at:at + width].reshape(len(weights), len(ev.systems), k)
        at += width
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(metric_info(metric, report).sign * np.asarray(report.metric(metric).corpus_score(summed),
                                                                     dtype=float))
    return np.stack(out)


@dataclass(frozen=True)
class Terms:
    """Per segment and metric what the segment-level statistics sum (computed once, then weighted by any ``W``).

    Pearson's sums (``N × M × 6``), the within-segment accuracy (``N × M``) and whether the segment has a pair the
    humans tell apart, acc-t at its ε (NaN: no pair) with that ε per metric, and the items counted per metric."""

    sums: np.ndarray
    accuracy: np.ndarray
    has_pairs: np.ndarray
    acc_t: np.ndarray
    epsilon: np.ndarray
    items: np.ndarray


def segment_terms(ev: Evidence) -> Terms:
    """The :class:`Terms` of every metric: one pass over the metrics, each vectorised over segments and pairs."""
    n, count = ev.human.shape[1], len(ev.metrics)
    pairs = ms.human_pairs(ev.human)
    sums, accuracy, has = np.zeros((n, count, ms.SUMS)), np.zeros((n, count)), np.zeros((n, count))
    acc_t, epsilon = np.full((n, count), np.nan), np.full(count, np.nan)
    for j in range(count):
        sums[:, j] = ms.segment_sums(ev.human, ev.scores[j])
        credit, counted = ms.within_segment_counts(pairs, ev.scores[j])
        has[:, j] = counted > 0
        accuracy[:, j] = np.divide(credit, counted, out=np.zeros(n), where=counted > 0)
        _, epsilon[j], acc_t[:, j] = ms.tie_calibrated_accuracy(pairs, ev.scores[j])
    return Terms(sums, accuracy, has, acc_t, epsilon, sums[:, :, 0].sum(axis=0))


def statistics_under(report, ev: Evidence, terms: Terms, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Every statistic of every metric under each row of ``weights`` (``R × N``): ``{name: R × M}``.

    A handful of matrix products; the system level from the weighted human means and the metrics' corpus formulas."""
    human_system = ms.resampled_means(weights, ev.human)
    corpus = _corpus_draws(report, ev, weights)
    acc_t = np.isfinite(terms.acc_t)
    return {"segment_pearson": ms.segment_pearson(weights, terms.sums),
            "within_segment_accuracy": ms.weighted_mean_accuracy(weights, terms.accuracy, terms.has_pairs),
            "system_accuracy": ms.pairwise_agreement(human_system[None], corpus).T,
            "system_pearson": ms.row_pearson(np.broadcast_to(human_system, corpus.shape), corpus).T,
            "acc_t": ms.weighted_mean_accuracy(weights, np.where(acc_t, terms.acc_t, 0.0), acc_t.astype(float))}


def point_estimates(report, ev: Evidence, terms: Terms) -> dict[str, np.ndarray]:
    """The statistics of every metric on the whole of the report's set (``{name: M}``).

    The system level comes from the human system scores of :class:`Evidence` (published where the set has them) and the
    report's corpus scores."""
    whole = {name: values[0] for name, values in
             statistics_under(report, ev, terms, np.ones((1, report.evalset.n_segments))).items()}
    whole["system_accuracy"] = ms.pairwise_agreement(ev.human_system[None, :], ev.corpus)
    whole["system_pearson"] = ms.row_pearson(np.broadcast_to(ev.human_system, ev.corpus.shape), ev.corpus)
    return whole


def metric_table(report, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """One row per metric on trial: its statistics, their bootstrap intervals and WMT clusters; best first.

    Each statistic of :data:`STATISTICS`, its bootstrap interval (``_low``, ``_high``: 95 %, ``samples`` resamples of
    the source segments) and its WMT cluster (``_rank``: 1 = tied with the best), acc-t's threshold ε, the items and
    systems counted, and where the metric comes from (``source``); sorted best first by segment Pearson, else system
    accuracy."""
    ev = evidence(report)
    terms = segment_terms(ev)
    whole = point_estimates(report, ev, terms)
    draws = statistics_under(report, ev, terms, ms.resample_weights(report.evalset.n_segments, samples, seed))
    imported = {spec.name for spec in report.evalset.imported}
    frame = pd.DataFrame({"metric": list(ev.metrics),
                          "source": ["imported" if m in imported else "mtdiag" for m in ev.metrics]})
    for name in STATISTICS:
        low, high = ms.percentile_interval(draws[name], LEVEL)
        frame[name], frame[f"{name}_low"], frame[f"{name}_high"] = whole[name], low, high
        frame[f"{name}_rank"] = ms.rank_clusters(whole[name], draws[name], ALPHA)[0]
    frame["acc_t_epsilon"] = terms.epsilon
    frame["items"] = terms.items.astype(np.int64)
    frame["systems"] = (np.isfinite(ev.human_system)[None] & np.isfinite(ev.corpus)).sum(axis=1)
    order = "segment_pearson" if np.isfinite(frame["segment_pearson"]).any() else "system_accuracy"
    frame = frame.sort_values(order, ascending=False, na_position="last", kind="stable").reset_index(drop=True)
    frame.attrs.update(samples=samples, seed=seed, published=ev.published, systems=len(ev.systems))
    return frame


def group_table(report, labels: np.ndarray, order) -> pd.DataFrame:
    """The statistics of :data:`GROUP_STATISTICS` of every metric within each group of segments.

    ``labels``: a group per segment, None for none; ``order``: the groups as shown. One row per (group, metric), with
    the segments and items of the group. No intervals; the system scores are the group's means and corpus scores
    (published scores describe the whole set)."""
    ev = evidence(report)
    terms = segment_terms(ev)
    groups = [g for g in order if (labels == g).any()]
    weights = np.stack([(labels == g).astype(np.float64) for g in groups]) if groups else np.zeros((0, len(labels)))
    found = statistics_under(report, ev, terms, weights)
    frame = pd.DataFrame({"group": np.repeat(np.asarray(groups, dtype=object), len(ev.metrics)),
                          "segments": np.repeat(weights.sum(axis=1), len(ev.metrics)).astype(np.int64),
                          "metric": np.tile(np.asarray(ev.metrics, dtype=object), len(groups)),
                          "items": (weights @ terms.sums[:, :, 0]).reshape(-1).astype(np.int64)})
    for name in GROUP_STATISTICS:
        frame[name] = found[name].reshape(-1)
    scored = frame[list(GROUP_STATISTICS)].notna().any(axis=1)  # a system-level-only metric has no group figure
    return frame[scored].reset_index(drop=True)



def system_table(report) -> pd.DataFrame:
    """Per system rated or published: its published and mean human scores; best first.

    Its published human score (whole set), the mean of its rated segments and how many were rated, and whether it is one
    of the report's systems; best first by the score the statistics use."""
    human = report.evalset.human
    if human is not None and len(human):
        grouped = human.groupby("system", sort=False)["score"]
        means, rated = grouped.mean(), grouped.size()
    else:
        means = rated = pd.Series(dtype=float)
    published = published_human(report)
    names = list(dict.fromkeys([*published.index, *means.index]))
    frame = pd.DataFrame({"system": names, "published": published.reindex(names).to_numpy(dtype=float),
                          "mean": means.reindex(names).to_numpy(dtype=float),
                          "rated": rated.reindex(names).fillna(0).to_numpy(dtype=np.int64),
                          "in_set": [n in report.evalset.systems for n in names]})
    used = frame["published"] if len(published) else frame["mean"]
    return frame.iloc[np.argsort(-used.to_numpy(), kind="stable")].reset_index(drop=True)


DISAGREEMENT_COLUMNS = ("system", "seg", "gap", "direction", "human", "score", "human_percentile",
                        "metric_percentile", "human_errors", "metric_errors", "output")


def _span_texts(spans: pd.DataFrame | None, evalset, keys: pd.MultiIndex, label: str | None) -> list[str]:
    """Per (system, seg) of ``keys`` its spans as text — ``severity category “words”`` joined by ``; `` (the words
    cut from the output, or from the source for a source-side error); ``label``: the column naming its category."""
    if spans is None or not len(spans):
        return [""] * len(keys)
    wanted = spans.set_index(["system", "seg"]).sort_index()
    out = []
    for system, seg in keys:
        if (system, seg) not in wanted.index:
            out.append("")
            continue
        rows = wanted.loc[[(system, seg)]]
        output, source = str(evalset.hyps.at[seg, system]), str(evalset.src.iat[seg])
        texts = []
        for row in rows.itertuples():
            text = source if getattr(row, "side", "target") == "source" else output
            words = text[int(row.start):int(row.end)] if 0 <= row.start < row.end else ""
            named = (row.severity, getattr(row, label, "") if label else "")
            kind = " ".join(str(v) for v in named if v and str(v) != "nan")
            texts.append(f"{kind} “{words}”" if words else kind)
        out.append("; ".join(texts))
    return out


def disagreements(report, metric: str, top: int = 50, metric_spans: pd.DataFrame | None = None,
                  span_label: str | None = None) -> pd.DataFrame:
    """The (system, segment) pairs ``metric`` ranks most differently from the humans, worst first.

    Over the items both score, each side's percentile rank (average rank of ties / items; the metric oriented so that
    higher is better), ``gap`` = metric percentile − human percentile (positive: the metric thinks better of the output
    than the people did), both scores as given, the human error spans and the metric's own (``metric_spans``: rows
    ``seg, system, start, end, severity``, and ``span_label`` the column naming a span's kind; default: the set's spans
    of a metric of that name or of its name without the reference, ``XCOMET-XL`` for ``XCOMET-XL-refA``)."""
    evalset = report.evalset
    human = human_matrix(report)
    info = metric_info(metric, report)
    scores = report.segments[metric].to_numpy(dtype=float).reshape(len(evalset.systems), evalset.n_segments)
    both = np.isfinite(human) & np.isfinite(scores)
    system_at, seg = np.nonzero(both)
    if not len(seg):
        return pd.DataFrame(columns=list(DISAGREEMENT_COLUMNS))
    h, m = human[both], scores[both]
    human_pct = pd.Series(h).rank(method="average", pct=True).to_numpy()
    metric_pct = pd.Series(info.sign * m).rank(method="average", pct=True).to_numpy()
    gap = metric_pct - human_pct
    chosen = np.lexsort((seg, system_at, -np.abs(gap)))[:top]
    systems = np.asarray(evalset.systems, dtype=object)[system_at[chosen]]
    keys = pd.MultiIndex.from_arrays([systems, seg[chosen]])
    if metric_spans is None and evalset.metric_spans is not None:
        base = metric.rsplit("-", 1)[0].lower()
        named = evalset.metric_spans["metric"].astype(str).str.lower()
        metric_spans = evalset.metric_spans[named.isin({metric.lower(), base})]
    return pd.DataFrame({
        "system": systems, "seg": seg[chosen], "gap": gap[chosen],
        "direction": np.where(gap[chosen] > 0, "metric kinder than people", "metric harsher than people"),
        "human": h[chosen], "score": m[chosen], "human_percentile": human_pct[chosen],
        "metric_percentile": metric_pct[chosen],
        "human_errors": _span_texts(evalset.annotations, evalset, keys, "category"),
        "metric_errors": _span_texts(metric_spans, evalset, keys, span_label),

        "output": [str(evalset.hyps.at[s, system]) for system, s in keys]})
