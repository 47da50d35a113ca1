"""Segment ids are the set's in every table: a view counts segments by position, a table names them by their id
in the set (in a slice, their id in the whole set), and a page reads a position back from an id."""

from __future__ import annotations

import numpy as np
import pandas as pd

def with_set_ids(report, frame: pd.DataFrame | None, table: str = "a table") -> pd.DataFrame | None:
    """``frame`` as people read it: every segment named by its id in the set.

    The id is :attr:`mtdiag.core.evalset.EvalSet.seg_ids`: the line of the files; in a slice, the segment's id in the
    whole set — never its place in the slice.

    A view's builders name segments by position in the report: ``seg`` (0-based, a column or an index level),
    ``seg_id`` (1-based), ``segments`` (a list of 0-based positions in each cell) and ``missed_in`` (0-based
    positions joined by ``", "``). Each becomes the set's ids, ``seg`` under the name ``seg_id``. Every table of
    every view passes here (:meth:`Table.make`), so the page, ``mtdiag view``, the report and the downloads name a
    segment alike; :func:`positions` turns an id a page reads back into its position. A ``seg_id`` that is no
    position of the report (an id of the set filled in by the builder, which differs from the position in a slice)
    is a ``ValueError`` naming ``table`` and the rule, never an ``IndexError`` or another segment's id."""
    if frame is None:
        return None
    ids = report.evalset.seg_ids
    columns = set(frame.columns)
    if not columns & {"seg", "seg_id", "segments", "missed_in"} and "seg" not in frame.index.names:
        return frame
    out = frame.copy()
    if "seg_id" in columns:
        out["seg_id"] = ids[_positions_from_one(out["seg_id"], len(ids), table)]
    if "seg" in columns:
        out["seg"] = ids[out["seg"].to_numpy(dtype=np.int64)]
        out = out.rename(columns={"seg": "seg_id"})
    if "segments" in columns and out["segments"].map(lambda v: isinstance(v, (list, tuple, np.ndarray))).all():
        out["segments"] = out["segments"].map(lambda segs: [int(ids[int(s)]) for s in segs])
    if "missed_in" in columns:
        out["missed_in"] = out["missed_in"].map(
            lambda v: ", ".join(str(ids[int(s)]) for s in str(v).split(", ") if s.strip()) if v else v)
    if "seg" in out.index.names:
        if out.index.nlevels == 1:
            out.index = pd.Index(ids[out.index.to_numpy(dtype=np.int64)], name="seg_id")
        else:
            level = out.index.names.index("seg")
            out.index = out.index.set_levels(ids[out.index.levels[level].to_numpy(dtype=np.int64)], level=level)
            out = out.rename_axis(index={"seg": "seg_id"})
    return out


def positions(report, seg_ids) -> np.ndarray:
    """The 0-based positions in ``report`` of segments named by their ids in the set (:func:`with_set_ids`).

    ``ValueError`` for an id the report does not have."""
    wanted = np.asarray(seg_ids, dtype=np.int64).reshape(-1)
    found = pd.Index(report.evalset.seg_ids).get_indexer(wanted)
    if (found < 0).any():
        raise ValueError(f"segment {int(wanted[found < 0][0])} is not in this data")
    return found


def position(report, seg_id: int) -> int:
    """The 0-based position of the segment with id ``seg_id`` (:func:`positions`)."""
    return int(positions(report, [seg_id])[0])


def _positions_from_one(seg_id: pd.Series, n: int, table: str) -> np.ndarray:
    """The 0-based positions of a builder's ``seg_id`` column (positions from 1), checked to be positions of the
    report's ``n`` segments."""
    values = seg_id.to_numpy(dtype=np.int64)
    if len(values) and (values.min() < 1 or values.max() > n):
        bad = int(values[(values < 1) | (values > n)][0])
        raise ValueError(f"{table}: seg_id {bad} is not a position of the report's {n:,} segments — a view names "
                         f"segments by position (seg from 0, seg_id from 1) and every table gets the set's ids from "
                         f"them (mtdiag.views.with_set_ids): never fill seg_id from EvalSet.seg_ids")
    return values - 1
