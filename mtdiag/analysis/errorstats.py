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
- :func:`category_significance` — for every category and every pair of systems, the **exact paired permutation
  test** (sign-flip; Fisher 1935, Pitman 1937 — what approximate randomisation, Noreen 1989, estimates by sampling)
  of the mean per-segment error count of that category (averaged over the raters of the output when several rated
  it), over the segments both systems were rated on: :func:`sign_flip_p`. Exact, so deterministic and without the
  ``1/(T+1)`` floor of a sampled test — with 13 systems and 12 categories there are ~900 tests, and Holm's step-down
  correction (:func:`mtdiag.analysis.significance.holm`, over the categories × pairs actually tested: a pair with no error
  of the category in either system is not tested) multiplies the smallest p by that many, which 10,000 sampled
  trials (p ≥ 1e-4) could never survive.

Segments counted as rated: those of ``EvalSet.rated`` (every output a rater rated, errors or not), else the human
scores' (``EvalSet.human``), plus any output with an error; without either, every segment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.analysis.significance import holm

ALPHA = 0.05
LEVELS = ("full", "top")
_MAX_SCALE = 60  # scales tried to make averaged counts whole (1..60 covers any mix of up to 5 raters)
_DIRECT_CONVOLUTION = 4_000_000  # above this many products, convolve by FFT


def has_annotations(evalset) -> bool:
    """True when the data has human error annotations with at least one error of a loaded system."""
    spans = evalset.annotations
    return spans is not None and len(spans) > 0 and bool(spans["system"].isin(evalset.systems).any())


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
    """``system, seg, raters``: every rated output of a loaded system and how many raters rated it.

    See the module docstring for where they come from."""
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
    """The per-segment error count of each category, averaged over the output's raters.

    A frame indexed by ``(system, seg)`` over every rated output, one column per category (sorted)."""
    errors = _errors(evalset, level)
    rated = rated_outputs(evalset).set_index(["system", "seg"])
    categories = sorted(set(errors["category"]), key=str.casefold)
    counts = errors.groupby(["system", "seg", "category"]).size().unstack("category", fill_value=0)
    counts = counts.reindex(index=rated.index, columns=categories, fill_value=0).astype(float)
    counts = counts.div(rated["raters"].clip(lower=1), axis=0)
    return counts, categories


def category_significance(evalset, level: str = "top", alpha: float = ALPHA) -> pd.DataFrame:
    """Per category and pair of systems, whether their error counts differ significantly (Holm-corrected).

    Columns ``segments`` (rated for both), ``mean_a``/``mean_b`` (errors per segment), ``delta`` (a − b), the exact
    paired permutation ``p`` (:func:`sign_flip_p`), ``p_holm`` (Holm over every test) and ``significant`` (``p_holm <
    alpha``); ``attrs``: ``test``, ``tests``, ``correction``, ``alpha``, ``level``."""
    counts, categories = per_segment_counts(evalset, level)
    systems = [s for s in evalset.systems if s in counts.index.get_level_values("system")]
    rows = []
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            ca, cb = counts.loc[a], counts.loc[b]
            common = ca.index.intersection(cb.index)
            if not len(common) or not categories:
                continue
            left, right = ca.loc[common, categories].to_numpy(), cb.loc[common, categories].to_numpy()
            diff = left - right  # (n_seg, C)
            for k, category in enumerate(categories):
                tested = left[:, k].sum() + right[:, k].sum() > 0  # no error of it in either: nothing to test
                rows.append((category, a, b, len(common), float(left[:, k].mean()), float(right[:, k].mean()),
                             float(diff[:, k].mean()), sign_flip_p(diff[:, k]) if tested else np.nan))
    table = pd.DataFrame(rows, columns=["category", "system_a", "system_b", "segments", "mean_a", "mean_b", "delta", "p"])
    table["p_holm"] = holm(table["p"].to_numpy(dtype=float)) if len(table) else np.array([], dtype=float)
    table["significant"] = table["p_holm"] < alpha
    table = table.sort_values(["category", "p_holm"], key=lambda c: c.str.casefold() if c.name == "category" else c,
                              ignore_index=True, na_position="last")
    table.attrs.update({"test": "exact paired permutation (sign-flip) test of the mean per-segment error count",
                        "tests": int(np.isfinite(table["p"]).sum()), "correction": "holm", "alpha": alpha,
                        "level": level})
    return table


def _common_scale(values: np.ndarray) -> int | None:
    """The smallest whole number (up to :data:`_MAX_SCALE`) that makes every value whole — counts averaged over 1, 2
    or 3 raters are multiples of 1/6 — or None."""
    for scale in range(1, _MAX_SCALE + 1):
        scaled = values * scale
        if np.all(np.abs(scaled - np.rint(scaled)) < 1e-6):
            return scale
    return None


def _binomial_half(m: int) -> np.ndarray:
    """The probabilities of 0..m heads in m fair coin tosses (from log binomial coefficients: no overflow)."""
    k = np.arange(1, m + 1)
    log_choose = np.concatenate([[0.0], np.cumsum(np.log(m - k + 1) - np.log(k))])
    return np.exp(log_choose - m * np.log(2.0))


def sign_flip_p(diff: np.ndarray) -> float:
    """Two-sided p-value of the exact paired permutation test of ``mean(diff)`` (Fisher 1935; Pitman 1937).

    Under the null hypothesis each segment's two counts are exchangeable, so each difference keeps or flips its sign
    with probability 1/2 independently, and p is the share of the 2^n sign patterns whose ``|sum|`` reaches the observed
    one. It is what approximate randomisation (Noreen 1989) estimates by sampling, computed exactly: the differences are
    whole numbers once scaled (:func:`_common_scale`), so the distribution of the sum is a convolution of binomials, one
    per distinct difference — no sampling, no seed and no floor of ``1/(T+1)`` on p, which matters once Holm multiplies
    it by hundreds of tests. Differences that no small scale makes whole (never the case for error counts) fall back to
    the normal approximation of the same permutation distribution."""
    diff = np.asarray(diff, dtype=float)
    diff = diff[diff != 0]
    if not len(diff):
        return 1.0
    scale = _common_scale(np.abs(diff))
    if scale is None:
        from math import erfc, sqrt

        z = abs(diff.sum()) / sqrt(float(np.square(diff).sum()))
        return float(erfc(z / sqrt(2.0)))
    sizes = np.rint(np.abs(diff) * scale).astype(np.int64)
    observed = abs(int(np.rint(diff.sum() * scale)))
    total = int(sizes.sum())
    pmf = np.ones(1)  # over S = the summed sizes that keep their sign, 0..total
    for size, m in zip(*np.unique(sizes, return_counts=True)):
        step = np.zeros(int(size) * int(m) + 1)
        step[::int(size)] = _binomial_half(int(m))
        if len(pmf) * len(step) > _DIRECT_CONVOLUTION:
            from scipy.signal import fftconvolve  # imported when a test needs it (0.4-2.6 s off the first page)

            pmf = fftconvolve(pmf, step)
        else:
            pmf = np.convolve(pmf, step)
    pmf = np.clip(pmf, 0.0, None)
    sums = 2 * np.arange(len(pmf)) - total  # the signed sum of a pattern with S kept
    return float(min(1.0, pmf[np.abs(sums) >= observed].sum() / pmf.sum()))
