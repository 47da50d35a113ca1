"""``untranslated``: the output keeps source text — characters of a script the source uses and the references
don't (Han in a zh→en output), beyond what the references themselves keep; or a run of :data:`COPIED_RUN` or
more words copied from the source that no reference contains."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.checks.base import Check, Finding, by_pair, runs
from mtdiag.checks.tokens import reference_token_sets, source_tokens, token_frame, word_ids

COPIED_RUN = 3  # this many consecutive words copied from the source, found in no reference
SCRIPT_MIN_CHARS = 2  # source-script characters beyond the references' that flag a segment: two Han/Kana/Hangul
ALPHABET_MIN_CHARS = 10  # (a word or two) or ten letters of an alphabet (two words; an acronym kept in Latin letters
#                          in a Japanese output is not an untranslated sentence)


SCRIPTS: dict[str, str] = {
    "Han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    "Kana": "\u3040-\u30ff\u31f0-\u31ff",
    "Hangul": "\uac00-\ud7af\u1100-\u11ff",
    "Latin": "A-Za-z\u00c0-\u024f",
    "Cyrillic": "\u0400-\u04ff",
    "Greek": "\u0370-\u03ff",
    "Arabic": "\u0600-\u06ff",
    "Hebrew": "\u0590-\u05ff",
    "Devanagari": "\u0900-\u097f",
    "Thai": "\u0e00-\u0e7f",
}
SYLLABIC = ("Han", "Kana", "Hangul")
SOURCE_SCRIPT_SHARE = 0.2  # a script with ≥ 20 % of the source's letters ...
TARGET_SCRIPT_SHARE = 0.05  # ... and ≤ 5 % of the references' is foreign to the target


def _script_counts(texts: pd.Series, script: str) -> pd.Series:
    return texts.astype(str).str.count(f"[{SCRIPTS[script]}]")


def foreign_scripts(report) -> list[str]:
    """Scripts of the source that the references (almost) never use: Han for zh→en, Latin for en→zh."""
    src = report.evalset.src.astype(str)
    refs = pd.concat([report.evalset.refs[r].astype(str) for r in report.evalset.ref_names])
    src_counts = {s: int(_script_counts(src, s).sum()) for s in SCRIPTS}
    ref_counts = {s: int(_script_counts(refs, s).sum()) for s in SCRIPTS}
    src_total, ref_total = sum(src_counts.values()) or 1, sum(ref_counts.values()) or 1
    return [s for s in SCRIPTS if src_counts[s] / src_total >= SOURCE_SCRIPT_SHARE
            and ref_counts[s] / ref_total <= TARGET_SCRIPT_SHARE]


def _foreign_excess(report, scripts: list[str]) -> dict[str, np.ndarray]:
    """Per system: characters of the foreign scripts in the output beyond the most any reference has there, 0
    where that is under the script's minimum (:data:`SCRIPT_MIN_CHARS` for Han/Kana/Hangul, whose characters are
    syllables or words; :data:`ALPHABET_MIN_CHARS` for alphabets)."""
    if not scripts:
        return {}
    pattern = "[" + "".join(SCRIPTS[s] for s in scripts) + "]"
    refs = report.evalset.refs
    ref_max = np.max([refs[r].astype(str).str.count(pattern).to_numpy() for r in report.evalset.ref_names], axis=0)
    hyps = report.evalset.hyps
    minimum = min(SCRIPT_MIN_CHARS if s in SYLLABIC else ALPHABET_MIN_CHARS for s in scripts)
    out = {}
    for system in report.evalset.systems:
        excess = hyps[system].astype(str).str.count(pattern).to_numpy() - ref_max
        out[system] = np.where(excess >= minimum, excess, 0)
    return out


def copied_tokens(report) -> dict[str, pd.DataFrame]:
    """Per system: the output tokens (``seg, pos``) that are words of the source that no reference of the segment
    contains, in runs of at least :data:`COPIED_RUN` consecutive tokens."""
    def build():
        ctx = report.context
        src = source_tokens(report)
        words = word_ids(report)
        src = src[src["id"] >= 0]
        src = src[words[src["id"].to_numpy()]][["seg", "id"]].drop_duplicates()
        not_in_ref = src.merge(reference_token_sets(report), on=["seg", "id"], how="left", indicator=True)
        copyable = not_in_ref[not_in_ref["_merge"] == "left_only"][["seg", "id"]].assign(copied=True)
        out = {}
        for system, side in ctx.tokens.hyps.items():
            hyp = token_frame(side).merge(copyable, on=["seg", "id"], how="left")
            hyp = hyp.sort_values(["seg", "pos"], ignore_index=True)
            copied = hyp["copied"].fillna(False).to_numpy(dtype=bool)
            # run ids: a new run starts where copied switches on or the segment changes
            seg = hyp["seg"].to_numpy()
            start = copied & ~np.concatenate([[False], copied[:-1] & (seg[1:] == seg[:-1])])
            run_id = np.cumsum(start)
            lengths = np.bincount(run_id[copied], minlength=run_id.max() + 1 if len(run_id) else 1)
            keep = copied & (lengths[run_id] >= COPIED_RUN)
            out[system] = hyp.loc[keep, ["seg", "pos"]]
        return out

    return report.context.memo(("checks", "copied"), build)


class Untranslated(Check):
    name = "untranslated"
    label = "untranslated"
    help = "source text kept in the output: source script, or three or more words copied from the source"
    needs = ("source", "references")
    claims = ("Accuracy/Untranslated", "Non-translation", "Source language fragment")
    marks = ("copied",)

    def fires(self, report) -> pd.Series:
        n = report.evalset.n_segments
        excess = _foreign_excess(report, foreign_scripts(report))
        copied = copied_tokens(report)
        flagged = {}
        for system in report.evalset.systems:
            mask = np.zeros(n, dtype=bool)
            if system in excess:
                mask |= excess[system] > 0
            mask[copied[system]["seg"].unique()] = True
            flagged[system] = mask
        return by_pair(report, flagged)

    def explain(self, report, system, seg):
        copied = copied_tokens(report)[system]
        positions = copied.loc[copied["seg"] == seg, "pos"].to_numpy()
        marked = np.zeros(len(report.context.tokens.hyps[system].segment(seg)), dtype=bool)
        marked[positions] = True
        excess = _foreign_excess(report, foreign_scripts(report)).get(system)
        sentences = []
        if excess is not None and excess[seg] > 0:
            sentences.append(f"{int(excess[seg])} character(s) in the source's script "
                             f"({', '.join(foreign_scripts(report))}) beyond the references'")
        if len(positions):
            sentences.append(f"{len(positions)} word(s) copied from the source that no reference has")
        return Finding(("; ".join(sentences),), tuple(runs(marked, "copied", "copied from the source")))
