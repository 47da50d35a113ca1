"""Segment ids are the set's in every table: a view counts segments by position, a table names them by their id
in the set (in a slice, their id in the whole set), and a page reads a position back from an id."""

from __future__ import annotations

import numpy as np
import pandas as pd

def with_set_ids(report, frame: pd.DataFrame | None, table: str = "a table") -> pd.DataFrame | None:
    """``frame`` as people read it: every segment named by its id in the set.

    The id is :attr:`mtdiag.core.evalset.EvalSet.seg_ids`: the line of the files; in a slice, the segment's id in the
    whole set — never its place in the slice.

    The one rule: a view's builders name a segment by its 0-based position in the report alone — ``seg`` (a column
    or an index level), ``segments`` (a list of positions in each cell) and ``missed_in`` (positions joined by
    ``", "``) — and this function alone writes ``seg_id``: ``seg`` becomes the set's ids under the name ``seg_id``
    in its place, the others the set's ids under their own names. A builder's frame that already has a ``seg_id``
    (column or index level) is a ``ValueError`` naming ``table`` and the rule, on every report: filled from
    ``EvalSet.seg_ids`` it is right by chance on a whole set and another segment's id on a slice, so it is refused
    before it can be. Every table of every view passes here (:meth:`Table.make`), so the page, ``mtdiag view``,
    the report and the downloads name a segment alike; :func:`positions` turns an id a page reads back into its
    position."""
    if frame is None:
        return None
    columns = set(frame.columns)
    if "seg_id" in columns or "seg_id" in frame.index.names:
        raise ValueError(f"{table}: a builder names segments by their 0-based position, as seg (a column or an index "
                         f"level), never as seg_id — the set's ids are added for you (mtdiag.views.with_set_ids)")
    if not columns & {"seg", "segments", "missed_in"} and "seg" not in frame.index.names:
        return frame
    ids = report.evalset.seg_ids
    out = frame.copy()
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

