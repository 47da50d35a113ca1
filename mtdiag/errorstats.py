"""Statistics of human error annotations (MQM/ESA, ``EvalSet.annotations``): how many errors of each category each
system has, per rater, and whether two systems differ significantly in a category.

- :func:`category_counts` — per system × category: ``errors``, ``segments`` (the outputs of the system that were
  rated), ``per_100`` (errors per 100 rated segments) and one count column per severity (``critical``, ``major``,
  ``minor`` …). Every rater's errors count (a segment rated by two raters counts their errors together). Only
  errors count: No-error and neutral rows carry no error (:mod:`mtdiag.io.annotations`). ``level="top"`` groups by
  the top-level category (``Accuracy/Mistranslation`` → ``Accuracy``).
- :func:`rater_table` — per rater × system: ``segments`` rated, ``errors``, ``per_100`` and ``mqm``, the mean MQM
  score of the rater's rated outputs (minus the sum of each output's error weights; an output rated clean scores
  0). The rated outputs come from ``EvalSet.rated`` (saved with a run); a run saved before they were kept has none,
  and then ``segments`` counts only the outputs with an error and ``mqm`` is left blank (``attrs["note"]``).
- :func:`category_significance` — for every category and every pair of systems, a paired **approximate
  randomisation** test (Noreen 1989; Riezler & Maxwell 2005; the draw of :func:`mtdiag.compare.randomization_draws`
  and the p-value of :func:`mtdiag.compare.p_value`, ``(#{|shuffled| >= observed} + 1) / (T + 1)``) over the
  segments both systems were rated on, of the per-segment error count of that category (averaged over the raters of
  the output when several rated it): in each of ``n`` trials every segment's two counts are swapped with
  probability 1/2; the statistic is the mean difference. Seed fixed (:data:`mtdiag.compare.DEFAULT_SEED`). The
  p-values are corrected for the number of tests (categories × pairs actually tested: pairs with no error of the
  category in either system are not tested) with Holm's step-down method (:func:`mtdiag.slices.finder.holm`).
  With ``T`` trials no p-value is below ``1/(T+1)``, so after Holm no test of ``m`` can be significant at ``alpha``
  unless ``m/(T+1) < alpha``: ``attrs`` give ``tests`` and ``min_p`` so the page can say so.

Segments counted as rated: those of ``EvalSet.rated`` (every output a rater rated, errors or not), else the human
scores' (``EvalSet.human``), plus any output with an error; without either, every segment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.compare import DEFAULT_SEED, p_value, randomization_draws

DEFAULT_TRIALS = 10_000  # approximate randomisation trials, sacrebleu's --paired-ar-n
ALPHA = 0.05
_BLOCK = 1_000  # trials drawn and multiplied at once (bounded memory on long test sets)
_CACHED_VALUES = 20_000_000  # sign values kept for the next pair of systems (160 MB at most)
LEVELS = ("full", "top")


def has_annotations(evalset) -> bool:
    """True when the data has human error annotations with at least one error."""
    return evalset.annotations is not None and len(evalset.annotations) > 0


def _category(spans: pd.DataFrame, level: str) -> pd.Series:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    category = spans["category"].astype(str).str.strip()
    if level == "top":
        category = category.str.split("/").str[0].str.strip()
    return category.replace("", "unspecified")


def _errors(evalset, level: str) -> pd.DataFrame:
    """The error rows with ``category`` at ``level`` and ``severity`` lower-cased, of loaded systems only."""
    spans = evalset.annotations
    spans = spans[spans["system"].isin(evalset.systems)]
    return spans.assign(category=_category(spans, level), severity=spans["severity"].astype(str).str.strip().str.lower(),
                        rater=spans["rater"].astype(str))


def rated_outputs(evalset) -> pd.DataFrame:
    """``system, seg, raters``: every rated output of a loaded system and how many raters rated it (see the module
    docstring for where they come from)."""
    systems = evalset.systems
    if evalset.rated is not None and len(evalset.rated):
        rated = evalset.rated[evalset.rated["system"].isin(systems)].drop_duplicates()
        frame = rated.groupby(["system", "seg"], sort=False).size().rename("raters").reset_index()
    elif evalset.human is not None and len(evalset.human):
        frame = evalset.human.loc[evalset.human["system"].isin(systems), ["system", "seg"]].drop_duplicates()
        frame = frame.assign(raters=1)
    else:
        frame = pd.DataFrame({"system": np.repeat(systems, evalset.n_segments),
                              "seg": np.tile(np.arange(evalset.n_segments), len(systems)), "raters": 1})
    if evalset.annotations is not None and len(evalset.annotations):
        spans = evalset.annotations[evalset.annotations["system"].isin(systems)]
        marked = spans[["system", "seg"]].drop_duplicates().assign(raters=1)
        frame = pd.concat([frame, marked], ignore_index=True).drop_duplicates(["system", "seg"], keep="first")
    return frame.astype({"seg": "int64", "raters": "int64"}).reset_index(drop=True)


def category_counts(evalset, level: str = "full") -> pd.DataFrame:
    """Per system × category: ``errors``, ``segments``, ``per_100`` and a count per severity (module docstring)."""
    errors = _errors(evalset, level)
    segments = rated_outputs(evalset).groupby("system").size()
    severities = [s for s in ("critical", "major", "minor") if s in set(errors["severity"])]
    severities += sorted(set(errors["severity"]) - set(severities))
    counts = errors.groupby(["system", "category", "severity"]).size().unstack("severity", fill_value=0)
    counts = counts.reindex(columns=severities, fill_value=0)
    table = counts.assign(errors=counts.sum(axis=1)).reset_index()
    table["segments"] = table["system"].map(segments).fillna(0).astype("int64")
    with np.errstate(invalid="ignore", divide="ignore"):
        table["per_100"] = 100.0 * table["errors"] / table["segments"].replace(0, np.nan)
    order = {s: i for i, s in enumerate(evalset.systems)}
    table = table.sort_values(["category", "system"], key=lambda c: c.map(order) if c.name == "system" else c.str.casefold(),
                              ignore_index=True)
    table.columns.name = None
    return table[["system", "category", "errors", "segments", "per_100", *severities]]


def rater_table(evalset) -> pd.DataFrame:
    """Per rater × system: ``segments``, ``errors``, ``per_100`` and the mean MQM score ``mqm`` (module docstring)."""
    errors = _errors(evalset, "full")
    penalty = errors.groupby(["rater", "system", "seg"])["weight"].sum()
    counts = errors.groupby(["rater", "system"]).size().rename("errors")
    note = ""
    if evalset.rated is not None and len(evalset.rated):
        rated = evalset.rated[evalset.rated["system"].isin(evalset.systems)].drop_duplicates()
        rated = rated.assign(rater=rated["rater"].astype(str))
        keys = pd.MultiIndex.from_frame(rated[["rater", "system", "seg"]])
        scores = -penalty.reindex(keys, fill_value=0.0)
        table = pd.DataFrame({"segments": scores.groupby(level=["rater", "system"]).size(),
                              "mqm": scores.groupby(level=["rater", "system"]).mean()})
    else:
        note = ("the rated outputs are not known (a run saved before they were kept): segments counts the outputs "
                "with an error, and the mean MQM score is left blank")
        table = pd.DataFrame({"segments": penalty.groupby(level=["rater", "system"]).size(), "mqm": np.nan})
    table = table.join(counts, how="outer").fillna({"errors": 0, "segments": 0})
    table = table.astype({"errors": "int64", "segments": "int64"}).reset_index()
    with np.errstate(invalid="ignore", divide="ignore"):
        table["per_100"] = 100.0 * table["errors"] / table["segments"].replace(0, np.nan)
    table = table[["rater", "system", "segments", "errors", "per_100", "mqm"]]
    table.attrs["note"] = note
    return table.sort_values(["rater", "system"], ignore_index=True)


def per_segment_counts(evalset, level: str = "full") -> tuple[pd.DataFrame, list[str]]:
    """The per-segment error count of each category (averaged over the output's raters): a frame indexed by
    ``(system, seg)`` over every rated output, one column per category (sorted)."""
    errors = _errors(evalset, level)
    rated = rated_outputs(evalset).set_index(["system", "seg"])
    categories = sorted(set(errors["category"]), key=str.casefold)
    counts = errors.groupby(["system", "seg", "category"]).size().unstack("category", fill_value=0)
    counts = counts.reindex(index=rated.index, columns=categories, fill_value=0).astype(float)
    counts = counts.div(rated["raters"].clip(lower=1), axis=0)
    return counts, categories


def category_significance(evalset, level: str = "top", n: int = DEFAULT_TRIALS, seed: int | None = DEFAULT_SEED,
                          alpha: float = ALPHA) -> pd.DataFrame:
    """Per category and pair of systems: ``segments`` (rated for both), ``mean_a``/``mean_b`` (errors per segment),
    ``delta`` (a − b), the approximate-randomisation ``p``, ``p_holm`` (Holm over every test) and ``significant``
    (``p_holm < alpha``); ``attrs``: ``test``, ``trials``, ``seed``, ``tests``, ``min_p``, ``correction``."""
    if n < 1:
        raise ValueError("the number of trials must be at least 1")
    counts, categories = per_segment_counts(evalset, level)
    systems = [s for s in evalset.systems if s in counts.index.get_level_values("system")]
    rows, cache = [], {}
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            ca, cb = counts.loc[a], counts.loc[b]
            common = ca.index.intersection(cb.index)
            if not len(common) or not categories:
                continue
            diff = ca.loc[common, categories].to_numpy() - cb.loc[common, categories].to_numpy()  # (n_seg, C)
            tested = (ca.loc[common, categories].to_numpy().sum(axis=0) + cb.loc[common, categories].to_numpy().sum(axis=0)) > 0
            p = _randomization_p(diff, n, seed, cache)
            for k, category in enumerate(categories):
                rows.append((category, a, b, len(common), float(ca.loc[common, category].mean()),
                             float(cb.loc[common, category].mean()), float(diff[:, k].mean()),
                             float(p[k]) if tested[k] else np.nan))
    table = pd.DataFrame(rows, columns=["category", "system_a", "system_b", "segments", "mean_a", "mean_b", "delta", "p"])
    from mtdiag.slices.finder import holm

    table["p_holm"] = holm(table["p"].to_numpy(dtype=float)) if len(table) else np.array([], dtype=float)
    table["significant"] = table["p_holm"] < alpha
    table = table.sort_values(["category", "p_holm"], key=lambda c: c.str.casefold() if c.name == "category" else c,
                              ignore_index=True, na_position="last")
    table.attrs.update({"test": "paired approximate randomisation (mean per-segment error count)", "trials": n,
                        "seed": seed, "tests": int(np.isfinite(table["p"]).sum()), "min_p": 1.0 / (n + 1),
                        "correction": "holm", "alpha": alpha, "level": level})
    return table


def _randomization_p(diff: np.ndarray, n: int, seed: int | None, cache: dict | None = None) -> np.ndarray:
    """Two-sided approximate-randomisation p-values of the mean of ``diff`` (segments × categories): in each of
    ``n`` trials each segment's difference changes sign with probability 1/2 (its two counts swapped); trials are
    drawn in blocks (bounded memory), each block by :func:`mtdiag.compare.randomization_draws` with the next seed.
    ``cache`` keeps the sign blocks of one segment count for the next pair (the same draw for every pair)."""
    n_segments = diff.shape[0]
    observed = np.abs(diff.sum(axis=0)) / n_segments
    blocks = None if cache is None else cache.get(n_segments)
    if blocks is None:
        blocks, done, block_seed = [], 0, seed
        while done < n:
            size = min(_BLOCK, n - done)
            mask, _ = randomization_draws(n_segments, size, block_seed, n_confidence=0)
            blocks.append(np.where(mask, -1.0, 1.0))
            done += size
            block_seed = None if seed is None else block_seed + 1
        if cache is not None and n * n_segments <= _CACHED_VALUES:
            cache[n_segments] = blocks
    samples = [np.abs(signs @ diff) / n_segments for signs in blocks]  # (block, C) each
    # a trial as extreme as the data counts (>=); the tolerance keeps the float sums' last bit from deciding
    return p_value(np.concatenate(samples).T, observed - 1e-9 * np.maximum(observed, 1.0))
