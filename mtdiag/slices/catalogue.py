"""What a field of a slice expression means on a report: the catalogue (:func:`field_catalogue`, for a field picker and
for error messages) and the values (:func:`column`), one per segment.

Segment fields (one value per segment): ``seg_id`` (1-based; a slice keeps the original ids), every label column
(``doc``, ``domain``, …: text), ``src_len`` / ``ref_len`` / ``rare_freq`` (the numbers behind the length and
rare-word buckets, from :mod:`mtdiag.analysis.segment_groups`, so a bucket is exactly an expression), ``src`` and ``ref`` (texts;
with several references ``ref`` holds each of them and a condition holds when it holds for any, ``ref[NAME]``
names one).

Pair fields, written ``name[SYSTEM]`` (one value per segment for that system): every segment-level metric of the
report (imported ones too), ``problem`` (:func:`mtdiag.triage.ranking.problem_scores`), ``human`` (when human scores are
loaded), every triage flag (:data:`mtdiag.triage.checks.REGISTRY`, values from :func:`mtdiag.triage.checks.flag_frame`), ``hyp``
(the output) and ``errors`` (the human error categories of the pair, joined by ``"; "``, when annotations are
loaded).

Tags (:mod:`mtdiag.core.tags`, given apart from the report: :func:`column`'s ``tags``): ``tag`` holds every tag of
the segment (its own and its outputs'), ``tag[SYSTEM]`` the tags of one output (its own and the segment's); like
``ref``, a condition holds when it holds for any of them (``tag == "check"``; ``tag != "check"``: none of them is).
Always offered: with no tag yet it holds ``""``.

A field's values are kept in the report's scoring context (computed once per report), except those of the fields
that read what joins a scored report afterwards (:data:`SESSION_FIELDS`: the human scores and errors, the tags): a
scored report's context is shared by every session that loaded its texts.

A number that does not exist — a metric undefined on a segment, an unrated pair's human score, ``rare_freq`` of a
reference without words — is missing (NaN): it satisfies no comparison.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from mtdiag.analysis import segment_groups
from mtdiag.triage import checks, ranking
from mtdiag.metrics import metric_info
from mtdiag.core.needs import NEEDS
from mtdiag.slices.expression import ExpressionError, Field, is_name, key_text
from mtdiag.core.tags import tag_values

NUMBER, TEXT, FLAG = "number", "text", "flag"
SYSTEM, REFERENCE, ANY_SYSTEM = "system", "reference", "any system"
ERROR_SEPARATOR = "; "
LISTS = {"errors": ERROR_SEPARATOR}  # text fields that hold a list: ``has`` compares their items whole
SESSION_FIELDS = ("human", "errors", "tag")
"""Fields whose values are a session's (its human judgements, its tags), never kept in the shared scoring context."""
_SHOWN_CHARS = 400  # how much of the field list an error message shows


@dataclass(frozen=True)
class FieldInfo:
    """One field of the catalogue: its name, kind, key and what it holds.

    Its ``name``, ``kind`` (``number``, ``text`` or ``flag``), ``key`` (None: one value per segment; ``system``: written
    ``name[SYSTEM]``; ``reference``: ``ref`` or ``ref[REF]``; ``any system``: ``tag`` or ``tag[SYSTEM]``) and what it
    holds."""

    name: str
    kind: str
    key: str | None
    description: str

    @property
    def written(self) -> str:
        """How the field is written, with a placeholder for its key: ``chrf[SYSTEM]``, ``ref``, ``doc``."""
        return f"{self.name}[SYSTEM]" if self.key == SYSTEM else self.name


@dataclass(frozen=True)
class Column:
    """A field's values on a report.

    ``values``, one per segment when ``owner`` is None; else any number per segment (every reference's text for ``ref``,
    every tag for ``tag``), ``owner`` holding the segment of each value, and a condition holds on a segment where it
    holds for any of its values."""

    kind: str
    values: np.ndarray
    written: str
    owner: np.ndarray | None = None


def _segment_fields(evalset) -> list[FieldInfo]:
    has_src = "src" in evalset.segments.columns
    fields = [FieldInfo("seg_id", NUMBER, None, "the segment's 1-based id (in a slice: its id in the whole set)")]
    builtin = {"seg_id", "src_len", "ref_len", "rare_freq", "src", "ref", "tag"}
    fields += [FieldInfo(label, TEXT, None, f"the segment's label {label!r}")
               for label in evalset.label_columns if is_name(label) and label not in builtin]
    if has_src:
        fields.append(FieldInfo("src_len", NUMBER, None, "source length in tokens (as the src_length buckets)"))
    if evalset.has_references:
        fields.append(FieldInfo("ref_len", NUMBER, None, "first reference's length in tokens (as the ref_length "
                                                         "buckets)"))
        fields.append(FieldInfo("rare_freq", NUMBER, None, "frequency of the first reference's rarest word in the "
                                                           "references (as the ref_freq buckets)"))
    if has_src:
        fields.append(FieldInfo("src", TEXT, None, "the source text"))
    if evalset.has_references:
        several = len(evalset.ref_names) > 1
        fields.append(FieldInfo("ref", TEXT, REFERENCE, "the reference text" + (
            f"s (any of {', '.join(evalset.ref_names)}; ref[NAME] for one)" if several else "")))
    fields.append(FieldInfo("tag", TEXT, ANY_SYSTEM, "the user's tags of the segment and its outputs (any of them; "
                                                     "tag[SYSTEM]: of one output)"))
    return fields


def _pair_fields(evalset, metrics) -> list[FieldInfo]:
    fields = []
    for name in metrics:
        info = metric_info(name, evalset)
        if info.segment_level:
            fields.append(FieldInfo(name, NUMBER, SYSTEM, f"{info.label} of the system's output on the segment "
                                                          f"({info.scale_text}, {info.direction})"))
    fields.append(FieldInfo("problem", NUMBER, SYSTEM, "problem score of the pair (0-1, higher = worse; the triage "
                                                       "queue's order)"))
    if evalset.human is not None and len(evalset.human):
        fields.append(FieldInfo("human", NUMBER, SYSTEM, "human score of the pair (missing where not rated)"))
    fields += [FieldInfo(check.name, FLAG, SYSTEM, f"triage flag: {check.help}")
               for check in checks.REGISTRY.values() if not check.on_request]
    fields.append(FieldInfo("hyp", TEXT, SYSTEM, "the system's output"))
    if evalset.annotations is not None and len(evalset.annotations):
        fields.append(FieldInfo("errors", TEXT, SYSTEM, "the pair's human error categories joined by '; ' "
                                                        "(match with ~)"))
    return fields


UNSCORED = frozenset({"human", "hyp", "errors"})
"""The fields of a pair read from the set itself, as the segment fields are: no score, flag or problem."""


def unscored_fields(evalset) -> set[str]:
    """The names of the fields read from the set alone, before anything is scored.

    They are every segment field (id, labels, lengths, texts, tags) and :data:`UNSCORED`."""
    return {f.name for f in _segment_fields(evalset)} | UNSCORED


def field_catalogue(evalset, metrics) -> list[FieldInfo]:
    """Every field an expression may read on a report of ``evalset`` with ``metrics`` (segment fields first)."""
    return _segment_fields(evalset) + _pair_fields(evalset, metrics)


FIELD_NEEDS = {"human": "human", "errors": "annotations", "src": "source", "src_len": "source",
               "ref": "references", "ref_len": "references", "rare_freq": "references"}
"""What a field the data may lack needs (:data:`mtdiag.core.needs.NEEDS`)."""


def field_list(fields: list[FieldInfo], systems) -> str:
    """The fields and systems as an error message lists them (shortened)."""
    text = "fields: " + ", ".join(f.written for f in fields) + "; systems: " + ", ".join(map(key_text, systems))
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS - 1] + "…"


def resolve(field: Field, evalset, metrics) -> FieldInfo:
    """The catalogue entry of a field reference, its key checked.

    :class:`ExpressionError` otherwise (unknown name, missing or unknown system, a field that these inputs do not
    have)."""
    fields = field_catalogue(evalset, metrics)
    by_name = {f.name: f for f in fields}
    info = by_name.get(field.name)
    if info is None:
        if field.name in FIELD_NEEDS:
            need = NEEDS[FIELD_NEEDS[field.name]]
            raise ExpressionError(f"{field.written} needs {need.what} ({need.given})", field.column)
        close = difflib.get_close_matches(field.name, list(by_name), n=1)
        hint = (f"did you mean {by_name[close[0]].written}? " if close else "") + field_list(fields, evalset.systems)
        raise ExpressionError(f"unknown field {field.name!r}", field.column, hint)
    if info.key == SYSTEM:
        if field.key is None:
            raise ExpressionError(f"{field.name} needs a system: {field.name}[SYSTEM]", field.column,
                                  "systems: " + ", ".join(map(key_text, evalset.systems)))
        if field.key not in evalset.systems:
            raise ExpressionError(f"unknown system {field.key!r} in {field.written}", field.column,
                                  "systems: " + ", ".join(map(key_text, evalset.systems)))
    elif info.key == ANY_SYSTEM:
        if field.key is not None and field.key not in evalset.systems:
            raise ExpressionError(f"unknown system {field.key!r} in {field.written}", field.column,
                                  "systems: " + ", ".join(map(key_text, evalset.systems)))
    elif info.key == REFERENCE:
        if field.key is not None and field.key not in evalset.ref_names:
            raise ExpressionError(f"unknown reference {field.key!r} in {field.written}", field.column,
                                  "references: " + ", ".join(map(key_text, evalset.ref_names)))
    elif field.key is not None:
        raise ExpressionError(f"{field.name} takes no [ ]", field.column)
    return info


# ------------------------------------------------------------------------------------------------ values


def _text(values) -> np.ndarray:
    return np.asarray(values.astype(str).to_numpy(dtype=object), dtype=object)


def _per_system(frame, system: str) -> np.ndarray:
    """The rows of a ``(system, seg)``-indexed frame or series for one system, in segment order."""
    return frame.xs(system, level="system").sort_index().to_numpy()


def _human(report, system: str) -> np.ndarray:
    values = np.full(report.evalset.n_segments, np.nan)
    human = report.evalset.human
    rows = human[human["system"] == system].dropna(subset=["score"])
    values[rows["seg"].to_numpy(dtype=np.int64)] = rows["score"].to_numpy(dtype=float)
    return values


def _errors(report, system: str) -> np.ndarray:
    spans = report.evalset.annotations
    values = np.full(report.evalset.n_segments, "", dtype=object)
    rows = spans[spans["system"] == system]
    for seg, categories in rows.groupby("seg", sort=False)["category"]:
        values[int(seg)] = ERROR_SEPARATOR.join(dict.fromkeys(str(c) for c in categories))
    return values


def _flag(report, field: Field) -> np.ndarray:
    # the one check's memoised flag, not checks.flag_frame: a frame of every flag per field read cost 25 ms a field
    # on 10 systems x 1,948 segments (0.9 s of the finder's 1.9 s)
    active = {check.name: check for check in checks.active_checks(report)}
    if field.name not in active:
        computed = ", ".join(active) or "none"
        raise ExpressionError(f"the flag {field.name!r} is not computed for these inputs", field.column,
                              f"computed flags: {computed}")
    return _per_system(checks.fired(report, active[field.name]), field.key).astype(bool)


def _values(report, info: FieldInfo, field: Field, tags) -> tuple[np.ndarray, np.ndarray | None]:
    """The field's values and the segment of each (None: one value per segment, in order)."""
    evalset, name, key = report.evalset, field.name, field.key
    if name == "ref" and key is None and len(evalset.ref_names) > 1:  # every reference: a condition holds for any
        n = evalset.n_segments
        return (np.concatenate([_text(evalset.refs[ref]) for ref in evalset.ref_names]),
                np.tile(np.arange(n), len(evalset.ref_names)))
    if name == "tag":
        return tag_values(tags, evalset.seg_ids, key)
    return _one_per_segment(report, info, field), None


def _one_per_segment(report, info: FieldInfo, field: Field) -> np.ndarray:
    evalset, name, key = report.evalset, field.name, field.key
    if name == "seg_id":
        return evalset.seg_ids.astype(float)
    if name == "src_len":
        return segment_groups.source_lengths(report).astype(float)
    if name == "ref_len":
        return segment_groups.reference_lengths(report).astype(float)
    if name == "rare_freq":
        rarest = segment_groups.rarest_word_frequency(report)
        return np.where(np.isinf(rarest), np.nan, rarest)
    if name == "src":
        return _text(evalset.src)
    if name == "ref":
        return _text(evalset.refs[key if key is not None else evalset.ref_names[0]])
    if info.key is None:  # a label column
        return _text(evalset.segments[name])
    if name == "hyp":
        return _text(evalset.hyps[key])
    if name == "problem":
        return _per_system(ranking.problem_scores(report)["problem"], key).astype(float)
    if name == "human":
        return _human(report, key)
    if name == "errors":
        return _errors(report, key)
    if info.kind == FLAG:
        return _flag(report, field)
    return np.asarray(report.result(name, key).segments, dtype=float)


def column(report, field: Field, tags=None) -> Column:
    """The values of ``field`` on ``report``, computed once per report and field.

    ``tags``: the user's tags, :mod:`mtdiag.core.tags`, for ``tag``. The values are kept in the report's context, but
    for :data:`SESSION_FIELDS`."""
    info = resolve(field, report.evalset, report.metrics)
    if field.name in SESSION_FIELDS:
        values, owner = _values(report, info, field, tags)
    else:
        values, owner = report.context.memo(("slices", "field", field.name, field.key),
                                            lambda: _values(report, info, field, tags))
    return Column(info.kind, values, field.written, owner)
