"""WMT23 general MT, MQM with error spans: Google's side-by-side re-annotation with three ratings per segment
(google/wmt-mqm-human-evaluation ``generalMT2023/{ende,zhen}/sxs_mqm_generalMT2023_*.3ratingsPerSegment.tsv.tar.gz``,
released 2025-09-24), put onto the WMT23 test sets (wmt-conference/wmt23-news-systems ``txt/``: sources, ``refA`` and
every system's output).

Why these and not the WMT23 MQM release itself: ``mqm_generalMT2023_{ende,zhen}.tsv`` (and the plain
``mqm_*.3ratingsPerSegment`` archive for en-de and zh-en) are 4 MiB or more, so fetched snapshots lack them, and no
other public copy was found; these side-by-side files are the WMT23 MQM data with spans that the snapshot has. They
are the same MQM typology and severities (Google's template; Marot's format), on a subset of the WMT23 segments
(en-de 104 paragraphs, zh-en 377 segments), each output rated by three raters who saw two outputs of the same source
side by side. The system column names the rated output; ``X_with_Y`` is output X rated beside Y (en-de rates
GPT4-5shot twice, beside refA and beside ONLINE-W): such a row's rater is written ``RATER@with_Y``, so that the two
contexts stay two ratings.

Rows of severity ``HOTW-test`` (categories ``Found``/``Missed``) are Google's attention checks: the rater saw an
output with an injected error, not the real one, so every row of that (output, rater) is left out. Category and
severity are kept as released; the segment score of ``mqm.seg.tsv`` is the ``wmt`` weighting of mtdiag
(docs/inputs.md "Error weights": major 5, minor 1, minor Fluency/Punctuation 0.1, Non-translation 25, Source issue
and Creative Reinterpretation 0), minus the weighted sum per rater, averaged over the raters.
"""

from __future__ import annotations

import collections
import csv
import io
import re
import tarfile

from common import Repo, TestSet, char_aligner, clean_line, mark_span, norm_ws, typographic

PAIRS = {"en-de": "ende", "zh-en": "zhen"}
COLUMNS = ["system", "doc", "docSegId", "globalSegId", "rater", "source", "target", "category", "severity"]


def read_sxs(repo: Repo, pair: str) -> list[dict]:
    short = PAIRS[pair]
    data = repo.read_bytes(f"generalMT2023/{short}/sxs_mqm_generalMT2023_{short}.3ratingsPerSegment.tsv.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        member = next(m for m in tar.getmembers() if m.isfile() and m.name.endswith(".tsv"))
        text = tar.extractfile(member).read().decode("utf-8")
    lines = text.rstrip("\n").split("\n")
    header = lines[0].split("\t")
    rows = []
    for raw in lines[1:]:
        cells = raw.split("\t")
        rows.append(dict(zip(header, cells)))
    assert all(c in header for c in COLUMNS), header
    return rows


def unmark(text: str) -> str:
    return text.replace("<v>", "").replace("</v>", "")


def wmt_weight(category: str, severity: str) -> float:
    """mtdiag's ``wmt`` scheme (mtdiag/io/error_weights.py), for the rows of these files."""
    def norm(x):
        return re.sub(r"[\W_]+", "", x.casefold())
    cat, sev = [norm(level) for level in category.split("/") if norm(level)], norm(severity)
    if sev in ("noerror", "neutral", "hotwtest") or cat[:1] == ["noerror"]:
        return 0.0
    if cat[:1] == ["nontranslation"]:
        return 25.0
    if cat[:1] == ["sourceissue"] or cat[:2] == ["accuracy", "creativereinterpretation"]:
        return 0.0
    if sev == "minor":
        return 0.1 if cat[:2] == ["fluency", "punctuation"] else 1.0
    if sev == "major":
        return 5.0
    if sev == "critical":
        return 25.0
    if sev == "trivial":
        return 0.1
    raise ValueError((category, severity))


def build(pair: str, mqm: Repo, wmt23: Repo) -> TestSet:
    sl, tl = pair.split("-")
    rows = read_sxs(mqm, pair)
    report = collections.Counter(rows=len(rows))
    src = wmt23.read_lines(f"txt/sources/generaltest2023.{pair}.src.{sl}")
    texts = {}
    for path in wmt23.ls("txt/system-outputs/"):
        m = re.fullmatch(rf".*/generaltest2023\.{pair}\.hyp\.(.+)\.{tl}", path)
        if m:
            texts[m.group(1)] = wmt23.read_lines(path)
    refs = {}
    for path in wmt23.ls("txt/references/"):
        m = re.fullmatch(rf".*/generaltest2023\.{pair}\.ref\.ref(.+)\.{tl}", path)
        if m:
            refs[m.group(1)] = wmt23.read_lines(path)
            texts[f"ref{m.group(1)}"] = refs[m.group(1)]
    for name, lines in texts.items():
        assert len(lines) == len(src), (name, len(lines), len(src))
    # place every segment by its source (compared without whitespace); a source found on several lines goes to
    # the one nearest the previous segment's line
    where = collections.defaultdict(list)
    for i, line in enumerate(src):
        where["".join(line.split())].append(i)
    seg_src = {}
    for row in rows:
        seg_src.setdefault(int(row["globalSegId"]), unmark(row["source"]))
    placed, previous = {}, -1
    for gid in sorted(seg_src):
        found = where.get("".join(seg_src[gid].split()), [])
        assert found, (pair, gid)
        report["segments_source_ambiguous"] += len(found) > 1
        placed[gid] = min(found, key=lambda i: (i <= previous, abs(i - previous - 1)))
        report["segments_source_identical"] += src[placed[gid]] == seg_src[gid]
        previous = placed[gid]
    lines = sorted(set(placed.values()))
    assert len(lines) == len(placed), "two segments on one line"
    seg_of = {line: i + 1 for i, line in enumerate(lines)}
    # the ratings: (output, rater) with an attention check are left out whole
    hotw = {(r["system"], r["globalSegId"], r["rater"]) for r in rows if r["severity"] == "HOTW-test"}
    report["ratings_attention_check_left_out"] = len(hotw)
    check, per_system_check = collections.Counter(), collections.defaultdict(collections.Counter)
    errors, weights = [], collections.defaultdict(lambda: collections.defaultdict(float))
    done_check = set()
    for r in rows:
        if (r["system"], r["globalSegId"], r["rater"]) in hotw:
            report["rows_attention_check_left_out"] += 1
            continue
        base, _, beside = r["system"].partition("_with_")
        rater = f"{r['rater']}@with_{beside}" if beside else r["rater"]
        assert base in texts, (pair, base)
        line = placed[int(r["globalSegId"])]
        out = clean_line(texts[base][line])
        rated = unmark(r["target"])
        key = (base, line, rater)
        status = "identical" if rated == out else "whitespace" if norm_ws(rated) == norm_ws(out) \
            else "typographic" if norm_ws(typographic(rated)) == norm_ws(typographic(out)) else "differs"
        if key not in done_check:
            done_check.add(key)
            check[status] += 1
            per_system_check[base][status] += 1
        if status == "differs":
            report["rows_of_other_text_left_out"] += 1
            continue
        target = r["target"]
        if status != "identical" and "<v>" in target:
            start = target.index("<v>")
            end = target.index("</v>", start) - 3
            a, b = char_aligner(out, rated)(start, end)
            target = mark_span(out, a, b)
        elif status != "identical":
            target = out
        name = "ref.A" if base == "refA" else base
        weight = wmt_weight(r["category"], r["severity"])
        weights[name, seg_of[line]][rater] += weight
        report["errors"] += weight > 0
        report["errors_with_target_span"] += weight > 0 and "<v>" in target
        report["errors_with_source_span"] += weight > 0 and "<v>" not in target and "<v>" in r["source"]
        errors.append({"system": name, "doc": r["doc"], "doc_id": r["docSegId"], "seg_id": seg_of[line],
                       "rater": rater, "source": clean_line(r["source"]), "target": clean_line(target),
                       "category": r["category"], "severity": r["severity"]})
    ts = TestSet(pair=pair, prefix=f"generaltest2023.{pair}", src=[clean_line(src[i]) for i in lines],
                 refs={k: [clean_line(v[i]) for i in lines] for k, v in sorted(refs.items())},
                 systems={k: [clean_line(v[i]) for i in lines] for k, v in sorted(texts.items())
                          if not k.startswith("ref")})
    doc_of = {}
    for r in rows:
        doc_of.setdefault(placed[int(r["globalSegId"])], (r["doc"], r["docSegId"]))
    ts.segments = [{"seg_id": seg_of[line], "orig_seg_id": line + 1, "doc": doc_of[line][0],
                    "doc_id": doc_of[line][1]} for line in lines]
    ts.mqm_errors = errors
    ts.mqm_seg = sorted(((s, seg, -sum(by_rater.values()) / len(by_rater) + 0.0)
                         for (s, seg), by_rater in weights.items()), key=lambda x: (x[0], x[1]))
    raters = collections.Counter(len(v) for v in weights.values())
    ts.stats = {"report": dict(report), "check": dict(check),
                "per_system_check": {k: dict(v) for k, v in per_system_check.items()},
                "raters_per_output": dict(sorted(raters.items())), "n_src_lines": len(src),
                "rated_systems": sorted({s for s, _ in weights}), "repos": [mqm.cite(), wmt23.cite()]}
    return ts
