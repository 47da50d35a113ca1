"""Every writer of mtdiag's tables — CSV, Excel, TSV, JSON, LaTeX — for the command line and the dashboard alike.
Only writers: the tables come from the views (:mod:`mtdiag.views`, e.g. the segment export
:func:`mtdiag.views.segments.segment_export`) and from :mod:`mtdiag.analysis.significance`.

**Spreadsheet safety** (OWASP, "CSV Injection"): a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return would be read as a formula by a spreadsheet. In CSV such a cell gets a leading single quote
(``'=1+1``: shown as text, visibly marked); in Excel it is written as a text cell with Excel's own quote prefix
(``quotePrefix``: shown as ``=1+1``, never a formula; openpyxl ``data_type == "s"``). Numbers stay numbers (a
negative score is a number, not text). CSV never cuts a text; Excel holds at most 32,767 characters in a cell, so a
longer text (a 10,000-word segment) is cut there with a visible note pointing to the CSV; characters XML forbids are
removed from Excel cells (openpyxl refuses them) and kept in CSV.

**Significance exports** (:func:`export_comparison`, :func:`latex_table`, :func:`significance_json`): the frames
of :mod:`mtdiag.analysis.significance` as CSV/TSV/JSON/LaTeX; decimals, labels and directions come from the metric registry
(:class:`~mtdiag.metrics.MetricInfo`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any, Mapping

import numpy as np
import pandas as pd

from mtdiag.analysis.significance import ALPHA, METHODS, pairwise_matrix
from mtdiag.metrics import metric_info

EXCEL_MAX_ROWS = 1_048_575  # a sheet's rows below the header
EXCEL_MAX_CELL = 32_767  # characters Excel keeps in one cell; the CSV export has no limit
_CUT_NOTE = " … [cut: Excel's cell limit; see the CSV]"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def is_dangerous(value: object) -> bool:
    """A text cell a spreadsheet would read as a formula (OWASP's leading characters)."""
    return isinstance(value, str) and value.startswith(_FORMULA_START)


def neutralise(value: object) -> object:
    """A CSV cell made safe: dangerous text gets a leading single quote; anything else is unchanged."""
    return "'" + value if is_dangerous(value) else value


def flatten(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with array/list cells as space-separated text and a named index kept as columns.

    Array/list cells are, e.g., n-gram segment lists; the index is kept as columns when it is named."""
    keep_index = any(name is not None for name in frame.index.names)
    out = frame.reset_index() if keep_index else frame.copy()
    for column in out.columns:
        if out[column].dtype == object and len(out):
            out[column] = out[column].map(
                lambda v: " ".join(map(str, v)) if isinstance(v, (list, tuple, np.ndarray)) else v)
    return out


def _text_columns(frame: pd.DataFrame) -> list:
    return [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])]


def safe_for_spreadsheets(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`flatten`, then every dangerous text cell neutralised (:func:`neutralise`)."""
    out = flatten(frame)
    for column in _text_columns(out):
        out[column] = out[column].map(neutralise)
    out.columns = [neutralise(str(c)) for c in out.columns]
    return out


def to_csv(frame: pd.DataFrame) -> bytes:
    """A table as UTF-8 CSV, safe to open in a spreadsheet (the index kept when it is named).

    RFC 4180 line ends, so a field holding a carriage return is quoted."""
    return safe_for_spreadsheets(frame).to_csv(index=False, lineterminator="\r\n").encode("utf-8")


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_cell(value: Any) -> Any:
    """A text as one TSV cell, its backslashes, tabs and line breaks escaped; anything that is not text unchanged.

    Backslash, tab, newline and carriage return are written as ``\\\\``, ``\\t``, ``\\n``, ``\\r`` (the "linear TSV"
    convention: a row is one line, a tab always separates columns, and the escapes undo exactly)."""
    return value.translate(_TSV_ESCAPES) if isinstance(value, str) else value


PLACES = 4  # decimals of a number written for people: as the dashboard shows them


def for_people(value: Any) -> str:
    """A number as the command line prints it in a table.

    :data:`PLACES` decimals (``0.9965``, ``57.1598``), four significant digits when that would print a non-zero value as
    0 (``0.0001562``, ``1.562e-05``), whole numbers as they are, empty for undefined; ``--format json`` keeps every
    digit instead (for programs)."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return "" if value is None else str(value)
    if isinstance(value, (int, np.integer)):
        return str(value)
    number = float(value)
    if not math.isfinite(number):
        return "" if math.isnan(number) else str(number)
    if number != 0 and abs(number) < 0.5 * 10 ** -PLACES:
        return f"{number:.{PLACES}g}"
    return f"{number:.{PLACES}f}"


def people_column(values: np.ndarray) -> list[str]:
    """:func:`for_people` of every number of a float column, formatted in one pass.

    The common case — a finite number not too small for :data:`PLACES` decimals — by one format each, the others one by
    one (a queue of 12,000 pairs × 10 scores: 0.06 s against 0.3 s through pandas' ``float_format`` callback)."""
    values = np.asarray(values, dtype=float)
    shown = [f"{x:.{PLACES}f}" for x in values.tolist()]
    with np.errstate(invalid="ignore"):
        special = ~np.isfinite(values) | ((values != 0) & (np.abs(values) < 0.5 * 10 ** -PLACES))
    for i in np.flatnonzero(special).tolist():
        shown[i] = for_people(values[i])
    return shown


def to_tsv(frame: pd.DataFrame, header: bool = True) -> str:
    """A table as TSV text for the command line.

    Numbers for people (:func:`for_people`), empty for undefined, every text through :func:`tsv_cell` (never quoted: a
    quote is a character like any other)."""
    out = flatten(frame)
    for column in _text_columns(out):
        out[column] = out[column].map(tsv_cell)
    for column in [c for c in out.columns if pd.api.types.is_float_dtype(out[c])]:
        out[column] = people_column(out[column].to_numpy(dtype=float, na_value=np.nan))
    out.columns = [tsv_cell(str(c)) for c in out.columns]
    return out.to_csv(sep="\t", index=False, header=header, lineterminator="\n", na_rep="", quoting=csv.QUOTE_NONE,
                      float_format=for_people)


def to_json_records(frame: pd.DataFrame) -> list[dict]:
    """A table as JSON-ready records (NaN and infinities become null)."""
    records = flatten(frame).to_dict(orient="records")
    return [{str(k): _json_value(v) for k, v in row.items()} for row in records]


def _json_value(value: Any):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _number(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def to_json(frame: pd.DataFrame) -> str:
    """A table as JSON text: the list of its records (:func:`to_json_records`)."""
    return json.dumps(to_json_records(frame), ensure_ascii=False)


def to_excel(frame: pd.DataFrame, sheet: str = "segments") -> bytes:
    """A table as an .xlsx workbook (openpyxl): header, then at most :data:`EXCEL_MAX_ROWS` rows.

    Every text cell is a text cell (dangerous ones with Excel's quote prefix), numbers are numbers."""
    from openpyxl import Workbook

    flat = flatten(frame).head(EXCEL_MAX_ROWS)
    workbook = Workbook()
    worksheet = workbook.active
    worksheet.title = re.sub(r"[\[\]:*?/\\]", "_", sheet)[:31] or "sheet"
    rows = [list(map(str, flat.columns))] + flat.astype(object).where(flat.notna(), None).values.tolist()
    for r, values in enumerate(rows, start=1):
        for c, value in enumerate(values, start=1):
            if isinstance(value, (np.integer, np.floating)):
                value = value.item()
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            cell = worksheet.cell(row=r, column=c)
            if isinstance(value, str):
                value = _ILLEGAL_XML.sub("", value)
                if len(value) > EXCEL_MAX_CELL:  # Excel cannot hold more: say so in the cell
                    value = value[: EXCEL_MAX_CELL - len(_CUT_NOTE)] + _CUT_NOTE
                cell.value = value
                cell.data_type = "s"  # never a formula, whatever the text starts with
                if is_dangerous(value):
                    cell.quotePrefix = True
            else:
                cell.value = value if not isinstance(value, (list, tuple, dict)) else str(value)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _info(frame: pd.DataFrame, metric: str, within=None) -> tuple[str, bool | None, int]:
    """(label, higher_is_better, decimal places) of a metric: registered or imported by ``within`` (the report or
    set: :func:`mtdiag.metrics.metric_info`), else from the frame's attrs (a frame of
    :func:`mtdiag.analysis.significance.significance` carries every metric's), else neutral defaults."""
    attrs = frame.attrs
    try:
        info = metric_info(metric, within)
        return info.label, info.higher_is_better, info.places
    except KeyError:
        scale = attrs.get("scales", {}).get(metric, 100)
        return (attrs.get("labels", {}).get(metric, metric), attrs.get("higher_is_better", {}).get(metric, True),
                2 if scale >= 10 else 4)


def _number(value: Any) -> float | None:
    """A JSON-safe float: NaN and infinities become None."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def significance_json(frame: pd.DataFrame) -> dict:
    """The ``"significance"`` object of ``mtdiag score --format json``.

    ``{SYSTEM: {METRIC: {"score", "mean", "ci": [lo, hi], "p", "significant", "delta", "better"}}}`` (the baseline's
    ``p`` is None)."""
    out: dict[str, dict[str, dict]] = {}
    for (system, metric), row in frame.iterrows():
        out.setdefault(system, {})[metric] = {
            "score": _number(row["score"]), "mean": _number(row["mean"]),
            "ci": [_number(row["ci_lo"]), _number(row["ci_hi"])], "p": _number(row["p"]),
            "significant": bool(row["significant"]), "delta": _number(row["delta"]), "better": int(row["better"]),
        }
    return out


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (``& % $ # _ { } ~ ^ \\``); newlines become spaces."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text).replace("\r", " ").replace("\n", " "))


LATEX_MARKS = {"dagger": (r"$^{\dagger}$", r"$^{\ddagger}$"), "star": (r"$^{*}$", r"$^{\circ}$")}
"""Per mark style, the marks of a score significantly (better, worse) than the baseline's."""


def latex_table(corpus: pd.DataFrame, significance_frame: pd.DataFrame | None = None, *, mark: str = "dagger",
                signatures: Mapping[str, str] | None = None, decimals: int | None = None, within=None) -> str:
    """A booktabs LaTeX table: one row per system, one column per metric with ``$\\uparrow$``/``$\\downarrow$``.

    ``corpus``: corpus scores (index system, one column per metric). With ``significance_frame`` (from
    :func:`significance`) every cell shows ``score $\\pm$ half-width`` of the 95% interval and, when the system
    differs significantly from the baseline (p < 0.05, in the metric's direction), a mark of :data:`LATEX_MARKS`:
    ``mark="dagger"``: ``$^{\\dagger}$`` significantly better, ``$^{\\ddagger}$`` significantly worse;
    ``mark="star"``: ``$^{*}$`` better, ``$^{\\circ}$`` worse (a reader must see the worse ones too). The
    note under the table explains both. Signatures go into ``%`` comment lines. Needs ``\\usepackage{booktabs}``.
    ``within`` (the report) names imported metrics and their directions.
    """
    if mark not in LATEX_MARKS:
        raise ValueError(f"mark must be 'dagger' or 'star', got {mark!r}")
    marks = LATEX_MARKS[mark]
    sig = significance_frame
    ref = sig if sig is not None else pd.DataFrame()
    metrics = list(corpus.columns)
    infos = {m: _info(ref, m, within) for m in metrics}
    arrows = {True: r" $\uparrow$", False: r" $\downarrow$", None: ""}
    header = ["System"] + [latex_escape(infos[m][0]) + arrows[infos[m][1]] for m in metrics]
    baseline = sig.attrs.get("baseline") if sig is not None else None
    lines = [r"\begin{tabular}{l" + "r" * len(metrics) + "}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    for system, row in corpus.iterrows():
        name = latex_escape(system) + (" (baseline)" if system == baseline else "")
        cells = [name]
        for m in metrics:
            places = decimals if decimals is not None else infos[m][2]
            cells.append(_latex_cell(row[m], sig, system, m, places, marks))
        lines.append(" & ".join(cells) + r" \\")
    lines.append(r"\bottomrule")
    if sig is not None:
        method = METHODS[sig.attrs.get("method", "bs")]
        unit = "resamples" if sig.attrs.get("method", "bs") == "bs" else "trials"
        note = (f"{marks[0]}/{marks[1]}: significantly better/worse than {latex_escape(baseline)} "
                f"($p < {sig.attrs.get('alpha', ALPHA)}$, {method}, {sig.attrs.get('n')} {unit}); $\\pm$: half-width "
                "of the 95\\% confidence interval.")
        lines.append(r"\multicolumn{" + str(len(metrics) + 1) + r"}{l}{\footnotesize " + note + r"} \\")
    lines.append(r"\end{tabular}")
    signatures = signatures if signatures is not None else (sig.attrs.get("signatures", {}) if sig is not None else {})
    comments = [f"% {m}: {signatures[m]}".replace("\n", " ") for m in metrics if m in signatures]
    return "\n".join(comments + lines)


def _latex_cell(value: float, sig: pd.DataFrame | None, system: str, metric: str, places: int,
                marks: tuple[str, str] = ("", "")) -> str:
    """One score, with its interval's half-width and its mark (significantly better/worse: ``marks``) given
    ``sig``."""
    if value is None or not math.isfinite(float(value)):
        return "--"
    text = f"{float(value):.{places}f}"
    if sig is None or (system, metric) not in sig.index:
        return text
    row = sig.loc[(system, metric)]
    if math.isfinite(float(row["ci"])):
        text += f" $\\pm$ {float(row['ci']):.{places}f}"
    if bool(row["significant"]) and int(row["better"]) != 0:
        text += marks[0] if int(row["better"]) > 0 else marks[1]
    return text


def export_comparison(frame: pd.DataFrame, fmt: str, rounded: bool = False, **latex_options) -> str:
    """The comparison table of :func:`significance` as a ``csv``, ``tsv``, ``latex`` or ``json`` string.

    - ``csv``/``tsv``: one row per (system, metric) with every column, plus ``label`` and ``signature``; every digit
      (a file read back gives the same numbers) unless ``rounded`` (numbers for people, :func:`for_people`: the
      command line's table).
    - ``latex``: :func:`latex_table` (systems x metrics, ``score ± half-width``, marks for significantly better and
      worse).
    - ``json``: ``{"baseline", "method", "n", "seed", "n_confidence", "signatures", "significance"}`` with
      :func:`significance_json`.
    """
    fmt = fmt.lower()
    signatures = frame.attrs.get("signatures", {})
    if fmt in ("csv", "tsv"):
        table = frame.reset_index()
        table.insert(2, "label", [_info(frame, m)[0] for m in table["metric"]])
        table["signature"] = [signatures.get(m, "") for m in table["metric"]]
        if fmt == "csv":  # for spreadsheets: system names are user text
            table = safe_for_spreadsheets(table)
        buffer = io.StringIO()
        table.to_csv(buffer, index=False, sep="," if fmt == "csv" else "\t", lineterminator="\n",
                     float_format=for_people if rounded else None)
        return buffer.getvalue()
    if fmt == "latex":
        corpus = frame["score"].unstack("metric")
        corpus = corpus.reindex(index=list(dict.fromkeys(frame.index.get_level_values("system"))),
                                columns=list(dict.fromkeys(frame.index.get_level_values("metric"))))
        return latex_table(corpus, frame, **latex_options)
    if fmt == "json":
        attrs = frame.attrs
        payload = {"baseline": attrs.get("baseline"), "method": attrs.get("method"), "n": attrs.get("n"),
                   "seed": attrs.get("seed"), "n_confidence": attrs.get("n_confidence"),
                   "signatures": dict(signatures), "significance": significance_json(frame)}
        return json.dumps(payload, ensure_ascii=False)
    raise ValueError(f"unknown export format {fmt!r}: choose csv, tsv, latex or json")


# ------------------------------------------------------------------------ significance without a baseline


def pairwise_json(pairwise: pd.DataFrame, clusters: pd.DataFrame) -> dict:
    """The ``"pairwise"`` object of ``mtdiag score --paired-bs|--paired-ar`` without ``--baseline``.

    ``{"method", "n", "seed", "alpha", "clusters": {METRIC: [{"rank", "system", "score", "cluster", "p_above"}]},
    "pairwise": {METRIC: {SYSTEM: {OTHER: {"p", "delta", "significant", "better"}}}}}``."""
    attrs = pairwise.attrs
    matrix: dict[str, dict[str, dict[str, dict]]] = {}
    for (metric, system, other), row in pairwise.iterrows():
        matrix.setdefault(metric, {}).setdefault(system, {})[other] = {
            "p": _number(row["p"]), "delta": _number(row["delta"]), "significant": bool(row["significant"]),
            "better": int(row["better"])}
    ranked = {metric: to_json_records(group.drop(columns="metric")) for metric, group in clusters.groupby(
        "metric", sort=False)}
    return {"method": attrs.get("method"), "n": attrs.get("n"), "seed": attrs.get("seed"),
            "alpha": attrs.get("alpha", ALPHA), "clusters": ranked, "pairwise": matrix}


def pairwise_tsv(pairwise: pd.DataFrame, clusters: pd.DataFrame) -> str:
    """Two TSV tables separated by one empty line: the ranked clusters, then the p-value matrix.

    The clusters have ``metric, rank, system, score, cluster, p_above``; the matrix is :func:`pairwise_matrix`'s:
    ``metric, system``, one column per system."""
    return to_tsv(clusters) + "\n" + to_tsv(pairwise_matrix(pairwise).reset_index())


def clusters_latex(corpus: pd.DataFrame, clusters: pd.DataFrame, pairwise: pd.DataFrame, *,
                   signatures: Mapping[str, str] | None = None, within=None) -> str:
    """A booktabs LaTeX corpus table where each score carries its significance cluster as a superscript.

    Systems × metrics, as :func:`latex_table`; a score reads ``33.12$^{(1)}$``: 1 = the top cluster of that metric; a
    system opens a new cluster when it is significantly worse than the system ranked directly above it
    (:func:`mtdiag.analysis.significance.ranked_clusters`). A metric without a direction has no clusters. ``within``
    (the report) names imported metrics and their directions."""
    cluster = clusters.set_index(["system", "metric"])["cluster"]
    metrics = list(corpus.columns)
    infos = {m: _info(pairwise, m, within) for m in metrics}
    arrows = {True: r" $\uparrow$", False: r" $\downarrow$", None: ""}
    header = ["System"] + [latex_escape(infos[m][0]) + arrows[infos[m][1]] for m in metrics]
    lines = [r"\begin{tabular}{l" + "r" * len(metrics) + "}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    for system, row in corpus.iterrows():
        cells = [latex_escape(system)]
        for m in metrics:
            text = _latex_cell(row[m], None, system, m, infos[m][2])
            if (system, m) in cluster.index and text != "--":
                text += f"$^{{({int(cluster[(system, m)])})}}$"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines.append(r"\bottomrule")
    attrs = pairwise.attrs
    unit = "resamples" if attrs.get("method", "bs") == "bs" else "trials"
    note = (f"$^{{(k)}}$: significance cluster (1 = best); a new cluster starts below a system that is significantly "
            f"better than the next ($p < {attrs.get('alpha', ALPHA)}$, {METHODS[attrs.get('method', 'bs')]}, "
            f"{attrs.get('n')} {unit}).")
    lines.append(r"\multicolumn{" + str(len(metrics) + 1) + r"}{l}{\footnotesize " + note + r"} \\")
    lines.append(r"\end{tabular}")
    signatures = signatures or {}
    comments = [f"% {m}: {signatures[m]}".replace("\n", " ") for m in metrics if m in signatures]
    return "\n".join(comments + lines)
