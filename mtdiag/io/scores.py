"""Metric scores computed elsewhere (COMET, MetricX, xCOMET, …): :func:`read_metric_scores`.

Two layouts, TSV/CSV/JSONL (by extension; any of them as written by a script around ``comet-score`` or MetricX):

- **long**: columns ``system``, ``seg_id`` (1-based), ``metric``, ``score`` and optionally ``higher_is_better``
  (``1``/``0``, ``true``/``false``, ``yes``/``no``; the same for every row of a metric);
- **wide**: columns ``system``, ``seg_id`` and one numeric column per metric (``comet``, ``metricx``, …).

A row whose ``seg_id`` is empty (or ``system``/``sys``) is a **system-level** score: kept to be checked against the
mean of that system's segment scores (:func:`mtdiag.metrics.imported.system_score_mismatches`). A blank score is
a segment without a score. The direction of a metric without a ``higher_is_better`` column: lower is better for
names starting with ``metricx`` (MetricX predicts an error score, 0 best) or ending in ``ter``, higher otherwise —
said in one warning per metric so the user can correct it. Metric names become lower-case keys (letters, digits,
``_``; other characters become ``_``).

**COMET from a local checkpoint** (:func:`with_comet_scores`, ``mtdiag score --comet-checkpoint PATH``): when the
``unbabel-comet`` package is installed, every system is scored with a checkpoint file already on disk (Rei et al.
2020, "COMET: A Neural Framework for MT Evaluation", EMNLP; ``comet.load_from_checkpoint`` and ``model.predict``)
and the segment scores become an imported metric, exactly as if they had come from a scores file. Decisions: a
path that is not an existing file is refused and nothing is ever downloaded (``local_files_only=True``: the
checkpoint's encoder must be in the local Hugging Face cache, unbabel-comet ≥ 2.2); the source is required; the
first reference is the reference (COMET scores against one); CPU unless ``gpus`` is given; higher is better (COMET
and CometKiwi predict quality); the metric is named after the model folder (``…/wmt22-comet-da/checkpoints/
model.ckpt`` → ``wmt22_comet_da``), else ``comet``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import ImportedMetricInfo
from mtdiag.io.parsing import Table, all_numbers, check_columns, parse_score, parse_seg_id, parse_table
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote, quote_names

METRIC_SCORES_FILE = "metric_scores.tsv"  # read from a test-set folder automatically
_TRUE, _FALSE = {"1", "true", "yes", "higher", "up"}, {"0", "false", "no", "lower", "down"}
_SYSTEM_LEVEL = {"", "system", "sys", "corpus"}
_LOWER_IS_BETTER = re.compile(r"^(metricx.*|.*ter)$")


def metric_key(name: str) -> str:
    """A metric name as a key: lower-case, letters/digits/underscore, starting with a letter."""
    key = re.sub(r"\W+", "_", name.strip().lower()).strip("_")
    return key if key and key[0].isalpha() else f"m_{key}"


def _direction(value: str, table: Table, line: int) -> bool:
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise InputError(table.name, f"higher_is_better {quote(value)}: expected 1/0, true/false or yes/no", line)


def read_metric_scores(source: Source, name: str | None = None, n_segments: int | None = None, *,
                       systems: list[str] | None = None, limits: Limits = DEFAULT_LIMITS
                       ) -> tuple[pd.DataFrame, tuple[ImportedMetricInfo, ...], list[str]]:
    """(scores, one :class:`~mtdiag.core.evalset.ImportedMetricInfo` per metric, warnings) of a metric scores file.

    ``scores``: a long frame ``seg`` (0-based), ``system``, ``metric``, ``score``; warnings for assumed directions and
    for systems that are not loaded (``systems``)."""
    table = parse_table(source, name, None, limits)
    lowered = [h.strip().lower() for h in table.header]
    for required in ("system", "seg_id"):
        if required not in lowered:
            raise InputError(table.name, f"missing column {required}; found columns {quote_names(table.header)}; "
                                         "expected system, seg_id, metric, score (or one column per metric)", 1)
    system_at, seg_at = lowered.index("system"), lowered.index("seg_id")
    long = "metric" in lowered and "score" in lowered
    metric_columns = [] if long else _metric_columns(table, lowered, (system_at, seg_at))
    direction_at = lowered.index("higher_is_better") if "higher_is_better" in lowered else None
    records, system_level, directions, seen = [], {}, {}, {}
    keys: dict[str, str] = {}  # each metric name made a key once, not once per row (a name may be a long cell)
    named: dict[str, None] = {}
    for row, line in zip(table.rows, table.lines):
        system = row[system_at].strip()
        if not system:
            raise InputError(table.name, "the system name is empty", line)
        seg_text = row[seg_at].strip()
        seg = None if seg_text.lower() in _SYSTEM_LEVEL else parse_seg_id(seg_text, table, line, n_segments) - 1
        cells = ([(row[lowered.index("metric")], row[lowered.index("score")])] if long
                 else [(table.header[i], row[i]) for i in metric_columns])
        for raw_metric, raw_score in cells:
            metric = _metric_name(raw_metric, keys, named, table.name, line, limits)
            if direction_at is not None and row[direction_at].strip():
                higher = _direction(row[direction_at], table, line)
                if directions.setdefault(metric, (higher, line))[0] != higher:
                    raise InputError(table.name, f"metric {metric}: higher_is_better differs from line "
                                                 f"{directions[metric][1]}", line)
            score = parse_score(raw_score, table, line)
            key = (metric, system, seg)
            if key in seen:
                what = "system-level score" if seg is None else f"seg_id {seg + 1}"
                raise InputError(table.name, f"a second {metric} score for system {system}, {what} (the first is "
                                             f"on line {seen[key]})", line)
            seen[key] = line
            if score is None:
                continue
            if seg is None:
                system_level.setdefault(metric, []).append((system, score))
            else:
                records.append((seg, system, metric, score))
    scores = pd.DataFrame(records, columns=["seg", "system", "metric", "score"]).astype(
        {"seg": "int64", "score": "float64"})
    metrics = list(dict.fromkeys([m for _, _, m, _ in records] + list(system_level)))
    if not records:
        raise InputError(table.name, "has no segment scores (every score is blank or system-level)")
    infos, warnings = _metric_infos(table.name, metrics, directions, system_level)
    if systems is not None:
        unknown = sorted(set(scores["system"]) - set(systems))
        if unknown:
            warnings.append(f"{table.name}: scores for systems that are not loaded ({quote_names(unknown)}) are ignored")
    return scores, tuple(infos), warnings


def _metric_name(raw: str, keys: dict[str, str], named: dict[str, None], display: str, line: int,
                 limits: Limits) -> str:
    """The key of a metric name read on ``line`` (made once per name, kept in ``keys``; the metrics in ``named``)."""
    if not raw.strip():
        raise InputError(display, "the metric name is empty", line)
    metric = keys.get(raw)
    if metric is None:
        metric = keys.setdefault(raw, metric_key(raw))
        named[metric] = None  # each metric is a column of every view: bounded like a table's columns
        check_columns(display, len(named), limits, line, what="metrics")
    return metric


def _metric_columns(table, lowered: list[str], keys: tuple[int, int]) -> list[int]:
    """The columns of a wide score table (one column per metric): every column but ``system``, ``seg_id`` and
    ``higher_is_better`` whose filled cells are all numbers."""
    columns = [i for i, h in enumerate(lowered) if i not in keys
               and h != "higher_is_better" and all_numbers([v for v in table.column(i) if v.strip()])]
    if not columns:
        raise InputError(table.name, f"no score column; found columns {quote_names(table.header)}; expected metric "
                                     "and score columns, or one numeric column per metric", 1)
    return columns


def _metric_infos(display: str, metrics: list[str], directions: dict, system_level: dict
                  ) -> tuple[list[ImportedMetricInfo], list[str]]:
    """One :class:`~mtdiag.core.evalset.ImportedMetricInfo` per metric — its direction as the file gives it, else
    guessed from its name (with a warning saying so) — and those warnings."""
    warnings, infos = [], []
    for metric in metrics:
        if metric in directions:
            higher = directions[metric][0]
        else:
            higher = not _LOWER_IS_BETTER.match(metric)
            warnings.append(f"{display}: {metric} is taken as {'higher' if higher else 'lower'} is better (add a "
                            "higher_is_better column to say otherwise)")
        infos.append(ImportedMetricInfo(metric, higher, display, tuple(system_level.get(metric, ()))))
    return infos, warnings


def with_metric_scores(evalset, source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS):
    """``evalset`` with the metric scores of a file added (``EvalSet.scores``/``imported``; warnings appended)."""
    scores, infos, warnings = read_metric_scores(source, name, evalset.n_segments, systems=evalset.systems,
                                                 limits=limits)
    return _with_scores(evalset, scores, infos, warnings)


def comet_metric_name(checkpoint: Path) -> str:
    """The imported metric's name for a checkpoint: its model folder, else ``comet``.

    The model folder is ``MODEL`` of ``…/MODEL/checkpoints/model.ckpt``."""
    if checkpoint.parent.name == "checkpoints" and checkpoint.parent.parent.name:
        return metric_key(checkpoint.parent.parent.name)
    return "comet"


def with_comet_scores(evalset, checkpoint: str | Path, *, batch_size: int = 8, gpus: int = 0):
    """``evalset`` with every system scored by the local COMET checkpoint ``checkpoint``.

    See the module docstring: never downloads; source and first reference; higher is better."""
    path = Path(checkpoint)
    if not path.is_file():
        raise InputError(str(checkpoint), "no such COMET checkpoint file (mtdiag never downloads a model: give the "
                                          "path of a local checkpoint, e.g. MODEL/checkpoints/model.ckpt)")
    if "src" not in evalset.segments.columns:
        raise InputError(str(checkpoint), "COMET needs the source segments; load a source with the test set")
    try:
        import comet
    except ImportError:
        raise InputError(str(checkpoint), "scoring with a COMET checkpoint needs the unbabel-comet package "
                                          "(pip install unbabel-comet)") from None
    model = comet.load_from_checkpoint(str(path), local_files_only=True)
    src, ref = evalset.src.tolist(), evalset.refs[evalset.ref_names[0]].tolist()
    systems = list(evalset.systems)
    data = [{"src": s, "mt": m, "ref": r} for system in systems
            for s, m, r in zip(src, evalset.hyps[system].tolist(), ref)]
    predicted = [float(v) for v in model.predict(data, batch_size=batch_size, gpus=gpus).scores]
    n = evalset.n_segments
    if len(predicted) != len(data):
        raise ValueError(f"{path}: COMET returned {len(predicted)} scores for {len(data)} segments")
    name = comet_metric_name(path)
    scores = pd.DataFrame({"seg": list(range(n)) * len(systems), "system": [s for s in systems for _ in range(n)],
                           "metric": name, "score": predicted}).astype({"seg": "int64", "score": "float64"})
    return _with_scores(evalset, scores, (ImportedMetricInfo(name, True, str(path)),), [])


def _with_scores(evalset, scores: pd.DataFrame, infos: tuple[ImportedMetricInfo, ...], warnings: list[str]):
    """``evalset`` with imported segment scores and their metrics added (a metric already loaded is an error)."""
    from dataclasses import replace

    clash = sorted({i.name for i in infos} & {i.name for i in evalset.imported})
    if clash:
        raise InputError(infos[0].source, f"metric scores for {quote_names(clash)} are already loaded")
    merged = scores if evalset.scores is None else pd.concat([evalset.scores, scores], ignore_index=True)
    return replace(evalset, scores=merged, imported=evalset.imported + infos,
                   warnings=tuple(evalset.warnings) + tuple(warnings))
