"""What every reader of human error annotations builds (MQM and ESA files, :mod:`mtdiag.io.annotations`; Pearmut's
annotation logs, :mod:`mtdiag.io.pearmut_log`): the error rows as read (:data:`ERROR_COLUMNS`, weighed later by the
scheme an analysis chooses, :func:`mtdiag.io.error_weights.weighed`), the rated outputs, and the frame of error spans
the weighing keeps (:data:`SPAN_COLUMNS`). Both readers take them from here, so neither imports the other.

An error row is one row of an error file as written: where its span is, its severity and category, whether it
gives its rater's segment score (``scored``: MQM, where the score is minus the weighted errors; ESA's annotators
give a score of their own), and the ``file`` and ``line`` it was read from (a scheme that has no weight for it says
so naming them). A row with an empty severity is a rating without an error: an MQM output a Pearmut annotator left
clean (it weighs 0 under every scheme; an MQM table marks a clean output with a ``No-error`` row instead).
"""

from __future__ import annotations

import pandas as pd

SPAN_COLUMNS = ["seg", "system", "rater", "side", "start", "end", "severity", "category", "weight"]
RATED_COLUMNS = ["seg", "system", "rater"]
ERROR_COLUMNS = ["seg", "system", "rater", "side", "start", "end", "severity", "category", "scored", "file", "line"]
_INTEGERS = ("seg", "start", "end", "line")


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


def error_rows_frame(rows: list[tuple] | dict[str, list]) -> pd.DataFrame:
    """Error rows (:data:`ERROR_COLUMNS`) of ``rows``: one tuple each, or a list per column.

    ``line`` is -1 where a row has none."""
    if isinstance(rows, dict):
        return pd.DataFrame(rows, columns=ERROR_COLUMNS).astype({**{c: "int64" for c in _INTEGERS}, "scored": bool})
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c in _INTEGERS else bool if c == "scored" else object)
                             for c in ERROR_COLUMNS})
    return pd.DataFrame(rows, columns=ERROR_COLUMNS).astype({**{c: "int64" for c in _INTEGERS}, "scored": bool})
