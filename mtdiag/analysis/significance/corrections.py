"""Corrections for many tests at once: Holm's step-down and Benjamini-Hochberg's step-up adjusted p-values."""

from __future__ import annotations

import numpy as np

CORRECTIONS = {"holm": "Holm (1979) step-down: family-wise error rate",
               "bh": "Benjamini-Hochberg (1995) step-up: false discovery rate"}
"""The corrections for many tests at once (the slice finder, the error statistics per category)."""


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979).

    The i-th smallest of m becomes ``max over j <= i of min(1, (m - j + 1) p_(j))``. NaN (no test) stays NaN and is not
    counted in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    m = len(tested)
    if m:
        order = tested[np.argsort(p[tested], kind="stable")]
        scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
        out[order] = np.maximum.accumulate(scaled)
    return out


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg step-up adjusted p-values (Benjamini & Hochberg 1995).

    The i-th smallest of m becomes ``min over j >= i of min(1, m p_(j) / j)``. NaN (no test) stays NaN and is not
    counted in m."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    m = len(tested)
    if m:
        order = tested[np.argsort(p[tested], kind="stable")]
        scaled = np.minimum(1.0, p[order] * m / np.arange(1, m + 1))
        out[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return out


def corrected(p_values: np.ndarray, correction: str) -> np.ndarray:
    """``p_values`` adjusted by ``correction`` (a key of :data:`CORRECTIONS`)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose {', '.join(CORRECTIONS)}")
    return holm(p_values) if correction == "holm" else benjamini_hochberg(p_values)
