"""Buckets: every metric per group of segments, as compare-mt reads a test set (Neubig et al. 2019, §2.2).

A *bucketing* assigns each (system, segment) pair to one bucket; per bucket and system we report the number of
segments and every metric with its **corpus formula on the bucket's summed statistics** (never a mean of segment
scores), and a paired test of two systems inside each bucket (:func:`mtdiag.analysis.significance.compare_stats` on the bucket's
rows). Dimensions (``BY``):

- ``src_length`` / ``ref_length`` — tokens of the source (tokenised for the source language: 13a, ``zh`` or
  ``ja-mecab``) / of the first reference (the report's tokens), in the bands ``LENGTH_EDGES``
  (``1-9, 10-19, 20-29, 30-39, 40-49, 50+``; an empty text is ``0``).
- ``ref_freq`` — how rare the segment's rarest reference word is: the lowest frequency among its reference
  tokens (punctuation left out), counted over every reference of the test set, or taken from a user's word-count
  file (``word<TAB>count`` per line, :func:`read_word_counts`). Bands as compare-mt's word-frequency buckets:
  ``0`` (unseen in the counts), ``1``, ``2``, ``3-4``, ``5-9``, ``10-99``, ``100-999``, ``1000+``. A segment whose
  rarest word is rare is where terminology and named entities go wrong. (Decision: compare-mt buckets *words* by
  frequency; a segment-level bucket needs one number per segment, and the rarest word is the one that explains a
  segment's difficulty.)
- ``label:COLUMN`` — any label column of the segments (``doc``, ``domain``, …), one bucket per value.
- ``human`` — the human score of the pair (``evalset.human``): MQM-style scores (all ≤ 0) in the bands
  ``0`` (no error), ``-0.1…-4.9`` (minor errors only), ``-5…-9.9`` (one major), ``-10…-24.9``, ``≤ -25``
  (MQM weights: minor 1, major 5, non-translation 25); other scales in quartiles. Unrated pairs are left out.
- ``error_category`` — from human error annotations (MQM/ESA spans): the top-level category (``Accuracy``,
  ``Fluency``, …, the part before ``/``) of the pair's heaviest error (the first on a tie); ``no error`` for a rated
  pair without errors. Unrated pairs are left out.

The dimensions are a registry (:data:`DIMENSIONS`, :class:`mtdiag.core.registry.Registry`): a new one is a
:class:`Dimension` passed to :func:`register`, and it appears in the Buckets page's choices, ``mtdiag buckets
--by`` and the slice finder's candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from mtdiag.analysis.significance import DEFAULT_SEED, compare_stats
from mtdiag.core.errors import InputError
from mtdiag.core.registry import Registry
from mtdiag.core.tokenize import TokenizeOptions, default_tokenizer, is_punctuation, tokenize_texts

LENGTH_EDGES = (1, 10, 20, 30, 40, 50)
FREQ_BANDS = ((0, 0, "0"), (1, 1, "1"), (2, 2, "2"), (3, 4, "3-4"), (5, 9, "5-9"), (10, 99, "10-99"),
              (100, 999, "100-999"), (1000, np.inf, "1000+"))
MQM_BANDS = ((0.0, 0.0, "0"), (-5.0, 0.0, "-0.1…-4.9"), (-10.0, -5.0, "-5…-9.9"), (-25.0, -10.0, "-10…-24.9"),
             (-np.inf, -25.0, "≤ -25"))
"""MQM penalty bands ``(lo, hi, label)``: a score is in the band when ``lo < score <= hi``, except ``0`` (no error:
exactly 0) and the band just below it (``-5 < score < 0``); every score ≤ 0 is in exactly one band."""


def in_mqm_band(score: float, lo: float, hi: float) -> bool:
    """Whether ``score`` is in the :data:`MQM_BANDS` band ``(lo, hi)``."""
    if lo == hi:
        return score == hi
    return lo < score < hi if hi == 0.0 else lo < score <= hi


@dataclass(frozen=True)
class Bucketing:
    """A bucket label per (system, segment), and the order the buckets are shown in.

    ``labels`` has one row per system (``systems`` order) and one column per segment (None: the pair is in no bucket);
    ``order`` lists the buckets as they are shown."""

    by: str
    systems: tuple[str, ...]
    labels: np.ndarray  # object array (n_systems, n_segments)
    order: tuple[str, ...]


def _same_for_all(report, per_segment: Sequence[object], order: Sequence[str], by: str) -> Bucketing:
    systems = tuple(report.evalset.systems)
    labels = np.tile(np.asarray(per_segment, dtype=object), (len(systems), 1))
    present = set(per_segment)
    return Bucketing(by, systems, labels, tuple(b for b in order if b in present))


def length_band(n: int) -> str:
    """The band of :data:`LENGTH_EDGES` a length ``n`` falls in: ``0``, ``1-9``, ``10-19``, … ``50+``."""
    if n == 0:
        return "0"
    for lo, hi in zip(LENGTH_EDGES, LENGTH_EDGES[1:]):
        if lo <= n < hi:
            return f"{lo}-{hi - 1}"
    return f"{LENGTH_EDGES[-1]}+"


LENGTH_ORDER = ("0", *(f"{lo}-{hi - 1}" for lo, hi in zip(LENGTH_EDGES, LENGTH_EDGES[1:])), f"{LENGTH_EDGES[-1]}+")


def frequency_band(count: float) -> str:
    """The label of the :data:`FREQ_BANDS` band ``count`` falls in (the last band's when none holds it)."""
    for lo, hi, label in FREQ_BANDS:
        if lo <= count <= hi:
            return label
    return FREQ_BANDS[-1][2]


def read_word_counts(path: str | Path) -> dict[str, int]:
    """A word-count file: one ``word<TAB>count`` per line (UTF-8), as ``{word: count}``.

    Words are matched lower-cased when the report lower-cases. Errors name the file and line."""
    counts: dict[str, int] = {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot be read as UTF-8 text ({exc.__class__.__name__})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        word, sep, count = line.rpartition("\t")
        if not sep or not word or not count.strip().isascii() or not count.strip().isdigit():
            raise InputError(str(path), "expected 'word<TAB>count' with a whole number", line=number)
        counts[word] = counts.get(word, 0) + int(count.strip())
    if not counts:
        raise InputError(str(path), "has no word counts")
    return counts


@dataclass(frozen=True)
class Dimension:
    """A way to group a report's (system, segment) pairs: its name, its description, what it offers and its builder.

    ``name`` (a word; ``label`` stands for every ``label:COLUMN``), ``description`` (what the buckets are, in words),
    ``offered(evalset)`` — the names it offers on these data (``[]`` when they lack what it reads; the label dimension
    offers one per label column) — and ``build(report, by, word_counts)`` — the :class:`Bucketing` of one offered name
    (``word_counts``: a user's word counts, read by frequency dimensions only; None for the set's own)."""

    name: str
    description: str
    offered: Callable[..., list[str]]
    build: Callable[..., Bucketing]


def _source_length_buckets(report, by: str, word_counts) -> Bucketing:
    if "src" not in report.evalset.segments.columns:
        raise ValueError("src_length buckets need the source (--src)")
    return _same_for_all(report, [length_band(int(n)) for n in source_lengths(report)], LENGTH_ORDER, by)


def _reference_length_buckets(report, by: str, word_counts) -> Bucketing:
    return _same_for_all(report, [length_band(int(n)) for n in reference_lengths(report)], LENGTH_ORDER, by)


def _rare_word_buckets(report, by: str, word_counts) -> Bucketing:
    rarest = rarest_word_frequency(report, word_counts)
    return _same_for_all(report, ["no words" if np.isinf(v) else frequency_band(v) for v in rarest],
                         [b[2] for b in FREQ_BANDS], by)


def _label_buckets(report, by: str, word_counts) -> Bucketing:
    evalset = report.evalset
    column = by.partition(":")[2]
    if column not in evalset.label_columns:
        labels = evalset.label_columns
        raise ValueError(f"{by}: the segments have no label column {column!r}; "
                         f"label columns: {', '.join(labels) if labels else 'none'}")
    values = evalset.segments[column].astype(str).tolist()
    return _same_for_all(report, values, list(dict.fromkeys(values)), by)


def _when(test: Callable, name: str) -> Callable[..., list[str]]:
    """``offered`` of a dimension that these data allow when ``test(evalset)``."""
    return lambda evalset: [name] if test(evalset) else []


DIMENSIONS: Registry[Dimension] = Registry("bucket dimension", lambda dimension: dimension.name, (
    Dimension("src_length", "source length (tokens)", _when(lambda e: "src" in e.segments.columns, "src_length"),
              _source_length_buckets),
    Dimension("ref_length", "reference length (tokens)", _when(lambda e: e.has_references, "ref_length"),
              _reference_length_buckets),
    Dimension("ref_freq", "rarest reference word (frequency in the test set)",
              _when(lambda e: e.has_references, "ref_freq"), _rare_word_buckets),
    Dimension("label", "a label of the segments", lambda e: [f"label:{c}" for c in e.label_columns],
              _label_buckets),
    Dimension("human", "human score band", _when(lambda e: e.human is not None and len(e.human), "human"),
              lambda report, by, word_counts: _human_bands(report)),
    Dimension("error_category", "heaviest human-marked error",
              _when(lambda e: e.annotations is not None and len(e.annotations), "error_category"),
              lambda report, by, word_counts: _error_categories(report)),
))
"""The bucket dimensions, in the order a user reads them: source and reference length, rare words
(reference-based: not without a reference), every label column (``label:doc``, …), human-score bands and error
categories when loaded. A new one: :func:`register` (or ``DIMENSIONS.registered(...)`` for a while)."""


def register(dimension: Dimension) -> Dimension:
    """Add a bucket dimension (every surface that offers dimensions picks it up); its name must be new and a word."""
    return DIMENSIONS.register(dimension)


def describe(dimension: str) -> str:
    """A dimension in words (``label:doc`` -> ``label: doc``); anything else unchanged."""
    if dimension.startswith("label:"):
        return f"label: {dimension.partition(':')[2]}"
    known = DIMENSIONS.get(dimension)
    return known.description if known is not None else dimension


def dimensions(report) -> list[str]:
    """The bucket dimensions these data allow, in the order of :data:`DIMENSIONS`."""
    return [name for dimension in DIMENSIONS.values() for name in dimension.offered(report.evalset)]


def bucketing(report, by: str, *, word_counts: dict[str, int] | None = None) -> Bucketing:
    """The buckets of ``report``'s pairs along one dimension.

    ``by``: a name of :data:`DIMENSIONS` or ``label:COLUMN``; see the module doc."""
    dimension = DIMENSIONS.get("label" if by.startswith("label:") else by)
    if dimension is None or by == "label":
        known = ", ".join(name for name in DIMENSIONS if name != "label")
        raise ValueError(f"unknown bucket dimension {by!r}; choose {known} or label:COLUMN")
    return dimension.build(report, by, word_counts)


def source_lengths(report) -> np.ndarray:
    """Tokens per source segment, tokenised for the source language (13a, ``zh`` or ``ja-mecab``; case kept)."""
    evalset = report.evalset
    src_lang = evalset.lang_pair.split("-")[0] if evalset.lang_pair and "-" in evalset.lang_pair else None
    options = TokenizeOptions(default_tokenizer(src_lang), lowercase=False)
    return np.array([len(tokens) for tokens in tokenize_texts(evalset.src.astype(str).tolist(), options)],
                    dtype=np.int64)


def reference_lengths(report) -> np.ndarray:
    """Tokens per segment of the first reference, under the report's tokenisation."""
    return np.asarray(report.context.tokens.refs[report.evalset.ref_names[0]].lengths, dtype=np.int64)


def rarest_word_frequency(report, word_counts: dict[str, int] | None = None) -> np.ndarray:
    """Per segment, the frequency of the rarest word of the first reference (punctuation left out).

    Counted over every reference of the report, or looked up in ``word_counts``; ``inf`` where the reference has no
    word."""
    tokens = report.context.tokens
    vocab = tokens.vocab
    if word_counts is None:  # frequency within the test set's references
        ids = np.concatenate([side.ids for side in tokens.refs.values()])
        freq = np.bincount(ids, minlength=len(vocab)).astype(float)
    else:
        fold = report.context.options.lowercase
        table: dict[str, int] = {}
        for word, count in word_counts.items():
            key = word.lower() if fold else word
            table[key] = table.get(key, 0) + count
        freq = np.array([table.get(word, 0) for word in vocab], dtype=float)
    punctuation = np.array([is_punctuation(word) for word in vocab], dtype=bool)
    side = tokens.refs[report.evalset.ref_names[0]]
    seg_of = np.repeat(np.arange(side.n_segments), side.lengths)
    values = np.where(punctuation[side.ids], np.inf, freq[side.ids])
    rarest = np.full(side.n_segments, np.inf)
    np.minimum.at(rarest, seg_of, values)
    return rarest


QUARTER_NAMES = ("lowest quarter", "second quarter", "third quarter", "highest quarter")


def _rated(report) -> pd.DataFrame:
    human = report.evalset.human
    if human is None or human.empty:
        raise ValueError("human buckets need human scores (mqm.seg.tsv or --human)")
    return human[human["system"].isin(report.evalset.systems)].dropna(subset=["score"])


def human_quartiles(report) -> np.ndarray | None:
    """The quartiles of the rated pairs' human scores, which band a scale other than MQM; None for MQM-style scores.

    A band is between two quartiles: lower one included, upper one not. MQM-style scores (all ≤ 0) are banded by
    :data:`MQM_BANDS`."""
    scores = _rated(report)["score"].to_numpy(dtype=float)
    if len(scores) and (scores <= 0).all():
        return None
    return np.quantile(scores, [0.25, 0.5, 0.75]) if len(scores) else np.zeros(3)


def _human_bands(report) -> Bucketing:
    evalset = report.evalset
    systems = tuple(evalset.systems)
    labels = np.full((len(systems), evalset.n_segments), None, dtype=object)
    rated = _rated(report)
    scores = rated["score"].to_numpy(dtype=float)
    quartiles = human_quartiles(report)
    if quartiles is None:
        bands = MQM_BANDS
        band_of = lambda v: next((label for lo, hi, label in bands if in_mqm_band(v, lo, hi)), None)  # noqa: E731
        order = [b[2] for b in bands]
    else:
        band_of = lambda v: QUARTER_NAMES[int(np.searchsorted(quartiles, v, side="right"))]  # noqa: E731
        order = QUARTER_NAMES
    row = {s: i for i, s in enumerate(systems)}
    for system, seg, score in zip(rated["system"], rated["seg"], scores):
        labels[row[system], int(seg)] = band_of(score)
    present = {v for v in labels.ravel() if v is not None}
    return Bucketing("human", systems, labels, tuple(b for b in order if b in present))


def _error_categories(report) -> Bucketing:
    evalset = report.evalset
    spans = evalset.annotations
    if spans is None:
        raise ValueError("error_category buckets need human error annotations (an MQM or ESA file)")
    systems = tuple(evalset.systems)
    row = {s: i for i, s in enumerate(systems)}
    labels = np.full((len(systems), evalset.n_segments), None, dtype=object)
    if evalset.human is not None:
        for system, seg in zip(evalset.human["system"], evalset.human["seg"]):
            if system in row:
                labels[row[system], int(seg)] = "no error"
    heaviest = spans[spans["system"].isin(systems)].sort_values("weight", ascending=False, kind="stable")
    for (system, seg), group in heaviest.groupby(["system", "seg"], sort=False):
        category = str(group["category"].iat[0]).split("/")[0].strip() or "unspecified"
        labels[row[system], int(seg)] = category
    present = [v for v in dict.fromkeys(labels.ravel()) if v is not None]
    order = sorted((v for v in present if v != "no error"), key=str.casefold) + (["no error"] if "no error" in present else [])
    return Bucketing("error_category", systems, labels, tuple(order))


def bucket_scores(report, buckets: Bucketing, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Per bucket and system: ``segments`` and every metric by its corpus formula on the bucket's summed statistics.

    Long frame ``bucket, system, segments, METRIC…`` in bucket then system order."""
    names = [m for m in (metrics or report.metrics)]
    rows = []
    for bucket in buckets.order:
        for i, system in enumerate(buckets.systems):
            mask = buckets.labels[i] == bucket
            row = {"bucket": bucket, "system": system, "segments": int(mask.sum())}
            for metric in names:
                stats = report.result(metric, system).stats[mask]
                row[metric] = float(report.metric(metric).corpus_score(stats.sum(axis=0))) if mask.any() else np.nan
            rows.append(row)
    return pd.DataFrame(rows, columns=["bucket", "system", "segments", *names])


def bucket_significance(report, buckets: Bucketing, a: str, b: str, method: str = "bs", n: int | None = None,
                        seed: int | None = DEFAULT_SEED, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """System ``a`` against ``b`` inside each bucket, by a paired test on the segments both have in that bucket.

    Columns ``bucket, metric, segments, a, b, delta, p, significant, better`` (better: +1 ``a`` better)."""
    names = [m for m in (metrics or report.metrics)]
    ia, ib = buckets.systems.index(a), buckets.systems.index(b)
    rows = []
    for bucket in buckets.order:
        mask = (buckets.labels[ia] == bucket) & (buckets.labels[ib] == bucket)
        if not mask.any():
            continue
        stats = {m: {s: report.result(m, s).stats[mask] for s in (b, a)} for m in names}
        frame = compare_stats({m: report.metric(m) for m in names}, stats, b, method, n, seed, n_confidence=0)
        for metric in names:
            row = frame.loc[(a, metric)]
            rows.append({"bucket": bucket, "metric": metric, "segments": int(mask.sum()), a: frame.loc[(a, metric), "score"],
                         b: frame.loc[(b, metric), "score"], "delta": row["delta"], "p": row["p"],
                         "significant": bool(row["significant"]), "better": int(row["better"])})
    return pd.DataFrame(rows, columns=["bucket", "metric", "segments", a, b, "delta", "p", "significant", "better"])
