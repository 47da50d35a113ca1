"""What every reader of human error annotations builds (MQM and ESA files, :mod:`mtdiag.io.annotations`; Pearmut's
annotation logs, :mod:`mtdiag.io.pearmut_log`): the frames of error spans and rated outputs (an error's weight is
:mod:`mtdiag.io.error_weights`'). Both readers take them from here, so neither imports the other.
"""

from __future__ import annotations

import pandas as pd

SPAN_COLUMNS = ["seg", "system", "rater", "side", "start", "end", "severity", "category", "weight"]
RATED_COLUMNS = ["seg", "system", "rater"]


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
