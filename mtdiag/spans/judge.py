"""The learned judge: a quality score per output on the human scale — predicted MQM, and predicted ESA (0–100) —
from the evidence the tool already has (:mod:`mtdiag.spans.judge_features`), with a model fitted on public
human judgements and shipped in the package (``judge_model.json``, made by ``scripts/train_judge.py``;
``docs/spans.md``, "The learned judge").

Two parts, each a small linear model (numbers in the model file, no library at run time):

- **which output of a source is better** — a pairwise ranking model (RankNet's logistic loss over the pairs of
  outputs of one source the humans order, Burges et al. 2005, with a linear scorer): its score ``q`` reads the
  features *relative to the source's other outputs* (each minus the source's mean over systems: what comparing
  systems on one source needs, free of the source's length and difficulty) and the *system's* mean chrF and
  consensus over the set relative to the other systems' (a system's overall quality is evidence about each of its
  outputs);
- **how bad the source's outputs are** — a least-squares model of the source's mean human score on the means of
  its outputs' features (length is most of it: an MQM score sums errors, and a longer text holds more).

Predicted score = the source's level + ``scale`` × (``q`` − the source's mean ``q``): on MQM's scale (≤ 0, fitted
on the MQM dev sets) and on ESA's (0–100, fitted on the ESA dev set). Which output of a source is better is the
part that ranks systems and is free of length; the level is what makes the number read like a human score.

A set without references uses the model fitted on the reference-free features (consensus, system support,
lengths, checks); features a set cannot have count as the source's mean (no evidence either way).
"""

from __future__ import annotations

import json
import warnings
from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd

from mtdiag.spans.judge_features import judge_features

MODEL_FILE = "judge_model.json"
FIGURES_FILE = "judge_figures.json"  # the dev folds' figures the captions quote (benchmarks/judge_vs_human.py)
PRIOR_FEATURES = ("chrf", "consensus")  # a system's mean over the set, relative to the other systems'
# the reference's claims about an output, weighed per source by how far the reference is from outputs that agree
# with each other: ``trust_NAME`` = the relative NAME × the source's ``ref_trust``
TRUSTED_FEATURES = ("chrf", "missing_share", "unsupported_share", "rho_mean")
PROTOCOLS = ("mqm", "esa")
SCALE_BOUNDS = {"mqm": (-np.inf, 0.0), "esa": (0.0, 100.0)}


@lru_cache(maxsize=1)
def stored_model() -> dict:
    """The shipped model (``mtdiag/spans/judge_model.json``), read once."""
    return json.loads(resources.files("mtdiag.spans").joinpath(MODEL_FILE).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def dev_figures() -> dict:
    """The judge's figures on the dev sets held out by language pair.

    Read from ``judge_figures.json``, written by ``benchmarks/judge_vs_human.py --write-figures``: per set, the
    within-segment and system pairwise accuracy of the judge, chrF and the length baseline."""
    return json.loads(resources.files("mtdiag.spans").joinpath(FIGURES_FILE).read_text(encoding="utf-8"))


def _span(values: list[float], places: int) -> str:
    low, high = min(values), max(values)
    return f"{low:.{places}f}" if f"{low:.{places}f}" == f"{high:.{places}f}" else f"{low:.{places}f}–{high:.{places}f}"


def caption(label: str = "Predicted MQM") -> str:
    """One sentence on what a predicted score column is good for and how well it ranks.

    It gives the dev sets' own figures (:func:`dev_figures`), for the dashboard and the report."""
    sets = dev_figures()["sets"]
    judge = [f["judge"] for f in sets.values()]
    chrf = [f["chrf"] for f in sets.values()]
    return (f"{label} is the learned judge's estimate on the human scale (docs/spans.md): good for finding bad "
            f"outputs and for comparing the systems' outputs of one source. On {len(sets)} dev sets, each scored by a "
            f"model fitted without its language pair, it orders {_span([j['system'] for j in judge], 2)} of the "
            f"system pairs as the humans do (chrF {_span([c['system'] for c in chrf], 2)}) and "
            f"{_span([j['within'] for j in judge], 3)} of the pairs of outputs of one source (chrF "
            f"{_span([c['within'] for c in chrf], 3)}); its level is mostly the output's length.")


def variant(report) -> str:
    """Which of the model's variants applies: ``references`` when the set has a reference, else ``no_references``."""
    return "references" if report.evalset.has_references else "no_references"


def model_inputs(features: pd.DataFrame, n_systems: int, n_segments: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``(relative, level)`` inputs of the model's two parts, from the per-output features.

    The features are indexed ``(system, seg)``, systems then segments. Per output each feature minus its source's mean
    over systems (NaN: 0) and ``prior_NAME``, the system's mean of NAME over the set minus the mean over systems; per
    source the mean of each feature over its outputs (``seg_NAME``), broadcast to its outputs."""
    values = features.to_numpy(dtype=float).reshape(n_systems, n_segments, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)  # a feature the set lacks: all NaN, mean NaN
        source_mean = np.nanmean(values, axis=0)
        system_mean = np.nanmean(values, axis=1)
    relative = np.nan_to_num(values - source_mean[None], nan=0.0).reshape(n_systems * n_segments, -1)
    frame = pd.DataFrame(relative, columns=list(features.columns), index=features.index)
    for name in PRIOR_FEATURES:
        column = list(features.columns).index(name)
        prior = system_mean[:, column] - (np.nanmean(system_mean[:, column]) if np.isfinite(
            system_mean[:, column]).any() else 0.0)
        frame[f"prior_{name}"] = np.repeat(np.nan_to_num(prior, nan=0.0), n_segments)
    trust = list(features.columns).index("ref_trust")
    for name in TRUSTED_FEATURES:
        frame[f"trust_{name}"] = frame[name].to_numpy() * np.nan_to_num(
            np.broadcast_to(source_mean[:, trust], (n_systems, n_segments)).reshape(-1), nan=0.0)
    level = pd.DataFrame(np.broadcast_to(source_mean, (n_systems,) + source_mean.shape).reshape(
        n_systems * n_segments, -1), columns=[f"seg_{c}" for c in features.columns], index=features.index)
    return frame, level


def linear(block: dict, frame: pd.DataFrame) -> np.ndarray:
    """A linear block of the model file applied to the columns of ``frame`` it names.

    The block holds ``features``, ``mean``, ``scale``, ``weights`` and ``intercept``; the result is
    ``((x − mean) / scale) · weights + intercept``, a missing value at the mean."""
    x = frame[block["features"]].to_numpy(dtype=float)
    z = (x - np.asarray(block["mean"])) / np.asarray(block["scale"])
    return np.nan_to_num(z, nan=0.0) @ np.asarray(block["weights"]) + float(block.get("intercept", 0.0))


def judged(report, model: dict | None = None) -> pd.DataFrame:
    """The judge's scores of every output of ``report``: relative, predicted MQM and predicted ESA.

    Per (system, seg) of ``report`` (its index): ``relative`` (the ranking score ``q`` minus its source's mean: > 0
    better than the source's other outputs), ``mqm`` (predicted MQM, ≤ 0) and ``esa`` (predicted ESA, 0–100); ``model``
    defaults to the shipped one. Memoised per report for the shipped model."""
    if model is not None:
        return _judged(report, model)
    return report.context.memo(("judge", "scores"), lambda: _judged(report, stored_model()))


def _judged(report, model: dict) -> pd.DataFrame:
    features = judge_features(report)
    k, n = len(report.evalset.systems), report.evalset.n_segments
    relative, level = model_inputs(features, k, n)
    chosen = model["variants"][variant(report)]
    q = linear(chosen["rank"], relative).reshape(k, n)
    q = q - q.mean(axis=0)
    inputs = pd.concat([relative, level], axis=1)
    out = {"relative": q.reshape(-1)}
    for protocol in (p for p in PROTOCOLS if p in chosen):  # a model fitted on one protocol has its scale only
        scale = chosen[protocol]
        low, high = SCALE_BOUNDS[protocol]
        out[protocol] = np.clip(linear(scale["level"], inputs) + scale["relative"] * q.reshape(-1), low, high)
    return pd.DataFrame(out, index=features.index)
