"""Tags: names a user gives to segments or to (system, segment) pairs, to find them again (``docs/slices.md``).

A tag set is a frame :data:`TAG_COLUMNS` — ``seg`` (0-based, in the whole test set), ``system`` (the tagged
output's system, or ``""`` when the whole segment is tagged) and ``tag`` — one row per (segment, system, tag). A
tag set is an input of its own, given to what reads it — the slice expressions (:mod:`mtdiag.slices`), the slice
finder, the tables' ``tags`` column, the HTML report, a saved run — never a part of the data or of a report. A tag is 1 to :data:`MAX_TAG_CHARS` characters of text without control characters,
compared exactly (case kept) like every text field of a slice expression.

Where tags are read:

- slice expressions: ``tag`` holds the tags of the segment (its own and those of any of its outputs), ``tag[SYSTEM]``
  those of one output (its own and the segment's); a condition holds when it holds for any of them
  (:mod:`mtdiag.slices.catalogue`), so ``tag == "check"`` keeps the tagged segments and ``tag != "check"`` the others
  — on a slice too: the segments are found by their ids in the whole set (:func:`tag_values`);
- tables and exports: :func:`tag_labels` gives each row of a table with ``seg_id`` (1-based) and, optionally,
  ``system`` the tags that apply to it, joined by ``", "``;
- the workspace keeps them with a saved run, each addition or removal one transaction
  (:meth:`mtdiag.scoring.workspace.Workspace.add_tags`), the HTML report lists them (:func:`tag_summary`).

The tags are not part of the data's identity (:meth:`mtdiag.core.evalset.EvalSet.content_hash`): tagging never
recomputes a score; what reads them is keyed by their digest besides.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import numpy as np
import pandas as pd

TAG_COLUMNS = ["seg", "system", "tag"]
MAX_TAG_CHARS = 40
MAX_TAGS = 100_000  # rows of one tag set: tagging is by hand, this bounds what a hostile session can store
SEPARATOR = ", "


def empty_tags() -> pd.DataFrame:
    """A tag set without tags."""
    return pd.DataFrame({"seg": pd.Series(dtype="int64"), "system": pd.Series(dtype=object),
                         "tag": pd.Series(dtype=object)})


def tag_name(text: str) -> str:
    """``text`` as a tag (spaces around it removed); :class:`ValueError` saying why when it cannot be one."""
    name = str(text).strip()
    if not name:
        raise ValueError("a tag needs a name")
    if len(name) > MAX_TAG_CHARS:
        raise ValueError(f"a tag has at most {MAX_TAG_CHARS} characters (this one has {len(name)})")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValueError("a tag cannot hold control or invisible format characters")
    return name


def pair_rows(segs: Iterable[int], systems: Iterable[str] | None, tag: str, *, checked: bool = True) -> pd.DataFrame:
    """The rows that put ``tag`` on each (segment, system) given, each pair once.

    Segments are 0-based; ``systems`` None or ``""`` entries: the whole segment. ``checked``: the name must be a tag
    (:func:`tag_name`), else it is only stripped (to remove a tag of any name)."""
    tag = tag_name(tag) if checked else str(tag).strip()
    segs = np.asarray(list(segs), dtype=np.int64)
    systems = [""] * len(segs) if systems is None else [str(s) for s in systems]
    if len(systems) != len(segs):
        raise ValueError(f"{len(segs)} segments but {len(systems)} systems")
    rows = pd.DataFrame({"seg": segs, "system": pd.Series(systems, dtype=object), "tag": tag})
    return rows.drop_duplicates(TAG_COLUMNS, ignore_index=True)


def too_many(n_tags: int) -> str | None:
    """Why a tag set of ``n_tags`` rows cannot be kept (over :data:`MAX_TAGS`), else None."""
    return f"at most {MAX_TAGS:,} tags can be kept with a test set" if n_tags > MAX_TAGS else None


def add_tag(tags: pd.DataFrame | None, segs: Iterable[int], systems: Iterable[str] | None, tag: str) -> pd.DataFrame:
    """``tags`` with ``tag`` on each (segment, system) given (as :func:`pair_rows` names them).

    A pair already tagged so stays once. :class:`ValueError` for a bad name or when the set would exceed
    :data:`MAX_TAGS` rows."""
    merged = pd.concat([empty_tags() if tags is None else tags, pair_rows(segs, systems, tag)], ignore_index=True)
    merged = merged.drop_duplicates(TAG_COLUMNS, ignore_index=True)
    if too_many(len(merged)):
        raise ValueError(too_many(len(merged)))
    return merged.sort_values(["seg", "system", "tag"], ignore_index=True, kind="stable")


def remove_tag(tags: pd.DataFrame | None, segs: Iterable[int], systems: Iterable[str] | None, tag: str) -> pd.DataFrame:
    """``tags`` without ``tag`` on the (segment, system) pairs given (as :func:`pair_rows` names them)."""
    if tags is None or not len(tags):
        return empty_tags()
    gone = pair_rows(segs, systems, tag, checked=False)
    keys = pd.MultiIndex.from_frame(tags[TAG_COLUMNS])
    return tags[~keys.isin(pd.MultiIndex.from_frame(gone[TAG_COLUMNS]))].reset_index(drop=True)


def tag_names(tags: pd.DataFrame | None) -> list[str]:
    """Every tag used, sorted."""
    return [] if tags is None or not len(tags) else sorted(set(tags["tag"].astype(str)))


def tag_values(tags: pd.DataFrame | None, seg_ids, system: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The tags of each segment of a set as ``(values, owner)``: one flat array of text and the position of each.

    The set's segments have the 1-based ids ``seg_ids`` (ascending: the whole set's, or a slice's,
    :attr:`mtdiag.core.evalset.EvalSet.seg_ids`). Every tag of a segment comes once, and ``""`` once for each untagged
    segment, so a slice condition on ``tag`` holds on a segment where it holds for any of its values
    (:mod:`mtdiag.slices.catalogue`) and ``tag == ""`` keeps exactly the untagged segments. Linear in the tags however
    many one segment holds. ``system`` None: every tag of the segment; a system: the segment's own tags and that
    system's."""
    whole = np.asarray(seg_ids, dtype=np.int64) - 1
    rows = empty_tags() if tags is None else tags
    if system is not None:
        rows = rows[rows["system"].isin(["", system])]
    tagged = rows["seg"].to_numpy(dtype=np.int64)
    at = np.minimum(np.searchsorted(whole, tagged), max(len(whole) - 1, 0))
    inside = whole[at] == tagged if len(whole) else np.zeros(len(tagged), dtype=bool)
    rows = rows[inside].assign(seg=at[inside]).drop_duplicates(["seg", "tag"])
    seg = rows["seg"].to_numpy(dtype=np.int64)
    untagged = np.flatnonzero(np.bincount(seg, minlength=len(whole)) == 0)
    values = np.concatenate([rows["tag"].to_numpy(dtype=object), np.full(len(untagged), "", dtype=object)])
    return values, np.concatenate([seg, untagged])


def tag_labels(tags: pd.DataFrame | None, seg_ids, systems=None) -> np.ndarray:
    """The tags that apply to each table row, joined by ``", "``.

    The rows are given by their 1-based ``seg_ids`` (whole-set ids) and, for rows of one output, ``systems``. A row
    gets its segment's own tags and, on a row of one output, that output's; on a row of a segment, every tag of its
    outputs too."""
    seg = np.asarray(seg_ids, dtype=np.int64) - 1
    labels = np.full(len(seg), "", dtype=object)
    if tags is None or not len(tags) or not len(seg):
        return labels
    by_segment: dict[int, list[tuple[str, str]]] = {}
    for s, system, tag in tags[TAG_COLUMNS].itertuples(index=False):  # tags are few: made by hand
        by_segment.setdefault(int(s), []).append((str(system), str(tag)))
    chosen = None if systems is None else np.asarray(systems, dtype=object)
    for i in np.flatnonzero(np.isin(seg, np.fromiter(by_segment, dtype=np.int64))):
        found = by_segment[int(seg[i])]
        wanted = [tag for system, tag in found if chosen is None or system in ("", chosen[i])]
        labels[i] = SEPARATOR.join(dict.fromkeys(sorted(wanted)))
    return labels


def tag_summary(tags: pd.DataFrame | None, seg_ids: np.ndarray) -> pd.DataFrame:
    """Per tag: how many segments and (system, segment) pairs carry it, and the segments' ids, for the HTML report.

    The segments counted are those whose 1-based ids are ``seg_ids`` (a set's, or a slice's)."""
    columns = ["tag", "segments", "outputs", "seg_ids"]
    if tags is None or not len(tags):
        return pd.DataFrame(columns=columns)
    tags = tags[np.isin(tags["seg"].to_numpy(dtype=np.int64) + 1, np.asarray(seg_ids, dtype=np.int64))]
    rows = []
    for tag, group in tags.groupby("tag", sort=True):
        segs = sorted(set(group["seg"].astype(int)))
        rows.append((tag, int((group["system"] == "").sum()), int((group["system"] != "").sum()),
                     ", ".join(str(s + 1) for s in segs)))
    return pd.DataFrame(rows, columns=columns)
