"""What every reader of human error annotations builds (MQM and ESA files, :mod:`mtdiag.io.annotations`; Pearmut's
annotation logs, :mod:`mtdiag.io.pearmut`): the MQM weight of an error and the frames of error spans and rated
outputs. Both readers take them from here, so neither imports the other.
"""

from __future__ import annotations

import pandas as pd

MQM_WEIGHTS = {"major": 5.0, "minor": 1.0, "neutral": 0.0, "no-error": 0.0, "critical": 25.0}
NON_TRANSLATION_WEIGHT = 25.0
PUNCTUATION_MINOR_WEIGHT = 0.1
SPAN_COLUMNS = ["seg", "system", "rater", "side", "start", "end", "severity", "category", "weight"]
RATED_COLUMNS = ["seg", "system", "rater"]


def mqm_weight(category: str, severity: str) -> float:
    """The MQM weight of one error (Freitag et al. 2021, Table 2)."""
    cat, sev = category.strip().lower(), severity.strip().lower()
    if cat.startswith("non-translation"):
        return NON_TRANSLATION_WEIGHT
    if cat in ("no-error", "no error") or sev in ("no-error", "neutral"):
        return 0.0
    if sev == "minor" and cat.replace(" ", "") in ("fluency/punctuation", "fluency-punctuation"):
        return PUNCTUATION_MINOR_WEIGHT
    if sev not in MQM_WEIGHTS:
        raise ValueError(f"severity {severity!r}: expected Major, Minor, Neutral or No-error")
    return MQM_WEIGHTS[sev]


def empty_spans() -> pd.DataFrame:
    """No error span: the columns :data:`SPAN_COLUMNS` with their types."""
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in ("seg", "start", "end") else "float64" if c == "weight"
                                      else object) for c in SPAN_COLUMNS})


def rated_frame(keys) -> pd.DataFrame:
    """The rated outputs ``seg, system, rater`` of ``(system, seg, rater)`` keys (each once, in file order)."""
    rows = [(seg, system, rater) for system, seg, rater in dict.fromkeys(keys)]
    return pd.DataFrame(rows, columns=RATED_COLUMNS).astype({"seg": "int64", "system": object, "rater": object})


def spans_frame(rows: list[tuple]) -> pd.DataFrame:
    """Error spans (:data:`SPAN_COLUMNS`) of ``rows``, one tuple each."""
    if not rows:
        return empty_spans()
    return pd.DataFrame(rows, columns=SPAN_COLUMNS).astype({"seg": "int64", "start": "int64", "end": "int64",
                                                            "weight": "float64"})
