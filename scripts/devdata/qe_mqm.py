"""WMT21 MQM with error spans from the WMT23 QE shared task's task-2 training data (WMT-QE-Task/wmt-qe-2023-data,
``task_2/train``), put back onto the WMT21 test sets: newstest2021 en-ru, en-de, zh-en (sources, references and
outputs from wmt-conference/wmt21-news-systems ``txt/``) and the WMT21 TED talks en-ru (texts from the QE rows
themselves: the TED test set is not in wmt21-news-systems).

What the QE files are (their notebook ``task_2/preprocessing/process_task2_from_mqm.ipynb``): the WMT21 MQM error
rows (Google's for en-de and zh-en, Unbabel's for en-ru) reduced to character spans in the target with a severity
(minor/major; every other severity became major) — no category; errors with no span in the target (omissions marked
in the source, whole-segment non-translations) were dropped; runs of spaces in the texts were collapsed. Columns
``mt_system, doc_id, seg_id, annotator_id, source, target, start_ids, end_ids, errors`` where ``doc_id`` is the
document name and ``seg_id`` the segment's index *within* the document. The notebook split a key on ``_``, so for a
document whose name has an underscore (``seattle_times.253485`` in en-ru) the name is cut in two and the rater is
lost: those rows are repaired here (the name rejoined; the rater, lost, set to the file's only rater, ``rater1``).
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass

import numpy as np

from common import (Repo, TestSet, char_aligner, clean_line, csv_quote, csv_unquote, mark_span, norm_ws,
                    quoted_offsets, skeleton, typographic)

LANG = {"en-ru": ("en", "ru"), "en-de": ("en", "de"), "zh-en": ("zh", "en")}
NEWS_QE = {
    "en-ru": "task_2/train/2021_en-ru_processed.tsv",
    "en-de": "task_2/train/2021_en-de_processed.tsv",
    "zh-en": "task_2/train/2021_zh-en_processed.tsv",
}
TED_QE = {"en-ru": "task_2/train/2021_TED_en-ru_processed.tsv"}
# Google's official segment scores (category weights, several raters where there were) where they are in the snapshot
GOOGLE_SEG = {
    "en-de": "newstest2021/ende/mqm_newstest2021_ende.avg_seg_scores.tsv",
    "zh-en": "newstest2021/zhen/mqm_newstest2021_zhen.avg_seg_scores.tsv",
}
ALIASES = {"Nemo": "NVIDIA-NeMo"}  # the MQM releases' name -> wmt21-news-systems' file name
SEVERITY = {"minor": "Minor", "major": "Major"}


@dataclass
class QERow:
    system: str  # MT system, or "ref.X" for a rated reference
    doc: str
    idx: int | None  # 1-based index within the document (None: lost, see read_qe)
    rater: str
    source: str  # CSV quoting removed
    target: str  # CSV quoting removed
    quoted: bool  # the target was CSV-quoted in the file: its offsets count the quotes
    spans: list  # (start, end, severity): offsets into the target as the file has it (quotes included)
    line: int  # line in the QE file
    repaired: bool

    def key(self):
        """The segment within its document: its index, else (index lost) its source text."""
        return (self.doc, self.idx) if self.idx is not None else (self.doc, "#" + norm_ws(self.source))


def qe_system_name(raw: str) -> str:
    name = raw.strip()
    name = name[4:] if name.startswith("hyp.") else name
    match = re.fullmatch(r"ref[.\-_]?([A-Z])", name)
    return f"ref.{match.group(1)}" if match else name


def read_qe(repo: Repo, path: str) -> tuple[list[QERow], dict]:
    """The rows of one QE task-2 file, with the underscore-split document names repaired."""
    lines = repo.read_lines(path)
    rows, info = [], collections.Counter()
    start = 1 if lines and lines[0].startswith("mt_system\t") else 0
    raters = collections.Counter()
    pending = []
    for number, raw in enumerate(lines[start:], start=start + 1):
        f = raw.split("\t")
        assert len(f) == 9, (path, number, len(f))
        system, doc, idx, rater = qe_system_name(f[0]), f[1].strip(), f[2].strip(), f[3].strip()
        repaired = False
        if not idx.isdigit():  # "seattle_times.253485" split into "seattle" / "times.253485"; the rater is lost
            if rater.isdigit():
                doc, idx, rater = f"{doc}_{idx}", rater, ""
            else:  # two underscores ("jingji_guancha_bao-zh-01.10329"): the index is lost too
                doc, idx, rater = f"{doc}_{idx}_{rater}", "", ""
                info["rows_index_lost"] += 1
            repaired = True
            info["repaired_rows"] += 1
        starts, ends, sevs = f[6].split(), f[7].split(), f[8].split()
        assert len(starts) == len(ends) == len(sevs), (path, number)
        spans = []
        for s, e, sev in zip(starts, ends, sevs):
            if sev == "no-error" or s == "-1":
                continue
            assert sev in SEVERITY, (path, number, sev)
            spans.append((int(s), int(e), SEVERITY[sev]))
        source, source_quoted = csv_unquote(f[4])
        target, quoted = csv_unquote(f[5])
        info["targets_csv_quoted"] += quoted
        info["sources_csv_quoted"] += source_quoted
        row = QERow(system, doc, int(idx) if idx else None, rater, source, target, quoted, spans, number, repaired)
        rows.append(row)
        if rater:
            raters[rater] += 1
        else:
            pending.append(row)
    if pending:  # the file's only rater, else "lost1", "lost2", ... (each row a rating of its own)
        only = raters.most_common(1)[0][0] if len(raters) == 1 else None
        seen = collections.Counter()
        for row in pending:
            seen[row.system, row.key()] += 1
            row.rater = only or f"lost{seen[row.system, row.key()]}"
        info["repaired_rater"] = only or "lost<n>"
    info["rows"] = len(rows)
    info["raters"] = len(raters)
    return rows, dict(info)


def squeeze(text: str) -> str:
    """Text compared without any whitespace (the MQM releases dropped the spaces of some Chinese sources)."""
    return "".join(text.split())


def align_docs(rows: list[QERow], src: list[str]) -> tuple[dict, dict]:
    """The 0-based test-set line of every segment of the QE rows (``QERow.key``). Each document is placed where
    most of its indexed segments' sources match consecutive lines (compared without whitespace); its segments then
    go to their index's line, each one's source compared with the line's (equal, equal without whitespace, or
    different: the MQM release edited a few sources, e.g. ``U.N.`` -> ``UN`` in en-de; the outputs are checked
    later, row by row). A segment whose index was lost goes to the line of equal source nearest the document."""
    where = collections.defaultdict(list)
    for i, line in enumerate(src):
        where[squeeze(line)].append(i)
    by_doc = collections.defaultdict(dict)
    for row in rows:
        by_doc[row.doc].setdefault(row.key(), row)
    placed, report = {}, collections.Counter()
    for doc, segs in by_doc.items():
        votes = collections.Counter(i - (row.idx - 1) for row in segs.values() if row.idx is not None
                                    for i in where.get(squeeze(row.source), []))
        begin = votes.most_common(1)[0][0] if votes else None
        for key, row in segs.items():
            if row.idx is not None and begin is not None:
                line = begin + row.idx - 1
                ok = 0 <= line < len(src)
            else:
                found = where.get(squeeze(row.source), [])
                anchor = begin if begin is not None else (found[0] if len(found) == 1 else None)
                line = min(found, key=lambda i: abs(i - anchor)) if found and anchor is not None else None
                ok = line is not None
                report["segments_placed_by_source_only"] += ok
            if not ok:
                report["segments_unplaced"] += 1
                continue
            placed[key] = line
            report["segments_placed"] += 1
            if src[line] == row.source:
                report["source_identical"] += 1
            elif norm_ws(src[line]) == norm_ws(row.source):
                report["source_equal_modulo_whitespace"] += 1
            elif squeeze(src[line]) == squeeze(row.source):
                report["source_equal_without_spaces"] += 1
            else:
                report["source_edited"] += 1
        report["docs"] += 1
    return placed, dict(report)


def on_word_boundaries(text: str, a: int, b: int) -> bool:
    """Whether a span starts and ends at word boundaries (no letter or digit on both sides of either end)."""
    def boundary(i):
        return i <= 0 or i >= len(text) or not (text[i - 1].isalnum() and text[i].isalnum())
    return boundary(a) and boundary(b)


def severity_score(spans_by_rater: dict[str, list]) -> float:
    """Minus the severity-weighted count of errors (major 5, minor 1), averaged over raters (Freitag et al. 2021's
    weights without the category rules, which these rows cannot apply)."""
    return -float(np.mean([sum(5.0 if sev == "Major" else 1.0 for _, _, sev in spans)
                           for spans in spans_by_rater.values()])) + 0.0


def build_set(rows: list[QERow], lines: list[int], key_of, src_of, texts: dict[str, list[str]], refs: set[str],
              prefix: str, pair: str, doc_of) -> tuple[TestSet, dict]:
    """A folder of the rated segments ``lines`` (keys into ``texts``): every rated system and reference, its output
    the real one from ``texts`` where there is one (the QE target checked equal modulo whitespace and its spans
    moved onto it), else the QE target itself."""
    seg_of = {line: i + 1 for i, line in enumerate(lines)}
    report = collections.Counter()
    qe_text = collections.defaultdict(dict)  # system -> seg -> QE target
    kept = []
    for row in rows:
        line = key_of(row)
        if line is None or line not in seg_of:
            report["rows_unplaced"] += 1
            continue
        qe_text[row.system].setdefault(seg_of[line], row.target)
        kept.append((row, seg_of[line]))
    n = len(lines)
    out_texts: dict[str, list[str]] = {}
    from_qe = collections.Counter()
    for system in sorted(qe_text):
        real = texts.get(system)
        col = []
        for seg in range(1, n + 1):
            if real is not None:
                col.append(real[lines[seg - 1]])
            elif seg in qe_text[system]:
                col.append(clean_line(qe_text[system][seg]))
                from_qe[system] += 1
            else:
                col.append(None)
        out_texts[system] = col
    missing = {s: [i for i, t in enumerate(col) if t is None] for s, col in out_texts.items()}
    missing = {s: v for s, v in missing.items() if v}
    # a rated output the QE file has no text for (a QE-only system missing a segment): drop those segments, or those
    # systems, whichever loses fewer outputs
    lost_lines = sorted({i for v in missing.values() for i in v})
    drop_lines = len(lost_lines) * len(out_texts) <= len(missing) * n
    dropped_systems = [] if drop_lines else sorted(missing)
    report["segments_dropped_for_missing_outputs"] = len(lost_lines) if drop_lines else 0
    report["systems_dropped_for_missing_outputs"] = len(dropped_systems)
    if drop_lines and lost_lines:
        keep = [i for i in range(n) if i not in set(lost_lines)]
        renumber = {i + 1: j + 1 for j, i in enumerate(keep)}
        kept = [(row, renumber[seg]) for row, seg in kept if seg in renumber]
        out_texts = {s: [col[i] for i in keep] for s, col in out_texts.items()}
        lines = [lines[i] for i in keep]
        n = len(lines)
    missing = {s: len(v) for s, v in missing.items()}
    # verify the QE targets against the outputs and move the spans
    errors, scores, clean_rows = [], collections.defaultdict(dict), []
    check = collections.Counter()
    per_system_check = collections.defaultdict(collections.Counter)
    for row, seg in kept:
        out = out_texts[row.system][seg - 1]
        if out is None:
            continue
        if row.system in texts:  # the real output: the QE target must be it, modulo whitespace
            status = "identical" if out == row.target else "whitespace" if norm_ws(out) == norm_ws(row.target) \
                else "typographic" if norm_ws(typographic(out)) == norm_ws(typographic(row.target)) \
                else "punctuation" if skeleton(out) == skeleton(row.target) else "differs"
            check[status] += 1
            per_system_check[row.system][status] += 1
            if status == "differs":
                continue  # the rating is of another text: left out
        else:  # the QE target is the output (CSV quoting removed, line breaks and tabs made spaces)
            assert out == clean_line(row.target)
            status = "identical"
        # offsets count the characters of the target as rated (CSV-quoted where the file quoted it): to the
        # target's characters, then (when it is not the output itself) by a character alignment onto the output's
        rated = csv_quote(row.target) if row.quoted else row.target
        to_target = quoted_offsets(row.target) if row.quoted else list(range(len(row.target) + 1))
        move = (lambda a, b: (a, b)) if status == "identical" else char_aligner(out, row.target)
        spans = []
        for s, e, sev in row.spans:
            if s > e:  # reversed: an error kept, with no extent, where it starts
                report["spans_reversed_kept_empty"] += 1
                e = s
            if e > len(rated):  # past the end (en-ru: by one or two characters): clipped to the end
                report["spans_clipped_at_end"] += 1
                e = len(rated)
                s = min(s, e)
            a, b = move(to_target[s], to_target[e])
            if b <= a:
                report["spans_empty"] += 1
            spans.append((a, b, sev))
            report["spans_on_word_boundaries"] += on_word_boundaries(out, a, b)
        report["spans"] += len(spans)
        if row.rater in scores[row.system, seg]:
            report["duplicate_ratings"] += 1  # the same rater twice: the first is kept
            continue
        scores[row.system, seg][row.rater] = spans
        base = {"system": row.system, "doc": doc_of(row), "doc_id": row.idx or "", "seg_id": seg, "rater": row.rater,
                "source": clean_line(row.source)}
        if not spans:
            errors.append({**base, "target": out, "category": "No-error", "severity": "No-error"})
        for a, b, sev in spans:
            errors.append({**base, "target": mark_span(out, a, b), "category": "", "severity": sev})
    ts = TestSet(pair=pair, prefix=prefix, src=[clean_line(src_of(line)) for line in lines], refs={}, systems={})
    for system, col in out_texts.items():
        if system in dropped_systems:
            continue
        if system.startswith("ref."):
            ts.refs[system[4:]] = col
        else:
            ts.systems[system] = col
    for name in refs:  # unrated references of the test set
        if f"ref.{name}" not in out_texts:
            ts.refs[name] = [texts[f"ref.{name}"][line] for line in lines]
    ts.refs = dict(sorted(ts.refs.items()))
    ts.mqm_errors = [e for e in errors if e["system"] not in dropped_systems]
    ts.mqm_seg = sorted(((s, seg, severity_score(by_rater)) for (s, seg), by_rater in scores.items()
                         if s not in dropped_systems), key=lambda r: (r[0], r[1]))
    stats = {"lines": lines, "dropped_systems": dropped_systems, "check": dict(check),
             "per_system_check": {k: dict(v) for k, v in per_system_check.items()},
             "report": dict(report), "missing_outputs": missing, "from_qe": dict(from_qe)}
    return ts, stats


def news_set(pair: str, qe: Repo, news: Repo, google: Repo | None) -> TestSet:
    sl, tl = LANG[pair]
    rows, info = read_qe(qe, NEWS_QE[pair])
    base = "txt"
    src = news.read_lines(f"{base}/sources/newstest2021.{pair}.src.{sl}")
    texts = {}
    for path in news.ls(f"{base}/system-outputs/"):
        m = re.fullmatch(rf".*/newstest2021\.{pair}\.hyp\.(.+)\.{tl}", path)
        if m:
            texts[m.group(1)] = news.read_lines(path)
    refs = set()
    for path in news.ls(f"{base}/references/"):
        m = re.fullmatch(rf".*/newstest2021\.{pair}\.ref\.(.+)\.{tl}", path)
        if m:
            texts[f"ref.{m.group(1)}"] = news.read_lines(path)
            refs.add(m.group(1))
    for name, lines in texts.items():
        assert len(lines) == len(src), (name, len(lines), len(src))
    for row in rows:
        row.system = ALIASES.get(row.system, row.system) if ALIASES.get(row.system) in texts else row.system
    placed, align = align_docs(rows, src)
    # the segments rated for the MT systems (in en-de the references C and D were rated on nearly every segment)
    lines = sorted({placed[r.key()] for r in rows if r.key() in placed and not r.system.startswith("ref.")})
    ts, stats = build_set(rows, lines, lambda r: placed.get(r.key()), lambda i: src[i], texts, refs,
                          f"newstest2021.{pair}", pair, lambda r: r.doc)
    lines = stats["lines"]
    doc_at = {line: key[0] for key, line in placed.items()}
    first = {}
    for line in lines:
        first.setdefault(doc_at[line], line)
    # doc_id: the index within the document (counted from its first rated line where the file lost it)
    index_at = {line: key[1] for key, line in placed.items() if isinstance(key[1], int)}
    ts.segments = [{"seg_id": i + 1, "orig_seg_id": line + 1, "doc": doc_at[line],
                    "doc_id": index_at.get(line, line - first[doc_at[line]] + 1)} for i, line in enumerate(lines)]
    stats["align"] = align
    stats["qe_info"] = info
    stats["n_src_lines"] = len(src)
    stats["unrated_systems_in_release"] = sorted(s for s in texts if not s.startswith("ref.") and s not in ts.systems)
    stats["qe_scores"] = list(ts.mqm_seg)
    if google is not None and pair in GOOGLE_SEG:
        official = read_google_seg(google, GOOGLE_SEG[pair])
        seg_of = {line + 1: i + 1 for i, line in enumerate(lines)}
        rated_official = {k for k, v in official.items() if v is not None}
        stats["google_rated_lines"] = len({line for _, line in rated_official})
        stats["google_lines_not_in_qe"] = len({line for _, line in rated_official} - set(seg_of))
        names = set(ts.systems) | {f"ref.{r}" for r in ts.refs}
        ts.mqm_seg = sorted(((s, seg_of[line], v) for (s, line), v in official.items()
                             if line in seg_of and s in names), key=lambda r: (r[0], r[1]))
        stats["google_systems_not_in_set"] = sorted({s for s, _ in official} - names)
    ts.stats = stats
    ts.stats["repos"] = [qe.cite(), news.cite()]
    if google is not None and pair in GOOGLE_SEG:
        ts.stats["repos"].append(google.cite())
    return ts


def read_google_seg(repo: Repo, path: str) -> dict[tuple[str, int], float | None]:
    """Google's ``*.avg_seg_scores.tsv``: ``system<TAB>score seg_id`` (score ``None`` when not rated)."""
    out = {}
    for raw in repo.read_lines(path)[1:]:
        system, rest = raw.split("\t")
        score, seg = rest.split(" ")
        system = qe_system_name(system)
        system = ALIASES.get(system, system)
        out[system, int(seg)] = None if score == "None" else float(score)
    return out


def ted_set(pair: str, qe: Repo) -> TestSet:
    rows, info = read_qe(qe, TED_QE[pair])
    docs = sorted({r.doc for r in rows}, key=lambda d: int(d.rsplit("-", 1)[1]))
    keys = sorted({(r.doc, r.idx) for r in rows}, key=lambda k: (docs.index(k[0]), k[1]))
    line_of = {k: i for i, k in enumerate(keys)}
    sources = collections.defaultdict(set)
    for r in rows:
        sources[line_of[r.doc, r.idx]].add(r.source)
    src = [sorted(sources[i])[0] for i in range(len(keys))]
    ts, stats = build_set(rows, list(range(len(keys))), lambda r: line_of[r.doc, r.idx], lambda i: src[i], {}, set(),
                          f"tedtalks2021.{pair}", pair, lambda r: r.doc)
    keys = [keys[i] for i in stats["lines"]]
    ts.segments = [{"seg_id": i + 1, "doc": k[0], "doc_id": k[1]} for i, k in enumerate(keys)]
    stats["qe_info"] = info
    stats["sources_differing_across_rows"] = sum(len(v) > 1 for v in sources.values())
    stats["qe_scores"] = list(ts.mqm_seg)
    ts.stats = stats
    ts.stats["repos"] = [qe.cite()]
    return ts
