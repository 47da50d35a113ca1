"""The slice finder: where do two systems differ most? (``mtdiag slices --compare A B``; ``docs/slices.md``).

**Candidates.** Every candidate is written as the expression that defines it, and its segments are what that
expression selects (:func:`~mtdiag.slices.selection.segment_mask`), so ``--where EXPR`` reproduces its numbers:

- every bucket of every segment dimension of :mod:`mtdiag.analysis.segment_groups` — source and reference length bands
  (``src_len >= 10 and src_len <= 19``), rare-word bands (``rare_freq >= 3 and rare_freq <= 4``; the ``no words``
  bucket has no value to compare and is left out), and every value of every label column (``doc == "talk.2"``);
- every triage flag, every band of the human scores and every top-level human error category, each as the
  segments where it holds **for A or for B** (``repetition[A] or repetition[B]``). Either system's failure
  counts, so the slice is not chosen for one of the two systems; the difference then says which one suffers more
  there;
- every tag the user gave (``tag == "check"``, :mod:`mtdiag.core.tags`);
- every pairwise intersection ``X and Y`` of two of those from different dimensions (buckets of one dimension
  are disjoint).

A candidate is tried when it keeps at least ``min_size`` segments and fewer than all; a candidate with the same
segments as one found before (an intersection equal to one of its parts) is the same slice and is tried once.

**Test.** On each slice: A's and B's corpus scores by the metric's corpus formula on the slice's summed
statistics and their difference ``A − B`` (the *gap*); the same on the rest of the set (every segment outside the
slice) and the **departure** ``(A − B on the slice) − (A − B on the rest)``. Two tests (``test``):

- ``departure`` (the default): is the gap on this slice unusual — does B catch up, win, or fall further behind
  here than on the rest of the set? The paired bootstrap of the difference of differences: sacrebleu's draw of
  ``n`` resamples of the **whole set** from ``seed`` (Koehn 2004), each resample summed over the slice's segments
  and over the rest's, the departure recomputed from the four corpus scores, and the p-value of
  :func:`mtdiag.analysis.significance.bootstrap_p_value` (the resampled departures centred, against the observed one).
  One draw serves every slice. A system ahead everywhere by a similar margin has few slices that depart (the
  question "is A − B ≠ 0 here?" was significant on every slice of such a pair and so said nothing about *where*);
  two systems that differ only on a few documents depart exactly there. Decision: resampling the whole set keeps
  every slice's share of it random, as it is (a slice is a property of segments, not a fixed design); a
  stratified draw per slice and rest would cost one draw of the rest per slice size.
- ``gap``: is ``A − B ≠ 0`` on the slice? The paired bootstrap p-value of :mod:`mtdiag.analysis.significance` on the
  slice's segments (sacrebleu's draw of ``n`` resamples of the slice from ``seed``, B as the baseline) — the very
  p-value ``mtdiag score --where EXPR --paired-bs --baseline B`` gives for that metric. Slices of one size share
  one draw and one matrix product.

The p-values are corrected for the number of slices tried: Benjamini–Hochberg (1995), which bounds the expected
share of false findings among the slices reported (the default: a finder explores, and a few false leads among
many true ones cost little), or Holm (1979), which bounds the chance of any false finding. The method is named in
every row. A bootstrap of ``n`` resamples cannot give a p-value below ``1 / (n + 1)``, and either correction
multiplies the smallest p by the number ``m`` of slices tried: with sacrebleu's 1,000 resamples and ~100 slices
nothing could ever be significant, however large the difference. So the number of resamples follows the number of
slices (:func:`resamples_for`): at least 1,000 and at least ``2 m / 0.05`` (twice what the smallest p needs to
survive either correction alone), unless given (``--samples``).

**Direction.** Each row says which way the slice departs (:func:`direction`), in the metric's better direction:
with A ahead on the rest, "B wins here" (B ahead on the slice), "B catches up" (A's lead smaller), "A's lead grows"
(larger, up to twice), "A's lead doubles" (twice or more), "as elsewhere" (equal); the same with the roles swapped
when B is ahead on the rest; "A ahead here"/"B ahead here" when the rest is even.

**Ranking.** Slices significant after correction (corrected p < 0.05) come first, then the others; within each,
by the tested quantity in the metric's points, largest first — the absolute departure (``departure``) or the
absolute gap (``gap``) — then the larger slice, then the expression. That quantity is what a user acts on;
significance says whether it is real.

Speed: the two systems' statistics are stacked once; the departure test draws the whole set once (block by
block, :func:`mtdiag.analysis.significance.bootstrap_count_blocks`) and sums each slice over its own segments only; the gap
test's slices of the same size share one bootstrap draw (the draw depends only on the size and the seed) and one
matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtdiag.analysis import segment_groups
from mtdiag.triage import checks
from mtdiag.metrics import metric_info
from mtdiag.analysis.significance import (ALPHA, CORRECTIONS, DEFAULT_SAMPLES, DEFAULT_SEED, bootstrap_count_blocks, bootstrap_p_value, bootstrap_sums, corrected, one_blas_thread)
from mtdiag.slices.catalogue import ERROR_SEPARATOR
from mtdiag.slices.expression import is_name, key_text, quote
from mtdiag.slices.selection import segment_mask
from mtdiag.core.tags import tag_names

DEFAULT_MIN_SIZE = 30
DEFAULT_CORRECTION = "bh"  # the finder explores: a few false leads among many true ones cost little
TESTS = {"departure": "departure from the rest of the set: (A − B here) − (A − B elsewhere) ≠ 0",
         "gap": "a gap on the slice: A − B ≠ 0 here"}
DEFAULT_TEST = "departure"  # where the gap is unusual; "gap" is significant on every slice of a pair apart everywhere
COLUMNS = ("expression", "size", "score_a", "score_b", "difference", "rest_difference", "departure", "direction",
           "p_value", "p_corrected", "correction", "significant")


@dataclass(frozen=True)
class Candidate:
    """A candidate slice: its defining ``expression``, its ``group`` and its segments (``mask``).

    The ``group`` is the dimension the slice comes from: intersections pair different groups."""

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
    """The expression of the :data:`~mtdiag.analysis.segment_groups.MQM_BANDS` band ``(lo, hi)`` over ``field``, as a person says
    it: ``human[A] > -10 and human[A] <= -5``, ``human[A] == 0``, ``human[A] <= -25``."""
    if lo == hi:
        return f"{field} == {_number(hi)}"
    upper = f"{field} {'<' if hi == 0.0 else '<='} {_number(hi)}"
    return upper if not np.isfinite(lo) else f"{field} > {_number(lo)} and {upper}"


def length_band_expressions(field: str) -> list[tuple[str, str]]:
    """``(band label, expression)`` for every length band of :mod:`mtdiag.analysis.segment_groups` over ``field``."""
    edges = segment_groups.LENGTH_EDGES
    bands = [("0", 0, 0)] + [(f"{lo}-{hi - 1}", lo, hi - 1) for lo, hi in zip(edges, edges[1:])]
    bands.append((f"{edges[-1]}+", edges[-1], np.inf))
    return [(label, _between(field, lo, hi)) for label, lo, hi in bands]


def frequency_band_expressions() -> list[tuple[str, str]]:
    """``(band label, expression)`` for every rare-word band of :mod:`mtdiag.analysis.segment_groups`.

    The expressions read ``rare_freq``."""
    return [(label, _between("rare_freq", lo, hi)) for lo, hi, label in segment_groups.FREQ_BANDS]


def human_band_expressions(report, system: str) -> list[tuple[str, str]]:
    """``(band label, expression)`` for every human-score band of :mod:`mtdiag.analysis.segment_groups`.

    The bands are over ``human[system]``: :data:`~mtdiag.analysis.segment_groups.MQM_BANDS` (both ends included), or the
    quartile bands (lower end included)."""
    field = f"human[{key_text(system)}]"
    quartiles = segment_groups.human_quartiles(report)
    if quartiles is None:
        return [(label, _mqm_band(field, lo, hi)) for lo, hi, label in segment_groups.MQM_BANDS]
    q = [_number(v) for v in quartiles]
    return list(zip(segment_groups.QUARTER_NAMES, [f"{field} < {q[0]}", f"{field} >= {q[0]} and {field} < {q[1]}",
                                            f"{field} >= {q[1]} and {field} < {q[2]}", f"{field} >= {q[2]}"]))


def _either(a: str, b: str, condition) -> str:
    return f"{condition(a)} or {condition(b)}"


def _singles(report, a: str, b: str, min_size: int, tags) -> list[tuple[str, str]]:
    """``(group, expression)`` of every candidate before intersections (see the module docstring)."""
    evalset = report.evalset
    found: list[tuple[str, str]] = []
    for dimension in segment_groups.dimensions(report):
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
    found += [(f"tag:{name}", f"tag == {quote(name)}") for name in tag_names(tags)]  # the user's tags
    return found


def _wrap(expression: str) -> str:
    """``expression`` as one operand of ``or``, parenthesised when it has an ``and`` (for the reader: ``and``
    binds first anyway)."""
    return f"({expression})" if " and " in expression else expression


def _and(x: str, y: str) -> str:
    """``x and y``, each part parenthesised when it has an ``or``."""
    return " and ".join(f"({e})" if " or " in e else e for e in (x, y))


def candidate_slices(report, a: str, b: str, min_size: int = DEFAULT_MIN_SIZE, tags=None) -> list[Candidate]:
    """Every candidate slice of ``report`` for systems ``a`` and ``b``, each once, singles first.

    A slice keeps at least ``min_size`` segments and fewer than all; the first expression of a set of segments is kept.
    ``tags``: the user's tags (:mod:`mtdiag.core.tags`), each tried as a slice."""
    n = report.evalset.n_segments
    seen: set[bytes] = set()
    singles: list[Candidate] = []

    def keep(candidate: Candidate, into: list[Candidate]) -> None:
        size = int(candidate.mask.sum())
        key = np.packbits(candidate.mask).tobytes()
        if min_size <= size < n and key not in seen:
            seen.add(key)
            into.append(candidate)

    for group, expression in _singles(report, a, b, min_size, tags):
        keep(Candidate(expression, group, segment_mask(report, expression, tags)), singles)
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
    """The number of bootstrap resamples for ``tried`` slices.

    It is sacrebleu's default 1,000, or enough that the smallest possible p-value, ``1 / (n + 1)``, survives Holm's or
    Benjamini–Hochberg's correction over ``tried`` tests with a factor 2 to spare: ``n + 1 >= 2 tried / 0.05``."""
    return max(DEFAULT_SAMPLES["bs"], int(np.ceil(2 * tried / ALPHA)) - 1)


def find_slices(report, a: str, b: str, metric: str = "chrf", *, min_size: int = DEFAULT_MIN_SIZE,
                correction: str = DEFAULT_CORRECTION, test: str = DEFAULT_TEST, n: int | None = None,
                seed: int | None = DEFAULT_SEED, top: int | None = None, tags=None) -> pd.DataFrame:
    """The candidate slices (:func:`candidate_slices`, the user's ``tags`` among them) ranked by ``test``.

    See the module docstring for the tests. Columns :data:`COLUMNS` — ``expression``, ``size``, ``score_a``,
    ``score_b``, ``difference`` (``score_a − score_b``), ``rest_difference`` (A − B on the segments outside the slice),
    ``departure`` (``difference − rest_difference``), ``direction`` (:func:`direction`), ``p_value`` (``departure``: the
    paired bootstrap of the difference of differences; ``gap``: the paired bootstrap on the slice, ``b`` as the
    baseline), ``p_corrected``, ``correction`` and ``significant`` (``p_corrected < 0.05``); ``top`` rows (None: all).
    ``n`` bootstrap resamples (None: :func:`resamples_for` the number of slices tried). ``attrs`` hold the systems, the
    metric, the test, the whole set's scores, the number of slices tried and of resamples drawn."""
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
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose {', '.join(TESTS)}")
    if n is not None and n < 1:
        raise ValueError(f"the number of resamples must be at least 1, got {n}")
    scorer = report.metric(metric)
    # (n_segments, 2, k): the baseline b first, as compare.significance stacks it
    stacked = np.stack([np.asarray(report.result(metric, s).stats, dtype=np.float64) for s in (b, a)], axis=1)
    candidates = candidate_slices(report, a, b, min_size, tags)
    n = resamples_for(len(candidates)) if n is None else n
    table = pd.DataFrame(_observed(scorer, stacked, candidates),
                         columns=["expression", "size", "score_a", "score_b", "rest_a", "rest_b"])
    table["difference"] = table["score_a"] - table["score_b"]
    table["rest_difference"] = table["rest_a"] - table["rest_b"]
    table["departure"] = table["difference"] - table["rest_difference"]
    tested, ranked_by = (_departures, "departure") if test == "departure" else (_gaps, "difference")
    table["p_value"] = tested(scorer, stacked, candidates, n, seed, table[ranked_by].abs().to_numpy())
    sign = metric_info(metric, report).sign
    table["direction"] = [direction(sign * gap, sign * rest, a, b)
                          for gap, rest in zip(table["difference"], table["rest_difference"])]
    table["p_corrected"] = corrected(table["p_value"].to_numpy(), correction)
    table["correction"] = correction
    table["significant"] = table["p_corrected"] < ALPHA
    table = table.assign(_gap=table[ranked_by].abs()).sort_values(
        ["significant", "_gap", "size", "expression"], ascending=[False, False, False, True], kind="stable",
        na_position="last").drop(columns="_gap").reset_index(drop=True)[list(COLUMNS)]
    whole = np.asarray(scorer.corpus_score(stacked.sum(axis=0)), dtype=float)
    table.attrs.update(a=a, b=b, metric=metric, test=test, tried=len(candidates),
                       significant=int(table["significant"].sum()), min_size=min_size, correction=correction, n=n,
                       seed=seed, score_a=float(whole[1]), score_b=float(whole[0]),
                       segments=report.evalset.n_segments)
    return table if top is None else table.head(top)


def direction(gap: float, rest: float, a: str, b: str) -> str:
    """Which way a slice departs from the rest of the set, in words (module docstring).

    ``gap`` and ``rest`` are A's advantage over B on the slice and on the rest, in the metric's better direction
    (positive: A better)."""
    if not (np.isfinite(gap) and np.isfinite(rest)):
        return ""
    if rest == 0:
        return f"{a} ahead here" if gap > 0 else f"{b} ahead here" if gap < 0 else "as elsewhere"
    leader, trailer = (a, b) if rest > 0 else (b, a)
    ratio = gap / rest  # > 1: the leader's lead grows here; < 0: the trailer wins here
    if ratio < 0:
        return f"{trailer} wins here"
    if ratio < 1:
        return f"{trailer} catches up"
    if ratio == 1:
        return "as elsewhere"
    return f"{leader}'s lead doubles" if ratio >= 2 else f"{leader}'s lead grows"


def _observed(scorer, stacked: np.ndarray, candidates: list[Candidate]) -> list[tuple]:
    """Per candidate: expression, size, A's and B's scores on the slice and on the rest of the set."""
    total = stacked.sum(axis=0)
    rows = []
    for candidate in candidates:
        inside = stacked[candidate.mask].sum(axis=0)
        here = np.asarray(scorer.corpus_score(inside), dtype=float)  # (2,): b, a
        rest = np.asarray(scorer.corpus_score(total - inside), dtype=float)
        rows.append((candidate.expression, int(candidate.mask.sum()), float(here[1]), float(here[0]),
                     float(rest[1]), float(rest[0])))
    return rows


def _departures(scorer, stacked: np.ndarray, candidates: list[Candidate], n: int, seed: int | None,
                observed: np.ndarray) -> np.ndarray:
    """Per candidate: the paired bootstrap p-value of its departure, ``observed`` its absolute value on the set
    (module docstring). One draw of the whole set, block by block; each slice summed over its own segments, the
    rest as the resample's total minus the slice."""
    n_segments, _, k = stacked.shape
    flat = stacked.reshape(n_segments, 2 * k)
    whole = bool(np.all(flat >= 0) and np.all(flat == np.floor(flat)))
    narrow = flat.astype(np.float32) if whole else None  # whole numbers: exact in single precision below 2^24
    members = [np.flatnonzero(c.mask) for c in candidates]
    resampled = np.empty((len(candidates), n))
    with one_blas_thread():  # tall, thin products: OpenBLAS's threads only spin (significance.one_blas_thread)
        for start, stop, counts in bootstrap_count_blocks(n_segments, n, seed):
            totals = _exact_product(counts, narrow, flat).reshape(-1, 2, k)
            by_segment = np.ascontiguousarray(counts.T)  # a slice's segments are then whole rows, read in one sweep
            for j, inside in enumerate(members):
                here = _exact_product(by_segment[inside].T, None if narrow is None else narrow[inside],
                                      flat[inside]).reshape(-1, 2, k)
                slice_scores = np.asarray(scorer.corpus_score(here), dtype=float)  # (rows, 2): b, a
                rest_scores = np.asarray(scorer.corpus_score(totals - here), dtype=float)
                resampled[j, start:stop] = ((slice_scores[:, 1] - slice_scores[:, 0])
                                            - (rest_scores[:, 1] - rest_scores[:, 0]))
    return bootstrap_p_value(resampled, np.zeros(n), observed)


def _exact_product(counts: np.ndarray, narrow: np.ndarray | None, wide: np.ndarray) -> np.ndarray:
    """``counts @ wide``: in single precision (``narrow``, ``wide`` as float32, given when its values are whole
    numbers ≥ 0) where every sum stays below 2^24 and so is exact — as :func:`mtdiag.analysis.significance.bootstrap_sums`
    multiplies — else in double precision."""
    if narrow is not None:
        product = counts @ narrow
        if np.all(product < 2.0 ** 24):
            return product.astype(np.float64)
    return counts.astype(np.float64) @ wide


def _gaps(scorer, stacked: np.ndarray, candidates: list[Candidate], n: int, seed: int | None,
          observed: np.ndarray) -> np.ndarray:
    """Per candidate: the paired bootstrap p-value of A − B on the slice (B the baseline), ``observed`` the absolute
    gap on the slice. Candidates of one size share the draw and one matrix product
    (:func:`mtdiag.analysis.significance.bootstrap_sums`)."""
    by_size: dict[int, list[int]] = {}
    for i, candidate in enumerate(candidates):
        by_size.setdefault(int(candidate.mask.sum()), []).append(i)
    p_values = np.empty(len(candidates))
    for size, members in by_size.items():
        rows = {i: stacked[candidates[i].mask] for i in members}
        sums = bootstrap_sums(rows, n, seed)
        for i in members:
            scores = np.asarray(scorer.corpus_score(sums[i]), dtype=float)  # (n, 2): b, a
            p_values[i] = bootstrap_p_value(scores[:, 1], scores[:, 0], observed[i])
    return p_values
