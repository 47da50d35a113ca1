"""Build mtdiag's development and held-out evaluation sets (issue 42) from fetched snapshots of public releases.

    /work/main/.venv/bin/python scripts/devdata/build.py --out /work/devdata [--mirror /work/.mirror]
        [--repo KEY=GITDIR ...] [--only NAME ...]

Fetches nothing: it reads the bare git snapshots the search tool's ``fetch`` leaves under ``--mirror``
(``/work/.mirror/OWNER+NAME/repo``), or the git directories given as ``--repo KEY=PATH`` (keys: see
``common.REPOS``). Writes one test-set folder per set (``dev/...`` may be fitted and tuned on; ``heldout/...`` must
not be), each with ``PROVENANCE.md``, and ``README.md`` / ``manifest.json`` at the top. Deterministic: the same
snapshots give the same bytes.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import esa24  # noqa: E402
import published  # noqa: E402
import qe_mqm  # noqa: E402
import sxs23  # noqa: E402
from common import MIRROR, REPOS, Missing, TestSet, find_repo  # noqa: E402

HELDOUT_WARNING = ("**HELD OUT.** This set is the check of issue 42: nothing may be fitted, tuned, selected or "
                   "thresholded on it (no feature choice, no early stopping, no calibration). Measure on it only, "
                   "once the choices are made on the dev sets.")
LICENCES = {
    "WMT-QE-Task/wmt-qe-2023-data": "no licence file; WMT QE shared-task data, released for research use",
    "wmt-conference/wmt21-news-systems": "no licence file; WMT test data and submissions, research use "
                                         "(humaneval/README.txt: \"provided for research purposes only\")",
    "wmt-conference/wmt23-news-systems": "no licence file; WMT test data and submissions, research use",
    "wmt-conference/wmt24-news-systems": "no licence file; WMT test data, submissions and human evaluation, "
                                         "research use",
    "google/wmt-mqm-human-evaluation": "Apache-2.0 (LICENSE)",
}

# name -> (split, builder key, pair)
SETS = {
    "dev/wmt21-news/en-ru": ("dev", "qe-news", "en-ru"),
    "dev/wmt21-ted/en-ru": ("dev", "qe-ted", "en-ru"),
    "dev/wmt21-news/en-de": ("dev", "qe-news", "en-de"),
    "dev/wmt21-news/zh-en": ("dev", "qe-news", "zh-en"),
    "dev/wmt24/en-hi": ("dev", "esa", "en-hi"),
    "heldout/wmt23-sxs/en-de": ("heldout", "sxs", "en-de"),
    "heldout/wmt23-sxs/zh-en": ("heldout", "sxs", "zh-en"),
    "heldout/wmt24/en-zh": ("heldout", "esa", "en-zh"),
    "heldout/wmt24/en-cs": ("heldout", "esa", "en-cs"),
    "heldout/wmt24/en-ja": ("heldout", "esa", "en-ja"),
}


def fmt(x, digits=3):
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def system_means(ts: TestSet) -> dict[str, float]:
    """Minus the mean MQM segment score per system (MQM sets), or the mean ESA score (ESA sets)."""
    by = collections.defaultdict(list)
    if ts.esa:
        return {s: v["mean"] for s, v in ts.stats["per_system"].items()}
    for system, _, score in ts.mqm_seg:
        if score is not None:
            by[system].append(score)
    return {s: -float(np.mean(v)) for s, v in by.items()}


def counts(ts: TestSet) -> dict:
    if ts.esa:
        rated = {(r["system"], r["seg_id"]) for r in ts.esa}
        spans = sum(len(r["error_spans"]) for r in ts.esa)
        ratings = len(ts.esa)
        raters = len({r["rater"] for r in ts.esa})
    else:
        rated = {(s, i) for s, i, v in ts.mqm_seg if v is not None}
        spans = sum(1 for e in ts.mqm_errors if ("<v>" in e["target"] or "<v>" in e["source"])
                    and sxs23.wmt_weight(e["category"], e["severity"]) > 0)  # errors with a span
        ratings = len({(e["system"], e["seg_id"], e["rater"]) for e in ts.mqm_errors})
        raters = len({e["rater"] for e in ts.mqm_errors})
    return {"segments": len(ts.src), "systems": len(ts.systems), "refs": sorted(ts.refs),
            "rated_systems": len({s for s, _ in rated}), "rated_outputs": len(rated), "ratings": ratings,
            "raters": raters, "spans": spans}


def table(rows: list[list], header: list[str]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def compare_block(ours: dict[str, float], ours_higher: bool, theirs: dict[str, float], theirs_higher: bool,
                  rename: dict[str, str], label: str, ours_label: str, theirs_label: str = "published") -> str:
    """Our per-system figure beside a published one (each as it is), and their agreement (both turned so that
    higher is better)."""
    theirs = {rename.get(k, k): v for k, v in theirs.items() if v is not None}
    if not theirs:
        return f"{label} not found in the snapshot.\n"
    common = sorted(set(ours) & set(theirs), key=lambda s: -theirs[s] if theirs_higher else theirs[s])
    rows = [[s, round(ours[s], 3), round(theirs[s], 3)] for s in common]
    agree = published.agreement({k: v if ours_higher else -v for k, v in ours.items()},
                                {k: v if theirs_higher else -v for k, v in theirs.items()})
    return (f"{label}\n\n" + table(rows, ["system", ours_label, theirs_label]) +
            f"\n\nAgreement on {agree.get('systems')} systems: Pearson {fmt(agree.get('pearson', float('nan')))}, "
            f"Spearman {fmt(agree.get('spearman', float('nan')))}, system pairs ordered alike "
            f"{agree.get('pairs_agree', '-')}.\n")


def provenance(name: str, split: str, kind: str, pair: str, ts: TestSet, repos: dict) -> str:
    c = counts(ts)
    st = ts.stats
    lines = [f"# {name}: {pair}, {'ESA' if kind == 'esa' else 'MQM'} — {split}", ""]
    if split == "heldout":
        lines += [HELDOUT_WARNING, ""]
    lines += ["Built by `scripts/devdata/build.py` (mtdiag repository, branch data42) from these snapshots:", ""]
    for cite in st["repos"]:
        repo = cite.split(" @ ")[0].removeprefix("github.com/")
        lines.append(f"- {cite} — licence: {LICENCES.get(repo, '?')}")
    lines += ["", "## Contents", "",
              table([[c["segments"], c["systems"], ", ".join(c["refs"]), c["rated_systems"], c["rated_outputs"],
                      c["ratings"], c["raters"], c["spans"]]],
                    ["segments", "systems", "refs", "rated systems (refs incl.)", "rated outputs", "ratings",
                     "raters", "error spans"]), ""]
    if kind == "esa":
        lines += esa_text(ts)
    elif kind == "sxs":
        lines += sxs_text(ts)
    else:
        lines += qe_text(kind, pair, ts)
    lines += ["", "## Files", "",
              "- `src.txt`, `ref.X.txt`, one `PREFIX.SYSTEM.txt` per system: one segment per line, the same number "
              "of lines; a tab or line break inside a segment became one space.",
              "- `segments.tsv`: `seg_id` (1-based line here), `orig_seg_id` (the line in the release's test set, "
              "where this is a subset), `doc`, and `doc_id` (index within the document) or `domain`."]
    if kind == "esa":
        lines += ["- `esa.jsonl`: one row per rating — `system` (`ref.A` for the reference), `seg_id`, `rater`, "
                  "`score` (0–100 ESA), `error_spans` [{`start`, `end`, `severity`}] (character offsets into the "
                  "output, end exclusive), `omissions` (severities of errors marked as missing content, no "
                  "span), `doc`, `domain`, `orig_seg_id`, `wave`. mtdiag reads it as the set's human scores (the "
                  "mean of the raters' scores; there is no `mqm.seg.tsv`, which would win) and its spans."]
    else:
        lines += ["- `mqm.seg.tsv`: `system, seg_id, mqm_score` (minus the weighted error count, mean over "
                  "raters; references as `ref.X`).",
                  "- `mqm.errors.tsv`: `system, doc, doc_id, seg_id, rater, source, target, category, severity`, "
                  "one row per error with its span marked `<v>…</v>` in `target` (or `source`), a `No-error` row "
                  "for an output a rater found clean; `target` without the marks is the output's line here."]
    return "\n".join(lines) + "\n"


def qe_text(kind: str, pair: str, ts: TestSet) -> list[str]:
    st = ts.stats
    info, rep, align, check = st["qe_info"], st["report"], st.get("align", {}), st.get("check", {})
    out = ["## What was done", "",
           "MQM error spans of WMT21 from the WMT23 QE shared task's task-2 training file "
           f"(`{(qe_mqm.NEWS_QE if kind == 'qe-news' else qe_mqm.TED_QE)[pair]}`). That file has, per rated output "
           "and rater, the target and its error spans (character offsets, severity minor/major) — **no category**: "
           "the QE organisers kept only errors with a span in the target (omissions marked in the source and "
           "whole-segment non-translations were dropped, `task_2/preprocessing/process_task2_from_mqm.ipynb`). "
           "So `mqm.errors.tsv` has an empty `category` and severities `Major`/`Minor` only.", "",
           f"- Rows read: {info['rows']}; texts CSV-quoted in the file (`\"…\"\"…\"`): "
           f"{info.get('targets_csv_quoted', 0)} "
           f"targets, {info.get('sources_csv_quoted', 0)} sources — unquoted here; their offsets count the quotes "
           "and were moved onto the unquoted text.",
           f"- Rows whose document name the QE script cut at an underscore (rater lost): "
           f"{info.get('repaired_rows', 0)} repaired (rater written `{info.get('repaired_rater', '-')}`"
           + (f"; {info['rows_index_lost']} rows lost the segment index too and were placed by their source text"
              if info.get("rows_index_lost") else "") + ")."]
    if kind == "qe-news":
        out += [f"- Segments placed on newstest2021's {st['n_src_lines']} lines by document and index, checked "
                f"by source: {align.get('segments_placed', 0)} placed (source identical "
                f"{align.get('source_identical', 0)}, equal modulo whitespace "
                f"{align.get('source_equal_modulo_whitespace', 0)}, equal without spaces "
                f"{align.get('source_equal_without_spaces', 0)}, edited in the MQM release "
                f"{align.get('source_edited', 0)} — e.g. `U.N.`→`UN`, `6,000`→`6000` in en-de; placed by source "
                f"text alone {align.get('segments_placed_by_source_only', 0)}, unplaced "
                f"{align.get('segments_unplaced', 0)}).",
                "- **Alignment check, every rated output of a system or reference the release has**: the QE target "
                "against the release's output line — " + ", ".join(f"{k} {v}" for k, v in sorted(check.items())) +
                f" (of {sum(check.values())}). *identical*: equal; *whitespace*: equal modulo whitespace; "
                "*typographic*: equal once ’‘“” are '\"; *punctuation*: the same letters and digits, the MQM "
                "release dropped commas in numbers, abbreviation dots or quotes — spans moved by a character "
                "alignment; *differs*: rating left out. Equal modulo whitespace (the brief's test): "
                f"{check.get('identical', 0) + check.get('whitespace', 0)} of {sum(check.values())}.",
                "- Per system: " + "; ".join(f"{s} " + "/".join(f"{k} {v}" for k, v in sorted(d.items()))
                                             for s, d in sorted(st["per_system_check"].items())) + ".",
                f"- Systems whose outputs are not in wmt21-news-systems (texts from the QE rows, whitespace "
                f"collapsed as the QE file has them): {', '.join(sorted(st['from_qe'])) or 'none'}.",
                f"- Segments dropped because a QE-only system has no row for them: "
                f"{rep.get('segments_dropped_for_missing_outputs', 0)} (missing outputs per system: "
                f"{st['missing_outputs'] or 'none'}); systems dropped: {st['dropped_systems'] or 'none'}.",
                "- Unrated submissions of the release, not included: "
                f"{', '.join(st['unrated_systems_in_release']) or 'none'}."]
    else:
        out += [f"- The TED talks 2021 test set is not in wmt21-news-systems: source, reference A and every output "
                f"are the texts of the QE rows (whitespace collapsed as the QE file has them; a source identical "
                f"across all rows of a segment: {st['sources_differing_across_rows']} segments differ). Segments are "
                "ordered by talk and index."]
    out += [f"- Spans: {rep.get('spans', 0)} kept; {rep.get('spans_on_word_boundaries', 0)} start and end on word "
            f"boundaries; empty (no extent) {rep.get('spans_empty', 0)}; clipped at the end of the output "
            f"{rep.get('spans_clipped_at_end', 0)}; reversed (start > end, kept empty) "
            f"{rep.get('spans_reversed_kept_empty', 0)}."]
    if pair == "en-ru":
        out += ["- **Caveat (en-ru):** the en-ru spans are coarse — only "
                f"{100 * rep.get('spans_on_word_boundaries', 0) / max(1, rep.get('spans', 1)):.0f}% start and end on "
                "word boundaries (en-de and zh-en from the same QE release: 100%), several run one or two characters "
                "past the output (clipped) or are reversed; the QE task used them as they are."]
    out += ["", "## Scores and cross-checks", ""]
    means = system_means(ts)
    if kind == "qe-news" and pair in qe_mqm.GOOGLE_SEG:
        google = published.safe(published.google_readme_mqm, REPO_CACHE["mqm"], "newstest2021",
                                "English to German" if pair == "en-de" else "Chinese to English")
        qe_means = collections.defaultdict(list)
        for s, _, v in st["qe_scores"]:
            qe_means[s].append(v)
        qe_means = {s: -float(np.mean(v)) for s, v in qe_means.items()}
        out += [f"`mqm.seg.tsv` is Google's official segment score (`{qe_mqm.GOOGLE_SEG[pair]}`: category weights, "
                f"several raters where there were), on the {len(ts.src)} segments kept (the release rates "
                f"{st['google_rated_lines']}; {st['google_lines_not_in_qe']} were dropped above). The severity-only "
                "score of the QE rows (major 5, minor 1) is what mtdiag derives from `mqm.errors.tsv` alone.", "",
                compare_block(means, False, google, False,
                              {"ref-A": "ref.A", "ref-B": "ref.B", "ref-C": "ref.C", "ref-D": "ref.D",
                               "Nemo": "NVIDIA-NeMo"},
                              "Per-system MQM (−mean segment score) here against the published table of Google's "
                              "README (newstest2021, all rated segments; its Nemo is NVIDIA-NeMo):", "MQM here",
                              "Google README"),
                compare_block(qe_means, False, means, False, {},
                              "The severity-only score of the QE spans (what mtdiag derives from `mqm.errors.tsv`) "
                              "against the official one, on this set:", "severity-only (QE spans)",
                              "official (`mqm.seg.tsv`)")]
    else:
        out += ["`mqm.seg.tsv` is the severity-only score of the QE rows: minus (5 × major + 1 × minor) per rater, "
                "averaged over raters — Freitag et al. (2021)'s weights without the category rules (minor "
                "punctuation 0.1, non-translation 25), which rows without a category cannot apply, and without the "
                "errors that had no span in the target. It is what mtdiag derives from `mqm.errors.tsv` by "
                "itself.", "", "Per-system MQM here (−mean):", "",
                table([[s, round(v, 3)] for s, v in sorted(means.items(), key=lambda kv: kv[1])],
                      ["system", "MQM (severity-only)"]), ""]
        key = ("wmt21.news" if kind == "qe-news" else "wmt21.tedtalks", pair, "mqm")
        rename = {"refA": "ref.A", "refB": "ref.B", **({"Nemo": "NVIDIA-NeMo"} if kind == "qe-news" else {})}
        out += [compare_block(means, False, published.MTME_SYS[key], True, rename,
                              f"Against the official WMT21 MQM system scores of the metrics task ({key[0]} "
                              f"`human-scores/{pair}.mqm.sys.score`, {published.MTME}: Unbabel's MQM on a 0–100 "
                              "scale, higher is better, with categories and all errors, on all rated segments):",
                              "MQM here (severity-only, lower is better)", "official (0–100)")]
        if kind == "qe-news" and pair == "en-ru":
            da = published.safe(published.wmt21_da, REPO_CACHE["wmt21"], "eng-->rus")
            out += [compare_block(means, False, da, True, {},
                                  "Against WMT21's official crowd DA z-scores (wmt21-news-systems `humaneval/"
                                  "newstest2021-EX_and_XY/wmt21clusters.filtered.20210930.txt`, all of newstest2021; "
                                  "translator-A/B are references, not compared):", "MQM here", "DA z")]
    return out


def esa_text(ts: TestSet) -> list[str]:
    st = ts.stats
    rep = st["report"]
    w = st["waves"]
    out = ["## What was done", "",
           esa24.__doc__.split("\n\n", 1)[1].strip(), "",
           f"- Waves read: {', '.join(w['waves_read'])}; not in the snapshot (4 MiB or more): "
           f"{', '.join(w['waves_missing']) or 'none'} — for en-cs, en-hi, en-ja and en-zh waves 2–3 are the "
           "ones with these pairs' ESA ratings in the public release (wave 0/1 cover the other pairs; not "
           "checkable here, since those files are absent).",
           f"- Rows of this pair: {rep.get('rows', 0)}; left out as attention checks, tutorials, bad/dup/incomplete "
           f"documents: {rep.get('rows_filtered_qc', 0)}; a rater's earlier answer replaced by a later one: "
           f"{rep.get('rows_rerated_latest_kept', 0)}; kept ratings: {rep.get('ratings', 0)} of "
           f"{rep.get('rated_outputs', 0)} outputs.",
           f"- **Alignment check**: every kept row's document id equals the document of its line in "
           f"`txt/documents/` (the check of `merge_to_jsonl.py`; all passed); the {st['n_lines']} lines of `txt/` "
           f"hold the paragraphs the raters saw; {len(ts.src)} are rated and kept.",
           f"- Spans: {rep.get('spans', 0)} kept, {rep.get('spans_on_word_boundaries', 0)} on word boundaries "
           "(meaningful for space-delimited targets only); clipped at the end of the output "
           f"{rep.get('spans_clipped_at_end', 0)}; marked missing (kept as `omissions`) "
           f"{rep.get('spans_missing_omissions', 0)}; `undecided` as minor {rep.get('spans_undecided_as_minor', 0)}; "
           f"extended to whole character clusters {rep.get('spans_extended_to_whole_characters', 0)}.",
           f"- Systems: all of `txt/system-outputs/{ts.pair}/` but ONLINE-empty; rated: "
           f"{', '.join(st['rated_systems'])}.", "",
           "## Scores and cross-checks", "",
           "The mean ESA score per system here, WMT24's own system score as `humeval/calculate_clusters.py` "
           "computes it (the mean per domain, then the mean of the domains) on these waves, and spans per rating:", "",
           table([[s, v["outputs"], round(v["mean"], 2), round(v["macro_domains"], 2), round(v["spans_per_output"], 2)]
                  for s, v in sorted(st["per_system"].items(), key=lambda kv: -kv[1]["macro_domains"])],
                 ["system", "rated outputs", "mean ESA", "WMT24 score (macro over domains)", "spans per rating"]),
           "",
           compare_block({s: v["mean"] for s, v in st["per_system"].items()}, True,
                         published.MTME_SYS.get(("wmt24", ts.pair, "esa"), {}), True,
                         {"refA": "ref.A", "IOL_Research": "IOL-Research"},
                         f"Against the official WMT24 ESA system scores (mt-metrics-eval `wmt24/human-scores/"
                         f"{ts.pair}.esa.sys.score`, {published.MTME}; its averaging unit differs, so levels differ "
                         "by a point or two; the ranking is the check):", "mean ESA here", "official")]
    return out


def sxs_text(ts: TestSet) -> list[str]:
    st = ts.stats
    rep, check = st["report"], st["check"]
    pair = ts.pair
    means = system_means(ts)
    da = published.safe(published.wmt23_da_sqm, REPO_CACHE["wmt23"], pair)
    out = ["## What was done", "", sxs23.__doc__.split("\n\n", 1)[1].strip(), "",
           f"- Rows read: {rep['rows']}; left out as attention checks: {rep.get('rows_attention_check_left_out', 0)} "
           f"rows ({rep.get('ratings_attention_check_left_out', 0)} output × rater ratings).",
           f"- Segments placed on the {st['n_src_lines']} lines of `txt/sources/generaltest2023.{pair}` by their "
           f"source: all {len(ts.src)} found (identical {rep.get('segments_source_identical', 0)}, the rest equal "
           f"without whitespace; {rep.get('segments_source_ambiguous', 0)} sources on several lines went to the "
           "line after the previous segment's).",
           "- **Alignment check, every rated output × rater**: the rated target (marks removed) against the "
           "release's output line — " + ", ".join(f"{k} {v}" for k, v in sorted(check.items())) +
           f" (of {sum(check.values())}); *typographic*: equal once ’‘“” are '\" (spans moved by a character "
           "alignment). Equal modulo whitespace (the brief's test): "
           f"{check.get('identical', 0) + check.get('whitespace', 0)} of {sum(check.values())}; none left out.",
           f"- Raters per rated output: {st['raters_per_output']} (GPT4-5shot in en-de: two contexts × 3).",
           f"- Errors: {rep.get('errors', 0)} ({rep.get('errors_with_target_span', 0)} with a span in the target, "
           f"{rep.get('errors_with_source_span', 0)} in the source).",
           f"- Systems: every WMT23 submission of `txt/` for {pair} (unrated ones included, for consensus); rated: "
           f"{', '.join(st['rated_systems'])}.", "", "## Scores and cross-checks", "",
           "No per-system table of these side-by-side ratings is published in any snapshot here, and the WMT23 "
           "MQM release's own files are absent (above). Against the official WMT23 MQM system scores (the MQM of "
           f"the WMT23 release, a different annotation of all segments: mt-metrics-eval `wmt23/human-scores/"
           f"{pair}.mqm.sys.score`, {published.MTME}):", "",
           compare_block(means, False, published.MTME_SYS[("wmt23", pair, "mqm")], True, {"refA": "ref.A"},
                         "", "MQM here (side-by-side, −mean)", "official WMT23 MQM"),
           "Against WMT23's official DA+SQM averages (wmt23-news-systems `humaneval/DA+SQM/WMT23.results.txt`, "
           "crowd/translator DA+SQM, all segments):", "",
           compare_block(means, False, da, True, {"Human-refA": "ref.A"}, "", "MQM here (side-by-side, −mean)",
                         "DA+SQM")]
    return out


REPO_CACHE: dict = {}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--repo", action="append", default=[], metavar="KEY=GITDIR",
                    help=f"a snapshot's git directory; keys: {', '.join(f'{k} ({v})' for k, v in REPOS.items())}")
    ap.add_argument("--only", action="append", default=[], help="build only these sets (names as in SETS)")
    args = ap.parse_args(argv)
    given = dict(item.split("=", 1) for item in args.repo)
    for key in REPOS:
        try:
            REPO_CACHE[key] = find_repo(key, given, args.mirror)
        except Missing as exc:
            print(f"warning: {exc}", file=sys.stderr)
    manifest, failures = {}, []
    esa_rows = None
    for name, (split, kind, pair) in SETS.items():
        if args.only and name not in args.only:
            continue
        try:
            if kind == "qe-news":
                ts = qe_mqm.news_set(pair, REPO_CACHE["qe23"], REPO_CACHE["wmt21"], REPO_CACHE.get("mqm"))
            elif kind == "qe-ted":
                ts = qe_mqm.ted_set(pair, REPO_CACHE["qe23"])
            elif kind == "esa":
                if esa_rows is None:
                    esa_rows = esa24.read_waves(REPO_CACHE["wmt24"])
                ts = esa24.build(pair, REPO_CACHE["wmt24"], *esa_rows)
            else:
                ts = sxs23.build(pair, REPO_CACHE["mqm"], REPO_CACHE["wmt23"])
        except (Missing, KeyError) as exc:
            failures.append(f"{name}: {exc}")
            print(f"not built: {name}: {exc}", file=sys.stderr)
            continue
        ts.provenance = provenance(name, split, kind, pair, ts, REPO_CACHE)
        ts.write(args.out / name)
        c = counts(ts)
        manifest[name] = {"split": split, "pair": pair, "protocol": "ESA" if kind == "esa" else "MQM",
                          **c, "sources": ts.stats["repos"]}
        print(f"{name}: {c['segments']} segments, {c['systems']} systems, refs {','.join(c['refs'])}, "
              f"{c['rated_outputs']} rated outputs, {c['spans']} spans")
    if not args.only:
        (args.out / "issue42-manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        (args.out / "issue42-README.md").write_text(index(manifest, failures), encoding="utf-8")
    return 1 if failures else 0


def index(manifest: dict, failures: list[str]) -> str:
    rows = [[n, m["split"], m["pair"], m["protocol"], m["segments"], m["systems"], ",".join(m["refs"]),
             m["rated_outputs"], m["spans"]] for n, m in manifest.items()]
    return ("# mtdiag development and held-out data (issue 42)\n\nBuilt by `scripts/devdata/build.py` of the "
            "mtdiag repository; every folder's `PROVENANCE.md` says where it comes from. `dev/`: fit and tune "
            "here. `heldout/`: **never fit, tune or pick a threshold on these**; measure only.\n\n" +
            table(rows, ["set", "split", "pair", "protocol", "segments", "systems", "refs", "rated outputs",
                         "spans"]) + "\n" + ("\nNot built:\n" + "\n".join(f"- {f}" for f in failures) + "\n"
                                            if failures else ""))


if __name__ == "__main__":
    sys.exit(main())
