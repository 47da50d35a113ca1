"""How the judge's model (:mod:`mtdiag.spans.judge`) is fitted on sets with human scores — shared by
``scripts/train_judge.py`` (the shipped model) and ``benchmarks/judge_vs_human.py`` (its leave-one-out folds).

- :func:`training_rows`: one set's model inputs with its human scores (mean over raters) and protocol;
- :func:`fit_ranking`: the pairwise ranking model — the logistic loss of RankNet (Burges et al. 2005) over every
  pair of rated outputs of one source the humans order (ties left out), a linear scorer on standardised inputs, an
  L2 penalty :data:`RIDGE`; minimised by L-BFGS (deterministic: the same rows give the same bytes);
- :func:`fit_level`: the source's level, least squares of the mean human score of a source's rated outputs on the
  means of its outputs' features, and the scale of the relative score (least squares through 0 of each output's
  human score minus its source's mean on ``q`` minus the source's mean ``q``);
- :func:`fit_model`: both variants (with and without references) and both protocols' scales, as the model file
  holds them. Numbers are rounded to :data:`DIGITS` significant digits, so that the file does not carry the last
  bits of the floating-point arithmetic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from mtdiag.spans.judge import PRIOR_FEATURES, TRUSTED_FEATURES, PROTOCOLS, linear, model_inputs
from mtdiag.spans.judge_features import FEATURES, judge_features

RIDGE = 10.0  # L2 penalty of the ranking model's weights (standardised inputs), summed loss over pairs
LEVEL_RIDGE = 1.0
DIGITS = 6
# the features that need no reference: the reference-free variant reads these alone
FREE_FEATURES = ("consensus", "sigma_mean", "log_chars", "len_vs_peers", "len_vs_source",
                 "checks_fired", "critical_fired")
# the lengths relative to the source's other outputs differ by a constant of the source: one of them ranks
SEGMENT_ONLY = ("ref_consensus", "ref_trust", "len_vs_ref", "len_vs_peers", "len_vs_source")
RANK_INPUTS = {"references": tuple(f for f in FEATURES if f not in SEGMENT_ONLY) + ("prior_chrf",)
               + tuple(f"trust_{t}" for t in TRUSTED_FEATURES),
               "no_references": tuple(f for f in FREE_FEATURES if f not in SEGMENT_ONLY) + ("prior_consensus",)}
LEVEL_INPUTS = {"references": ("seg_log_chars", "seg_len_vs_source", "seg_len_vs_ref", "seg_chrf", "seg_consensus", "seg_missing_share",
                               "seg_span_penalty_per_word", "seg_unsupported_share", "seg_ref_trust"),
                "no_references": ("seg_log_chars", "seg_len_vs_source", "seg_consensus", "seg_sigma_mean")}


def _round(values) -> list[float]:
    return [float(f"{float(v):.{DIGITS}g}") for v in np.atleast_1d(values)]


def training_rows(report, protocol: str, name: str) -> pd.DataFrame:
    """The training rows of ``report``: the model inputs of every rated (system, seg), with its human score.

    The model inputs are :func:`mtdiag.spans.judge.model_inputs`'s; with them ``human`` (mean over raters, higher =
    better), ``protocol``, ``set`` (``name``), ``system`` and ``seg``."""
    evalset = report.evalset
    relative, level = model_inputs(judge_features(report), len(evalset.systems), evalset.n_segments)
    rows = pd.concat([relative, level], axis=1)
    human = evalset.human[evalset.human["system"].isin(evalset.systems)].groupby(["system", "seg"])["score"].mean()
    rows = rows.join(human.rename("human"), how="inner").reset_index()
    return rows.assign(protocol=protocol, set=name)


def _pairs(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (a, b) of rows of one source (``set``, ``seg``) the humans order, and the sign of a − b."""
    keys = rows["set"].astype(str) + "\x00" + rows["seg"].astype(str)
    order = np.argsort(keys.to_numpy(), kind="stable")
    sorted_keys = keys.to_numpy()[order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]]))
    sizes = np.diff(np.concatenate([starts, [len(order)]]))
    firsts, seconds = [], []
    for size in np.unique(sizes):
        i, j = np.triu_indices(int(size), 1)
        block = starts[sizes == size][:, None]
        firsts.append((block + i).reshape(-1))
        seconds.append((block + j).reshape(-1))
    a = order[np.concatenate(firsts)] if firsts else np.zeros(0, np.int64)
    b = order[np.concatenate(seconds)] if seconds else np.zeros(0, np.int64)
    human = rows["human"].to_numpy(dtype=float)
    sign = np.sign(human[a] - human[b])
    keep = sign != 0
    return a[keep], b[keep], sign[keep]


def fit_ranking(rows: pd.DataFrame, inputs: tuple[str, ...], ridge: float = RIDGE) -> dict:
    """The ranking block (:func:`mtdiag.spans.judge.linear`'s shape) fitted on ``rows``' pairs."""
    x = rows[list(inputs)].to_numpy(dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    z = (x - mean) / scale
    a, b, sign = _pairs(rows)
    diff = (z[a] - z[b]) * sign[:, None]

    def loss(w):
        margin = diff @ w
        grad = -(diff * (1.0 / (1.0 + np.exp(margin)))[:, None]).sum(axis=0) + 2 * ridge * w
        return np.logaddexp(0.0, -margin).sum() + ridge * w @ w, grad

    weights = minimize(loss, np.zeros(len(inputs)), jac=True, method="L-BFGS-B").x
    return {"features": list(inputs), "mean": _round(mean), "scale": _round(scale), "weights": _round(weights),
            "intercept": 0.0}


def _least_squares(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    gram = x.T @ x + ridge * np.eye(x.shape[1])
    gram[0, 0] -= ridge  # the intercept is not penalised
    return np.linalg.solve(gram, x.T @ y)


def fit_level(rows: pd.DataFrame, rank: dict, inputs: tuple[str, ...]) -> dict:
    """One protocol's scale: the source level's block and ``relative``, the scale of the centred ranking score."""
    q = linear(rank, rows)
    keys = [rows["set"], rows["seg"]]
    q = q - pd.Series(q, index=rows.index).groupby(keys).transform("mean").to_numpy()
    human = rows["human"].to_numpy(dtype=float)
    human_relative = human - rows.groupby(keys)["human"].transform("mean").to_numpy()
    relative = float(q @ human_relative / (q @ q)) if q @ q > 0 else 0.0
    sources = rows.groupby(keys)[[*inputs, "human"]].mean()
    x = np.nan_to_num(sources[list(inputs)].to_numpy(dtype=float))
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    design = np.column_stack([np.ones(len(x)), (x - mean) / scale])
    coef = _least_squares(design, sources["human"].to_numpy(dtype=float), LEVEL_RIDGE)
    return {"level": {"features": list(inputs), "mean": _round(mean), "scale": _round(scale),
                      "weights": _round(coef[1:]), "intercept": _round(coef[0])[0]},
            "relative": _round(relative)[0]}


def fit_model(rows: pd.DataFrame) -> dict:
    """The model file's content, fitted on the training rows of every set.

    The rows are :func:`training_rows`'s, concatenated. Per variant the ranking block fitted on every set, and per
    protocol the scale fitted on that protocol's sets (a protocol without sets has none: its scale cannot be fitted)."""
    variants = {}
    for name, inputs in RANK_INPUTS.items():
        rank = fit_ranking(rows, inputs)
        scales = {}
        for protocol in PROTOCOLS:
            chosen = rows[rows["protocol"] == protocol]
            if len(chosen):
                scales[protocol] = fit_level(chosen, rank, LEVEL_INPUTS[name])
        variants[name] = {"rank": rank, **scales}
    return {"format": 1, "variants": variants,
            "trained_on": sorted(f"{s} ({p})" for s, p in set(zip(rows["set"], rows["protocol"])))}
