"""Human likeness of metrics and systems: ORANGE, KING and QUEEN (Amigó, Giménez, Gonzalo & Màrquez 2006,
"MT Evaluation: Human-like vs. Human Acceptable", §2.2, §3.1, §3.3; ``docs/ngrams-and-likeness.md``).

A similarity metric x(c, R) scores a candidate c against a reference set R; every segment-level metric of the
registry is one, oriented so that higher = more similar (a lower-is-better metric such as OTEM, UTEM or TER is
compared through its negated score, which orders exactly as the spec's ``100 − score`` without rounding).

- §2.2 ``ORANGE(x) = P(x(r, R−{r}) ≥ x(a, R−{r}))`` over segments, references r and systems a;
  ``KING(x) = P(∀a: x(r, R−{r}) ≥ x(a, R−{r}))`` over segments and references.
- §3.1 ``QUEEN_X(a) = P(∀x ∈ X: x(a, r) ≥ x(r', r''))`` over ordered triples of distinct references of the
  segment (default), or, as the paper does with three references, against the reference pairs of every segment.
- §3.3 ``KING(X)``: KING with QUEEN_{X, R−{r}} as the similarity, and the greedy search for the metric set with
  the highest KING.

Scores come from the core: for ORANGE/KING, one :func:`mtdiag.scoring.evaluate.evaluate` per held-out reference r on an
EvalSet whose references are R−{r} and whose systems are the real systems plus r; for QUEEN, one per reference r
on an EvalSet whose only reference is r and whose systems are the real systems plus the other references. An
evaluation both need is done once (with two references, every one of them). Scores are compared exactly as computed (``≥``, so ties count for the human, as the paper's
definition says). A comparison with an undefined (NaN) score is left out. With fewer references than a measure
needs, the result is empty and carries an explanation instead of raising.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.scoring.evaluate import Options, available_metrics, evaluate
from mtdiag.core.evalset import EvalSet
from mtdiag.metrics import metric_classes, metric_info

REF_PREFIX = "__ref__"
DEFAULT_QUEEN_METRICS: tuple[str, ...] = ("waft", "neva", "bleu", "chrf")
_PAPER = "Amigó et al. 2006"
_CHUNK = 1 << 24  # query x pool comparisons per block in pooled QUEEN


@dataclass(frozen=True)
class LikenessCounts:
    """ORANGE and KING from oriented scores, with the number of comparisons behind them."""

    orange: float
    king: float
    n_comparisons: int  # (segment, r, a) comparisons in ORANGE
    n_cases: int  # (segment, r) cases in KING
    tie_share: float  # share of the comparisons where human and system score exactly the same
    segment_king: np.ndarray  # per segment: share of its held-out references that beat every system (NaN: none)


@dataclass(frozen=True)
class OrangeKing:
    """ORANGE and KING of every metric (§2.2).

    ``table``: index ``metric``, columns ``orange``, ``king``, ``n_comparisons``, ``n_cases``, ``tie_share`` (ties count
    for the human: a metric that often gives human and system the same score — OTEM is 0 on most segments — gets a high
    KING from ties alone); ``segments``: index ``seg``, one column per metric, the share of held-out references of the
    segment for which KING holds."""

    table: pd.DataFrame
    segments: pd.DataFrame
    explanation: str | None = None


def plain_words(table: pd.DataFrame, n_systems: int, within=None) -> list[str]:
    """One sentence per metric of an ORANGE/KING ``table`` saying what its numbers mean against chance.

    Chance is Amigó et al. 2006 §2.2's random metric, with ORANGE 0.5 and KING 1/|A|. Above chance, the metric can tell
    a human translation from system output; at or below it, it cannot — below 0.5 it even prefers system output, so it
    must not be used to judge how human-like a system is. Imported metrics are named through ``within`` (the set or
    report)."""
    chance_king = 1 / max(n_systems, 1)
    sentences = []
    for metric, row in table.iterrows():
        orange, king = float(row["orange"]), float(row["king"])
        label = metric_info(metric, within).label
        head = (f"{label}: scores a held-out human translation at least as high as a system output in "
                f"{orange:.0%} of comparisons (a coin: 50%)")
        if orange > 0.5:
            verdict = ("— it can tell human from machine translation, and ranks the human one above every system in "
                       f"{king:.0%} of cases (chance: {chance_king:.0%}).")
        elif orange == 0.5:
            verdict = "— no better than a coin at telling human from machine translation."
        else:
            verdict = ("— below chance: it prefers system output to human translation, so it rewards machine-like "
                       "output; don't use it to judge how human-like a system is.")
        if row.get("tie_share", 0) >= 0.5:
            verdict += f" (Mostly ties: {row['tie_share']:.0%} of comparisons score human and system the same.)"
        sentences.append(f"{head} {verdict}")
    return sentences


@dataclass(frozen=True)
class Queen:
    """QUEEN of every system over a metric set (§3.1).

    ``systems``: QUEEN per system (the probability over all segments and triples); ``segments``: index ``seg``, one
    column per system."""

    metrics: tuple[str, ...]
    pooled: bool
    systems: pd.Series
    segments: pd.DataFrame
    explanation: str | None = None


@dataclass(frozen=True)
class MetricSelection:
    """The greedy metric-set search of §3.3.

    ``steps``: one row per metric in rank order — ``metric``, ``king_alone`` (KING({x})), ``king_with`` (KING of the set
    so far plus x), ``added``."""

    selected: tuple[str, ...]
    king: float
    orange: float
    pooled: bool
    steps: pd.DataFrame
    explanation: str | None = None


# ------------------------------------------------------------------------------------------- pure computations


def orange_king_arrays(human: np.ndarray, systems: np.ndarray) -> LikenessCounts:
    """ORANGE and KING (Amigó et al. 2006 §2.2) from oriented similarities.

    ``human[s, r]`` = x(r, R−{r}) and ``systems[s, r, a]`` = x(a, R−{r}) on segment s. ORANGE is the share of
    valid (s, r, a) with human ≥ system; KING the share of (s, r) — all of whose scores are defined — where the
    human beats or ties every system.
    """
    human = np.asarray(human, dtype=float)[:, :, None]
    systems = np.asarray(systems, dtype=float)
    defined = ~np.isnan(human) & ~np.isnan(systems)
    wins = (human >= systems) & defined
    cases = defined.all(axis=2)
    kings = wins.all(axis=2) & cases
    n_comparisons, n_cases = int(defined.sum()), int(cases.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        segment_king = kings.sum(axis=1) / cases.sum(axis=1)
    nan = float("nan")
    return LikenessCounts(
        orange=float(wins.sum() / n_comparisons) if n_comparisons else nan,
        king=float(kings.sum() / n_cases) if n_cases else nan,
        n_comparisons=n_comparisons,
        n_cases=n_cases,
        tie_share=float(((human == systems) & defined).sum() / n_comparisons) if n_comparisons else nan,
        segment_king=segment_king,
    )


def _dominated(queries: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """For each query column q of ``queries`` (k, Q): how many pool columns p of ``pool`` (k, P) have q ≥ p in
    every row."""
    if pool.shape[1] == 0:
        return np.zeros(queries.shape[1], dtype=np.int64)
    if len(pool) == 1:
        return np.searchsorted(np.sort(pool[0]), queries[0], side="right").astype(np.int64)
    counts = np.empty(queries.shape[1], dtype=np.int64)
    step = max(1, _CHUNK // pool.shape[1])
    for lo in range(0, queries.shape[1], step):
        block = queries[:, lo : lo + step, None] >= pool[:, None, :]
        counts[lo : lo + step] = block.all(axis=0).sum(axis=1)
    return counts


def _queen_per_segment(cand: np.ndarray, between: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(wins, valid) per segment and candidate over the ordered triples of distinct references of the segment."""
    _, n_seg, n_cand, m = cand.shape
    wins = np.zeros((n_seg, n_cand), dtype=np.int64)
    valid = np.zeros((n_seg, n_cand), dtype=np.int64)
    for r, r1, r2 in itertools.permutations(range(m), 3):
        query = cand[:, :, :, r]
        pair = between[:, :, r1, r2][:, :, None]
        defined = ~(np.isnan(query).any(axis=0) | np.isnan(pair).any(axis=0))
        wins += (query >= pair).all(axis=0) & defined
        valid += defined
    return wins, valid


def _queen_pooled(cand: np.ndarray, between: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(wins, valid) per segment and candidate against the pooled reference pairs ⟨r', r''⟩ of every segment,
    leaving out, on the candidate's own segment, the pairs that contain its reference r (the three references
    of a triple are distinct; references of other segments are other texts)."""
    k, n_seg, n_cand, m = cand.shape
    ordered = [(r1, r2) for r1 in range(m) for r2 in range(m) if r1 != r2]
    pool = np.stack([between[:, :, r1, r2] for r1, r2 in ordered], axis=2).reshape(k, -1)
    pool = pool[:, ~np.isnan(pool).any(axis=0)]
    wins = np.zeros((n_seg, n_cand), dtype=np.int64)
    valid = np.zeros((n_seg, n_cand), dtype=np.int64)
    for r in range(m):
        query = cand[:, :, :, r]
        defined = ~np.isnan(query).any(axis=0)
        own = np.stack([between[:, :, r1, r2] for r1, r2 in ordered if r in (r1, r2)], axis=2)  # (k, s, E)
        own_defined = ~np.isnan(own).any(axis=0)  # (s, E)
        own_wins = ((query[..., None] >= own[:, :, None, :]).all(axis=0) & own_defined[:, None, :]).sum(axis=2)
        dominated = _dominated(query.reshape(k, -1), pool).reshape(n_seg, n_cand)
        wins += np.where(defined, dominated - own_wins, 0)
        valid += np.where(defined, pool.shape[1] - own_defined.sum(axis=1)[:, None], 0)
    return wins, valid


def queen_counts(cand: np.ndarray, between: np.ndarray, pool: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """QUEEN's numerator and denominator (Amigó et al. 2006 §3.1) per segment and candidate.

    ``cand[x, s, c, r]`` = x(c, r): metric x, segment s, candidate c (not one of the references), reference r;
    ``between[x, s, r', r'']`` = x(r', r''), reference r' scored against reference r''. Returns ``(wins,
    valid)``, each (n_seg, n_cand): the number of triples ⟨r, r', r''⟩ (per segment, or with pooled pairs) where
    x(c, r) ≥ x(r', r'') for every metric x, and the number of triples with every score defined.
    """
    cand, between = np.asarray(cand, dtype=float), np.asarray(between, dtype=float)
    return _queen_pooled(cand, between) if pool else _queen_per_segment(cand, between)


def queen_values(cand: np.ndarray, between: np.ndarray, pool: bool = False) -> np.ndarray:
    """QUEEN per segment and candidate (wins / valid of :func:`queen_counts`; NaN where no triple is valid)."""
    wins, valid = queen_counts(cand, between, pool)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(valid > 0, wins / np.where(valid > 0, valid, 1), np.nan)


def king_of_set(pairs: np.ndarray, n_systems: int, pool: bool) -> LikenessCounts:
    """KING (and ORANGE) of a metric set X with QUEEN as the similarity (Amigó et al. 2006 §3.3).

    ``P(r ∈ R, ∀a: QUEEN_{X,R−{r}}(r) ≥ QUEEN_{X,R−{r}}(a))``.

    ``pairs[x, s, c, r]`` = x(c, r) for candidates c = the systems, then the references (NaN where c is r)."""
    _, n_seg, _, m = pairs.shape
    human = np.full((n_seg, m), np.nan)
    systems = np.full((n_seg, m, n_systems), np.nan)
    for held in range(m):
        others = [r for r in range(m) if r != held]
        cand = pairs[:, :, [*range(n_systems), n_systems + held]][:, :, :, others]
        between = pairs[:, :, [n_systems + r for r in others]][:, :, :, others]
        queen = queen_values(cand, between, pool)
        human[:, held], systems[:, held, :] = queen[:, -1], queen[:, :-1]
    return orange_king_arrays(human, systems)


# ------------------------------------------------------------------------------------------- scores from the core


def likeness_metrics(evalset: EvalSet) -> tuple[str, ...]:
    """The segment-level metrics with a direction these inputs allow.

    Term metrics only with terms; the set's imported metrics too."""
    classes = metric_classes(evalset)
    return tuple(m for m in available_metrics(evalset)
                 if classes[m].info.segment_level and classes[m].info.has_direction)


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name = f"_{name}_"
    return name


def _oriented(report, metric: str, candidates: list[str]) -> np.ndarray:
    """Segment scores (n_seg, n_candidates) oriented so that higher = more similar."""
    frame = report.segments[metric].unstack("system")[candidates].to_numpy(dtype=float)
    return metric_info(metric, report).oriented(frame)


@dataclass(frozen=True)
class LikenessScores:
    """The similarity scores ORANGE, KING and QUEEN need, computed by the core once (lazily) per EvalSet."""

    evalset: EvalSet
    metrics: tuple[str, ...]
    options: Options = Options()

    @property
    def systems(self) -> list[str]:
        """The set's systems."""
        return self.evalset.systems

    @property
    def refs(self) -> list[str]:
        """The names of the set's references."""
        return self.evalset.ref_names

    @cached_property
    def _ref_names(self) -> dict[str, str]:
        """The candidate name of each reference scored as a translation (never a system's name)."""
        return {r: _fresh(REF_PREFIX + r, set(self.systems)) for r in self.refs}

    @cached_property
    def _reports(self) -> dict:
        return {}

    def _evaluate(self, refs: list[str], extra: list[str]):
        """Every system and the references ``extra`` as candidates against the references ``refs`` — evaluated
        once: with two references, ORANGE/KING's held-out set {B} with candidate A is QUEEN's single reference B
        with candidate A, and both measures share the one report."""
        key = (tuple(refs), tuple(extra))
        if key not in self._reports:
            candidates = {s: self.evalset.hyps[s] for s in self.systems}
            candidates |= {self._ref_names[r]: self.evalset.refs[r] for r in extra}
            subset = replace(self.evalset, refs=self.evalset.refs[refs],
                             hyps=pd.DataFrame(candidates, index=self.evalset.refs.index), human=None)
            self._reports[key] = evaluate(subset, replace(self.options, metrics=self.metrics))
        return self._reports[key]

    @cached_property
    def held_out(self) -> dict[str, np.ndarray]:
        """Per metric, (n_seg, n_refs, n_systems + 1): x(a, R−{r}) for each system a, then x(r, R−{r})."""
        columns = {m: [] for m in self.metrics}
        for ref in self.refs:
            candidates = [*self.systems, self._ref_names[ref]]
            report = self._evaluate([r for r in self.refs if r != ref], [ref])
            for m in self.metrics:
                columns[m].append(_oriented(report, m, list(candidates)))
        return {m: np.stack(blocks, axis=1) for m, blocks in columns.items()}

    @cached_property
    def pairs(self) -> dict[str, np.ndarray]:
        """Per metric, x(c, r) of every candidate c against each single reference r.

        An array (n_seg, n_systems + n_refs, n_refs), for the systems then the references as candidates (NaN where the
        candidate is r itself)."""
        n_seg, n_sys, m = self.evalset.n_segments, len(self.systems), len(self.refs)
        out = {x: np.full((n_seg, n_sys + m, m), np.nan) for x in self.metrics}
        for j, ref in enumerate(self.refs):
            others = [r for r in self.refs if r != ref]
            candidates = [*self.systems, *(self._ref_names[r] for r in others)]
            report = self._evaluate([ref], others)
            rows = [*range(n_sys), *(n_sys + self.refs.index(r) for r in others)]
            for x in self.metrics:
                out[x][:, rows, j] = _oriented(report, x, list(candidates))
        return out



def likeness_scores(evalset: EvalSet, metrics: Sequence[str] | None = None, options: Options = Options()) -> LikenessScores:
    """Prepare the similarity scores of ``metrics`` for ORANGE, KING and QUEEN (Amigó et al. 2006 §2.2, §3.1).

    ``metrics`` defaults to every segment-level metric the inputs allow. Nothing is computed until a measure asks for
    it."""
    allowed = likeness_metrics(evalset)
    chosen = tuple(metrics) if metrics is not None else allowed
    for m in chosen:
        known = metric_classes(evalset)
        if m not in known:
            raise ValueError(f"unknown metric {m!r}; known: {', '.join(known)}")
        if m not in allowed:
            raise ValueError(f"metric {m!r} cannot be a similarity here (it is not segment-level, or needs terms)")
    if not chosen:
        raise ValueError("no similarity metric chosen")
    return LikenessScores(evalset=evalset, metrics=chosen, options=options)


# ------------------------------------------------------------------------------------------- the measures


def _too_few(n_refs: int, needed: int, what: str) -> str:
    return (f"{what} needs at least {needed} references per segment and this set has {n_refs}; "
            f"add references to see it ({_PAPER})")


def orange_king(scores: LikenessScores) -> OrangeKing:
    """ORANGE and KING of every metric of ``scores`` (Amigó et al. 2006 §2.2).

    Each reference r is held out in turn and compared, against the other references R−{r}, with every system."""
    columns = ["orange", "king", "n_comparisons", "n_cases", "tie_share"]
    index = pd.RangeIndex(scores.evalset.n_segments, name="seg")
    if len(scores.refs) < 2:
        explanation = _too_few(len(scores.refs), 2, "ORANGE/KING (§2.2: a reference is compared with the systems "
                               "against the other references)")
        return OrangeKing(table=pd.DataFrame(columns=columns, index=pd.Index([], name="metric")),
                          segments=pd.DataFrame(index=index), explanation=explanation)
    rows, per_segment = {}, {}
    for m in scores.metrics:
        held = scores.held_out[m]
        counts = orange_king_arrays(held[:, :, -1], held[:, :, :-1])
        rows[m] = [counts.orange, counts.king, counts.n_comparisons, counts.n_cases, counts.tie_share]
        per_segment[m] = counts.segment_king
    table = pd.DataFrame.from_dict(rows, orient="index", columns=columns).rename_axis("metric")
    table = table.astype({"n_comparisons": "int64", "n_cases": "int64"})
    return OrangeKing(table=table, segments=pd.DataFrame(per_segment, index=index))


def queen(scores: LikenessScores, metrics: Sequence[str] | None = None, pool: bool = False) -> Queen:
    """QUEEN_X(a) of every system (Amigó et al. 2006 §3.1) over the metric set X = ``metrics``.

    ``metrics`` defaults to the metrics of ``scores``. QUEEN is the share of ordered triples ⟨r, r', r''⟩ of distinct
    references where x(a, r) ≥ x(r', r'') for every x ∈ X. ``pool``: compare with the reference pairs of every segment
    (the paper's choice with three references) instead of the segment's own."""
    chosen = tuple(metrics) if metrics is not None else scores.metrics
    index = pd.RangeIndex(scores.evalset.n_segments, name="seg")
    if len(scores.refs) < 3:
        return Queen(metrics=chosen, pooled=pool, systems=pd.Series(dtype=float, name="queen"),
                     segments=pd.DataFrame(index=index),
                     explanation=_too_few(len(scores.refs), 3, "QUEEN (§3.1: triples of distinct references)"))
    _check_subset(chosen, scores)
    n_sys = len(scores.systems)
    pairs = np.stack([scores.pairs[m] for m in chosen])
    wins, valid = queen_counts(pairs[:, :, :n_sys], pairs[:, :, n_sys:], pool)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_segment = np.where(valid > 0, wins / np.where(valid > 0, valid, 1), np.nan)
        overall = wins.sum(axis=0) / valid.sum(axis=0)
    return Queen(metrics=chosen, pooled=pool,
                 systems=pd.Series(overall, index=pd.Index(scores.systems, name="system"), name="queen"),
                 segments=pd.DataFrame(per_segment, index=index, columns=scores.systems))


def _check_subset(metrics: Sequence[str], scores: LikenessScores) -> None:
    missing = [m for m in metrics if m not in scores.metrics]
    if missing or not metrics:
        raise ValueError(f"QUEEN metrics must be a non-empty subset of {', '.join(scores.metrics)}; "
                         f"got {', '.join(metrics) or 'none'}")


def select_metrics(scores: LikenessScores, pool: bool | None = None) -> MetricSelection:
    """The greedy search of Amigó et al. 2006 §3.3 for the metric set with the highest KING(X):

    1. every metric x is ranked by KING({x}) (descending; ties keep the order of ``scores.metrics``);
    2. the first metric starts the set; in rank order each further metric is added if, and only if, it
       increases KING(X) strictly.

    KING(X) holds each reference out and compares QUEEN_{X,R−{r}}. ``pool`` (default: pool exactly when the
    references left out of one are too few for per-segment triples, i.e. fewer than 4 references, as the paper
    did with three) chooses pooled QUEEN.
    """
    n_refs = len(scores.refs)
    pool = n_refs < 4 if pool is None else pool
    needed = 3 if pool else 4
    columns = ["metric", "king_alone", "king_with", "added"]
    if n_refs < needed:
        what = "the metric-set search (§3.3: KING of QUEEN with one reference held out" + (
            ", pairs pooled over segments)" if pool else ", triples per segment)")
        return MetricSelection(selected=(), king=float("nan"), orange=float("nan"), pooled=pool,
                               steps=pd.DataFrame(columns=columns), explanation=_too_few(n_refs, needed, what))
    selected, best, steps = greedy_metric_set({m: scores.pairs[m] for m in scores.metrics}, len(scores.systems), pool)
    return MetricSelection(selected=selected, king=best.king, orange=best.orange, pooled=pool,
                           steps=pd.DataFrame(steps, columns=columns))


def greedy_metric_set(pairs: dict[str, np.ndarray], n_systems: int, pool: bool):
    """Amigó et al. 2006 §3.3's greedy heuristic over ``pairs`` (metric -> x(c, r) as in :func:`king_of_set`).

    Rank by KING({x}) (descending; ties keep the given order), start with the first, add each next metric iff KING(X)
    strictly increases. Returns (selected, LikenessCounts of the set, steps as rows ``[metric, king_alone, king_with,
    added]``)."""
    def king(metrics: list[str]) -> LikenessCounts:
        return king_of_set(np.stack([pairs[m] for m in metrics]), n_systems, pool)

    alone = {m: king([m]) for m in pairs}
    ranked = sorted(pairs, key=lambda m: -np.nan_to_num(alone[m].king, nan=-1.0))
    selected, best = [ranked[0]], alone[ranked[0]]
    steps = [[ranked[0], best.king, best.king, True]]
    for m in ranked[1:]:
        trial = king([*selected, m])
        added = bool(trial.king > best.king)
        steps.append([m, alone[m].king, trial.king, added])
        if added:
            selected.append(m)
            best = trial
    return tuple(selected), best, steps


def report_likeness(report, metrics: Sequence[str]) -> LikenessScores:
    """:func:`likeness_scores` of a report's data and options, prepared once per report and metric set."""
    return report.context.memo(("likeness", tuple(metrics)),
                               lambda: likeness_scores(report.evalset, tuple(metrics), report.options))


def report_orange_king(report, metrics: Sequence[str]) -> OrangeKing:
    """ORANGE and KING of each metric on a report's data (Amigó et al. 2006 §2.2)."""
    return orange_king(report_likeness(report, metrics))


def report_queen(report, metrics: Sequence[str], pool: bool = False) -> Queen:
    """QUEEN of each system on a report's data (Amigó et al. 2006 §3.1)."""
    return queen(report_likeness(report, metrics), pool=pool)
