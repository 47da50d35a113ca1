"""WMT24 general MT, ESA (Error Span Annotation, Kocmi et al. 2024) with error spans, from
wmt-conference/wmt24-news-systems: the human evaluation ``humeval/esa_generalMT2024_wave*.csv`` and the texts the
raters saw, ``txt/`` (sources, ``refA``, every system's output; line 0 of every file is a canary line, which the
CSVs' ``line_id`` counts, as ``humeval/merge_to_jsonl.py`` reads them).

Kept, as the repository's own scripts keep them (``humeval/tools.py`` ``load_data``, ``merge_to_jsonl.py``): rows of
type ``TGT`` (``BAD`` rows are attention checks on degraded outputs), documents not ``#bad``, ``#dup``,
``#incomplete`` or tutorials; a rater who rated the same output twice: the last answer (``end_time``). Only the
rated segments are kept, with every system that has an output for them (all of ``txt/system-outputs/PAIR/``, but
``ONLINE-empty``: WMT24's deliberately empty control system, which nobody rated).

Spans: ``start_i``/``end_i`` are character offsets into the output as ``txt/`` has it (since the repository's
2024-11-29 fix, ``README.md``), ``end_i`` *inclusive* (checked: read so, 88.5% of en-cs spans start and end on word
boundaries, against 27.7% read as exclusive): written ``end = end_i + 1``. Offsets count code points, and many en-hi
spans stop inside a character cluster (740 of 2079 end just before a combining vowel sign or virama): a span's end
is moved over the combining marks (Unicode Mn/Mc) that follow it, and a start on a mark back to its base, so no
span splits a cluster. A span whose offsets are ``"missing"`` is an error the rater marked as missing content with
no place in the output (Appraise's [MISSING] token): it has no character span, so it is kept apart, as
``omissions`` (its severities) in the row, not in ``error_spans``. Severity ``undecided`` (11 spans in waves 2–3)
is written ``minor`` with ``original_severity: undecided`` (mtdiag's weighting schemes know minor/major/critical).
"""

from __future__ import annotations

import collections
import csv
import io
import json
import unicodedata

from common import Missing, Repo, TestSet, clean_line

L3 = {"eng": "en", "ces": "cs", "hin": "hi", "zho": "zh", "jpn": "ja", "rus": "ru", "ukr": "uk", "deu": "de",
      "isl": "is", "spa": "es"}
COLUMNS = ["user", "system", "line", "type", "l1", "l2", "score", "doc", "unknown", "spans", "t0", "t1"]
EXCLUDED_SYSTEMS = {"ONLINE-empty"}


def read_waves(repo: Repo) -> tuple[list[dict], dict]:
    """Every row of the ESA waves present in the snapshot (the ones of 4 MiB and more are not)."""
    rows, info = [], {"waves_read": [], "waves_missing": []}
    for wave in range(4):
        path = f"humeval/esa_generalMT2024_wave{wave}.csv"
        try:
            text = repo.read_text(path)
        except Missing:
            info["waves_missing"].append(path)
            continue
        info["waves_read"].append(path)
        for cells in csv.reader(io.StringIO(text)):
            row = dict(zip(COLUMNS, cells))
            row["wave"] = wave
            rows.append(row)
    return rows, info


def build(pair: str, repo: Repo, rows: list[dict], wave_info: dict) -> TestSet:
    report = collections.Counter()
    src = repo.read_lines(f"txt/sources/{pair}.txt")
    docs = [line.split("\t") for line in repo.read_lines(f"txt/documents/{pair}.docs")]
    ref = repo.read_lines(f"txt/references/{pair}.refA.txt")
    systems = {}
    for path in repo.ls(f"txt/system-outputs/{pair}/"):
        name = path.rsplit("/", 1)[1][:-4]
        if name in EXCLUDED_SYSTEMS:
            report["systems_excluded"] += 1
            continue
        systems[name] = repo.read_lines(path)
    for name, lines in [("src", src), ("docs", docs), ("refA", ref), *systems.items()]:
        assert len(lines) == len(src), (pair, name, len(lines), len(src))
    for lines in [src, ref, *systems.values()]:  # a tab or line break inside a segment: one space (offsets hold)
        for i, line in enumerate(lines):
            if line != clean_line(line):
                lines[i] = clean_line(line)
                report["lines_with_tab_or_break_made_space"] += 1
    texts = {**systems, "refA": ref}
    # the rows of this pair, filtered as humeval/tools.py does
    latest = {}
    for row in rows:
        if f"{L3[row['l1']]}-{L3[row['l2']]}" != pair:
            continue
        report["rows"] += 1
        doc = row["doc"]
        if row["type"] != "TGT" or "tutorial" in row["system"] or "-tutorial" in doc or doc.endswith(
                ("#bad", "#dup", "#incomplete")) or doc == "canary":
            report["rows_filtered_qc"] += 1
            continue
        line = int(row["line"])
        assert docs[line][1] == doc, (pair, line, docs[line], doc)  # merge_to_jsonl.py's check
        if row["system"] not in texts:
            report["rows_system_without_output"] += 1
            continue
        key = (row["user"], row["system"], line)
        if key in latest:
            report["rows_rerated_latest_kept"] += 1
            if float(row["t1"]) < float(latest[key]["t1"]):
                continue
        latest[key] = row
    rated_lines = sorted({line for _, _, line in latest})
    seg_of = {line: i + 1 for i, line in enumerate(rated_lines)}
    ts = TestSet(pair=pair, prefix=f"wmttest2024.{pair}", src=[src[i] for i in rated_lines],
                 refs={"A": [ref[i] for i in rated_lines]},
                 systems={name: [lines[i] for i in rated_lines] for name, lines in sorted(systems.items())})
    ts.segments = [{"seg_id": seg_of[line], "orig_seg_id": line, "doc": docs[line][1], "domain": docs[line][0]}
                   for line in rated_lines]
    esa = []
    for (user, system, line), row in sorted(latest.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        out = texts[system][line]
        spans, omissions = [], []
        for item in json.loads(row["spans"]):
            severity = item.get("severity")
            start, end = item.get("start_i"), item.get("end_i")
            if start == "missing" or end == "missing":
                omissions.append(severity)
                report["spans_missing_omissions"] += 1
                continue
            span = {"start": int(start), "end": int(end) + 1, "severity": severity}  # end_i is inclusive
            if severity == "undecided":
                span["severity"], span["original_severity"] = "minor", "undecided"
                report["spans_undecided_as_minor"] += 1
            if span["end"] < span["start"]:
                span["start"], span["end"] = span["end"], span["start"]
                report["spans_reversed_swapped"] += 1
            if span["end"] > len(out):
                report["spans_clipped_at_end"] += 1
                span["end"] = len(out)
                span["start"] = min(span["start"], span["end"])
            # never split a character cluster: an end just before a combining mark (Unicode Mn/Mc: 740 of 2079
            # en-hi spans end before a vowel sign) moves over the marks, a start on one moves back
            a, b = span["start"], span["end"]
            while 0 < a < len(out) and unicodedata.category(out[a]) in ("Mn", "Mc"):
                a -= 1
            while b < len(out) and b > a and unicodedata.category(out[b]) in ("Mn", "Mc"):
                b += 1
            if (a, b) != (span["start"], span["end"]):
                report["spans_extended_to_whole_characters"] += 1
                span["start"], span["end"] = a, b
            if span["end"] == span["start"]:
                report["spans_empty"] += 1
            spans.append(span)
            report["spans"] += 1
            report["spans_on_word_boundaries"] += on_word_boundaries(out, span["start"], span["end"])
        score = float(row["score"])
        assert 0 <= score <= 100, (pair, row)
        esa.append({"system": "ref.A" if system == "refA" else system, "seg_id": seg_of[line], "rater": user,
                    "score": score, "error_spans": spans, "omissions": omissions, "doc": row["doc"],
                    "domain": docs[line][0], "orig_seg_id": line, "wave": row["wave"]})
    ts.esa = esa
    report["rated_outputs"] = len({(r["system"], r["seg_id"]) for r in esa})
    report["ratings"] = len(esa)
    ts.stats = {"report": dict(report), "waves": wave_info, "n_lines": len(src) - 1,
                "rated_systems": sorted({r["system"] for r in esa}), "repos": [repo.cite()],
                "per_system": per_system(esa)}
    return ts


def on_word_boundaries(text: str, a: int, b: int) -> bool:
    def boundary(i):
        return i <= 0 or i >= len(text) or not (text[i - 1].isalnum() and text[i].isalnum())
    return boundary(a) and boundary(b)


def per_system(esa: list[dict]) -> dict[str, dict]:
    """Per system: the mean ESA score over its ratings, and WMT24's system score (humeval/calculate_clusters.py:
    the mean of a rater's repeated ratings of an output, then the mean per domain, then the mean of the domains)."""
    by_output = collections.defaultdict(list)
    for r in esa:
        by_output[r["system"], r["seg_id"], r["domain"]].append(r["score"])
    by_domain = collections.defaultdict(lambda: collections.defaultdict(list))
    for (system, _, domain), scores in by_output.items():
        by_domain[system][domain].append(sum(scores) / len(scores))
    out = {}
    for system, domains in by_domain.items():
        flat = [s for v in domains.values() for s in v]
        out[system] = {"outputs": len(flat), "mean": sum(flat) / len(flat),
                       "macro_domains": sum(sum(v) / len(v) for v in domains.values()) / len(domains),
                       "spans_per_output": sum(len(r["error_spans"]) for r in esa if r["system"] == system) /
                       max(1, sum(1 for r in esa if r["system"] == system))}
    return out
