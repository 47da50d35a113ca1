"""The slice finder: where do two systems differ most? (``mtdiag slices --compare A B``; ``docs/slices.md``).

**Candidates.** Every candidate is written as the expression that defines it, and its segments are what that
expression selects (:func:`~mtdiag.slices.selection.segment_mask`), so ``--where EXPR`` reproduces its numbers:

- every bucket of every segment dimension of :mod:`mtdiag.buckets` — source and reference length bands
  (``src_len >= 10 and src_len <= 19``), rare-word bands (``rare_freq >= 3 and rare_freq <= 4``; the ``no words``
  bucket has no value to compare and is left out), and every value of every label column (``doc == "talk.2"``);
- every triage flag, every band of the human scores and every top-level human error category, each as the
  segments where it holds **for A or for B** (``repetition[A] or repetition[B]``). Either system's failure
  counts, so the slice is not chosen for one of the two systems; the difference then says which one suffers more
  there;
- every tag the user gave (``tag == "check"``, :mod:`mtdiag.tags`);
- every pairwise intersection ``X and Y`` of two of those from different dimensions (buckets of one dimension
  are disjoint).

A candidate is tried when it keeps at least ``min_size`` segments and fewer than all; a candidate with the same
segments as one found before (an intersection equal to one of its parts) is the same slice and is tried once.

**Test.** On each slice: A's and B's corpus scores by the metric's corpus formula on the slice's summed
statistics, their difference ``A − B``, and the paired bootstrap p-value of :mod:`mtdiag.significance` (Koehn 2004;
sacrebleu's draw of ``n`` resamples from ``seed``, B as the baseline) — the very p-value ``mtdiag score --where
EXPR --paired-bs --baseline B`` gives for that metric. The p-values are corrected for the number of slices tried:
Benjamini–Hochberg (1995), which bounds the expected share of false findings among the slices reported (the
default: a finder explores, and a few false leads among many true ones cost little), or Holm (1979), which bounds
the chance of any false finding. The method is named in every row. A bootstrap of ``n`` resamples cannot give a
p-value below ``1 / (n + 1)``, and either correction multiplies the smallest p by the number ``m`` of slices tried:
with sacrebleu's 1,000 resamples and ~100 slices nothing could ever be significant, however large the difference.
So the number of resamples follows the number of slices (:func:`resamples_for`): at least 1,000 and at least
``2 m / 0.05`` (twice what the smallest p needs to survive either correction alone), unless given (``--samples``).

**Ranking.** Slices significant after correction (corrected p < 0.05) come first, then the others; within each,
the larger the absolute difference in the metric's points, the earlier (then the larger slice, then the
expression). The difference is the quantity a user acts on; significance says whether it is real.

Speed: the two systems' statistics are stacked once; slices of the same size share one bootstrap draw (the draw
depends only on the size and the seed) and one matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtdiag import buckets, checks
from mtdiag.significance import (ALPHA, CORRECTIONS, DEFAULT_SAMPLES, DEFAULT_SEED, bootstrap_p_value, bootstrap_sums,
                            corrected)
from mtdiag.slices.catalogue import ERROR_SEPARATOR
from mtdiag.slices.expression import is_name, key_text, quote
from mtdiag.slices.selection import segment_mask
from mtdiag.tags import tag_names

DEFAULT_MIN_SIZE = 30
DEFAULT_CORRECTION = "bh"  # the finder explores: a few false leads among many true ones cost little
COLUMNS = ("expression", "size", "score_a", "score_b", "difference", "p_value", "p_corrected", "correction",
           "significant")


@dataclass(frozen=True)
class Candidate:
    """A candidate slice: the ``expression`` that defines it, its ``group`` (the dimension it comes from:
    intersections pair different groups) and its segments (``mask``)."""

    expression: str
    group: str
    mask: np.ndarray


# ------------------------------------------------------------------------------------------ candidates


def _number(value: float) -> str:
    """A number as an expression writes it, reading back as the same float."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _between(field: str, lo: float, hi: float) -> str:
    """``field`` in the closed range ``lo..hi`` (an infinite end is left out; one value is ``==``)."""
    if lo == hi:
        return f"{field} == {_number(lo)}"
    parts = ([f"{field} >= {_number(lo)}"] if np.isfinite(lo) else []) + \
            ([f"{field} <= {_number(hi)}"] if np.isfinite(hi) else [])
    return " and ".join(parts)


def _mqm_band(field: str, lo: float, hi: float) -> str:
    """The expression of the :data:`~mtdiag.buckets.MQM_BANDS` band ``(lo, hi)`` over ``field``, as a person says
    it: ``human[A] > -10 and human[A] <= -5``, ``human[A] == 0``, ``human[A] <= -25``."""
    if lo == hi:
        return f"{field} == {_number(hi)}"
    upper = f"{field} {'<' if hi == 0.0 else '<='} {_number(hi)}"
    return upper if not np.isfinite(lo) else f"{field} > {_number(lo)} and {upper}"


def length_band_expressions(field: str) -> list[tuple[str, str]]:
    """``(band label, expression)`` for every length band of :mod:`mtdiag.buckets` over ``field``."""
    edges = buckets.LENGTH_EDGES
    bands = [("0", 0, 0)] + [(f"{lo}-{hi - 1}", lo, hi - 1) for lo, hi in zip(edges, edges[1:])]
    bands.append((f"{edges[-1]}+", edges[-1], np.inf))
    return [(label, _between(field, lo, hi)) for label, lo, hi in bands]


def frequency_band_expressions() -> list[tuple[str, str]]:
    """``(band label, expression)`` for every rare-word band of :mod:`mtdiag.buckets` (``rare_freq``)."""
    return [(label, _between("rare_freq", lo, hi)) for lo, hi, label in buckets.FREQ_BANDS]


def human_band_expressions(report, system: str) -> list[tuple[str, str]]:
    """``(band label, expression)`` for every human-score band of :mod:`mtdiag.buckets` over ``human[system]``:
    :data:`~mtdiag.buckets.MQM_BANDS` (both ends included), or the quartile bands (lower end included)."""
    field = f"human[{key_text(system)}]"
    quartiles = buckets.human_quartiles(report)
    if quartiles is None:
        return [(label, _mqm_band(field, lo, hi)) for lo, hi, label in buckets.MQM_BANDS]
    q = [_number(v) for v in quartiles]
    return list(zip(buckets.QUARTER_NAMES, [f"{field} < {q[0]}", f"{field} >= {q[0]} and {field} < {q[1]}",
                                            f"{field} >= {q[1]} and {field} < {q[2]}", f"{field} >= {q[2]}"]))


def _either(a: str, b: str, condition) -> str:
    return f"{condition(a)} or {condition(b)}"


def _singles(report, a: str, b: str, min_size: int) -> list[tuple[str, str]]:
    """``(group, expression)`` of every candidate before intersections (see the module docstring)."""
    evalset = report.evalset
    found: list[tuple[str, str]] = []
    for dimension in buckets.dimensions(report):
        if dimension == "src_length":
            found += [(dimension, e) for _, e in length_band_expressions("src_len")]
        elif dimension == "ref_length":
            found += [(dimension, e) for _, e in length_band_expressions("ref_len")]
        elif dimension == "ref_freq":
            found += [(dimension, e) for _, e in frequency_band_expressions()]
        elif dimension.startswith("label:"):
            label = dimension.partition(":")[2]
            if not is_name(label):
                continue
            counts = evalset.segments[label].astype(str).value_counts(sort=False)
            found += [(dimension, f"{label} == {quote(value)}") for value, count in counts.items()
                      if count >= min_size]
        elif dimension == "human":
            ka, kb = (human_band_expressions(report, s) for s in (a, b))
            found += [(dimension, f"{_wrap(x)} or {_wrap(y)}") for (_, x), (_, y) in zip(ka, kb)]
        elif dimension == "error_category":
            spans = evalset.annotations
            tops: dict[str, str] = {}  # case-folded -> as first written (the search ignores case)
            for category in spans.loc[spans["system"].isin([a, b]), "category"].astype(str):
                top = category.split("/")[0].strip()
                if top:
                    tops.setdefault(top.casefold(), top)
            for folded, top in tops.items():
                found.append((f"error:{folded}", _either(a, b, lambda s: f"errors[{key_text(s)}] has {quote(top)}")))
    for flag in checks.flag_frame(report).columns:
        found.append((f"flag:{flag}", _either(a, b, lambda s: f"{flag}[{key_text(s)}]")))
    found += [(f"tag:{name}", f"tag == {quote(name)}") for name in tag_names(evalset.tags)]  # the user's tags
    return found


def _wrap(expression: str) -> str:
    """``expression`` as one operand of ``or``, parenthesised when it has an ``and`` (for the reader: ``and``
    binds first anyway)."""
    return f"({expression})" if " and " in expression else expression


def _and(x: str, y: str) -> str:
    """``x and y``, each part parenthesised when it has an ``or``."""
    return " and ".join(f"({e})" if " or " in e else e for e in (x, y))


def candidate_slices(report, a: str, b: str, min_size: int = DEFAULT_MIN_SIZE) -> list[Candidate]:
    """Every candidate slice of ``report`` for systems ``a`` and ``b`` that keeps at least ``min_size`` segments
    and fewer than all, each once (the first expression of a set of segments is kept), singles first."""
    n = report.evalset.n_segments
    seen: set[bytes] = set()
    singles: list[Candidate] = []

    def keep(candidate: Candidate, into: list[Candidate]) -> None:
        size = int(candidate.mask.sum())
        key = np.packbits(candidate.mask).tobytes()
        if min_size <= size < n and key not in seen:
            seen.add(key)
            into.append(candidate)

    for group, expression in _singles(report, a, b, min_size):
        keep(Candidate(expression, group, segment_mask(report, expression)), singles)
    pairs: list[Candidate] = []
    if singles:
        masks = np.stack([c.mask for c in singles], axis=1).astype(np.float32)
        overlap = masks.T @ masks  # segments in both, every pair at once
        for i, j in zip(*np.nonzero(np.triu(overlap >= min_size, k=1))):
            x, y = singles[i], singles[j]
            if x.group != y.group:
                keep(Candidate(_and(x.expression, y.expression), f"{x.group} & {y.group}", x.mask & y.mask), pairs)
    return singles + pairs


# ------------------------------------------------------------------------------------------ the search


def resamples_for(tried: int) -> int:
    """Bootstrap resamples for ``tried`` slices: sacrebleu's default 1,000, or enough that the smallest possible
    p-value, ``1 / (n + 1)``, survives Holm's or Benjamini–Hochberg's correction over ``tried`` tests with a factor
    2 to spare: ``n + 1 >= 2 tried / 0.05``."""
    return max(DEFAULT_SAMPLES["bs"], int(np.ceil(2 * tried / ALPHA)) - 1)


def find_slices(report, a: str, b: str, metric: str = "chrf", *, min_size: int = DEFAULT_MIN_SIZE,
                correction: str = DEFAULT_CORRECTION, n: int | None = None, seed: int | None = DEFAULT_SEED,
                top: int | None = None) -> pd.DataFrame:
    """The candidate slices (:func:`candidate_slices`) ranked by how much ``a`` and ``b`` differ there (see the
    module docstring): columns :data:`COLUMNS` — ``expression``, ``size``, ``score_a``, ``score_b``,
    ``difference`` (``score_a − score_b``), ``p_value`` (paired bootstrap, ``b`` as the baseline), ``p_corrected``,
    ``correction`` and ``significant`` (``p_corrected < 0.05``); ``top`` rows (None: all). ``n`` bootstrap
    resamples per slice (None: :func:`resamples_for` the number of slices tried). ``attrs`` hold the systems, the
    metric, the whole set's scores, the number of slices tried and of resamples drawn."""
    systems = report.evalset.systems
    for system in (a, b):
        if system not in systems:
            raise ValueError(f"{system!r} is not a system; systems: {', '.join(systems)}")
    if a == b:
        raise ValueError("compare two different systems")
    if metric not in report.metrics:
        raise ValueError(f"metric {metric!r} was not computed; computed: {', '.join(report.metrics)}")
    if min_size < 1:
        raise ValueError(f"the minimum slice size must be at least 1, got {min_size}")
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose {', '.join(CORRECTIONS)}")
    if n is not None and n < 1:
        raise ValueError(f"the number of resamples must be at least 1, got {n}")
    scorer = report.metric(metric)
    # (n_segments, 2, k): the baseline b first, as compare.significance stacks it
    stacked = np.stack([np.asarray(report.result(metric, s).stats, dtype=np.float64) for s in (b, a)], axis=1)
    candidates = candidate_slices(report, a, b, min_size)
    n = resamples_for(len(candidates)) if n is None else n
    rows = _tested(scorer, stacked, candidates, n, seed)
    table = pd.DataFrame(rows, columns=["expression", "size", "score_a", "score_b", "p_value"])
    table["difference"] = table["score_a"] - table["score_b"]
    table["p_corrected"] = corrected(table["p_value"].to_numpy(), correction)
    table["correction"] = correction
    table["significant"] = table["p_corrected"] < ALPHA
    table = table.assign(_gap=table["difference"].abs()).sort_values(
        ["significant", "_gap", "size", "expression"], ascending=[False, False, False, True], kind="stable",
        na_position="last").drop(columns="_gap").reset_index(drop=True)[list(COLUMNS)]
    whole = np.asarray(scorer.corpus_score(stacked.sum(axis=0)), dtype=float)
    table.attrs.update(a=a, b=b, metric=metric, tried=len(candidates), significant=int(table["significant"].sum()),
                       min_size=min_size, correction=correction, n=n, seed=seed, score_a=float(whole[1]),
                       score_b=float(whole[0]), segments=report.evalset.n_segments)
    return table if top is None else table.head(top)


def _tested(scorer, stacked: np.ndarray, candidates: list[Candidate], n: int, seed: int | None) -> list[tuple]:
    """Per candidate: expression, size, score of a, score of b, bootstrap p-value. Candidates of one size share
    the draw and one matrix product (:func:`mtdiag.significance.bootstrap_sums`)."""
    by_size: dict[int, list[int]] = {}
    for i, candidate in enumerate(candidates):
        by_size.setdefault(int(candidate.mask.sum()), []).append(i)
    results: dict[int, tuple] = {}
    for size, members in by_size.items():
        rows = {i: stacked[candidates[i].mask] for i in members}
        sums = bootstrap_sums(rows, n, seed)
        for i in members:
            observed = np.asarray(scorer.corpus_score(rows[i].sum(axis=0)), dtype=float)  # (2,): b, a
            scores = np.asarray(scorer.corpus_score(sums[i]), dtype=float)  # (n, 2)
            p = bootstrap_p_value(scores[:, 1], scores[:, 0], np.abs(observed[1] - observed[0]))
            results[i] = (candidates[i].expression, size, float(observed[1]), float(observed[0]), float(p))
    return [results[i] for i in range(len(candidates))]
