"""``untranslated``: the output keeps source text — characters of a script the source uses and the references
don't (Han in a zh→en output), beyond what the references themselves keep; or a run of :data:`COPIED_RUN` or
more words copied from the source that no reference contains.

Without references the script part reads the outputs instead: a script is foreign when the outputs of all
systems together (almost) never use it, and an output keeps too much of it beyond what the systems keep on that
segment (their median; nothing with fewer than three systems). The copied-words part needs references — a
word no reference has is what makes a copy an error, and names are copied rightly — and is skipped without them
(``source_copy`` and ``mixed_language`` cover copied text without references)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage.checks.base import Check, Finding, by_pair, count_in_ranges, runs
from mtdiag.triage.checks.tokens import reference_token_sets, source_tokens, token_frame, word_ids

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


def _ranges(chars: str) -> list[tuple[int, int]]:
    """The code-point ranges of a character-class body such as ``A-Za-z\u00c0-\u024f``."""
    found, i = [], 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            found.append((ord(chars[i]), ord(chars[i + 2])))
            i += 3
        else:
            found.append((ord(chars[i]), ord(chars[i])))
            i += 1
    return found


_SCRIPT_RANGES = [_ranges(chars) for chars in SCRIPTS.values()]


def script_counts(report, side: tuple[str, str]) -> np.ndarray:
    """``counts[seg, k]``: characters of the ``k``-th script of :data:`SCRIPTS` in one side's texts.

    The side is ``("src", "")``, ``("ref", name)`` or ``("hyp", system)``; counted once per report."""
    ev = report.evalset
    texts = {"src": lambda: ev.src, "ref": lambda: ev.refs[side[1]], "hyp": lambda: ev.hyps[side[1]]}[side[0]]
    return report.context.memo(("checks", "scripts", side), lambda: count_in_ranges(texts(), _SCRIPT_RANGES))


def _targets(report) -> list[tuple[str, str]]:
    """The sides that show the target language's scripts: the references, else the outputs."""
    ev = report.evalset
    return [("ref", r) for r in ev.ref_names] or [("hyp", s) for s in ev.systems]


def foreign_scripts(report) -> list[str]:
    """Scripts of the source that the references almost never use: Han for zh→en, Latin for en→zh.

    Without references: those the outputs of all systems together almost never use."""
    src = script_counts(report, ("src", "")).sum(axis=0)
    target = np.sum([script_counts(report, side).sum(axis=0) for side in _targets(report)], axis=0)
    src_share, target_share = src / max(src.sum(), 1), target / max(target.sum(), 1)
    return [s for k, s in enumerate(SCRIPTS) if src_share[k] >= SOURCE_SCRIPT_SHARE
            and target_share[k] <= TARGET_SCRIPT_SHARE]


def _foreign_excess(report, scripts: list[str]) -> dict[str, np.ndarray]:
    """Per system: characters of the foreign scripts in the output beyond the most any reference has there
    (without references: beyond the median over the systems' outputs of the segment, or beyond none with fewer
    than three systems), 0 where that is under the script's minimum (:data:`SCRIPT_MIN_CHARS` for
    Han/Kana/Hangul, whose characters are syllables or words; :data:`ALPHABET_MIN_CHARS` for alphabets)."""
    if not scripts:
        return {}
    columns = [list(SCRIPTS).index(s) for s in scripts]

    def foreign(side):
        return script_counts(report, side)[:, columns].sum(axis=1)

    kept = np.array([foreign(side) for side in _targets(report)])
    if report.evalset.ref_names:
        ref_max = kept.max(axis=0)
    else:
        ref_max = np.median(kept, axis=0) if len(kept) >= 3 else np.zeros(report.evalset.n_segments)
    minimum = min(SCRIPT_MIN_CHARS if s in SYLLABIC else ALPHABET_MIN_CHARS for s in scripts)
    out = {}
    for system in report.evalset.systems:
        excess = foreign(("hyp", system)) - ref_max
        out[system] = np.where(excess >= minimum, excess, 0)
    return out


def copied_tokens(report) -> dict[str, pd.DataFrame]:
    """Per system: the output tokens (``seg, pos``) that are words of the source no reference of the segment contains.

    Only in runs of at least :data:`COPIED_RUN` consecutive tokens."""
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
    """The ``untranslated`` check: source text kept in the output (source script, or words copied from the source).

    Copied words count in a run of three or more."""
    name = "untranslated"
    label = "untranslated"
    help = "source text kept in the output: source script, or three or more words copied from the source"
    needs = ("source",)
    claims = ("Accuracy/Untranslated", "Non-translation", "Source language fragment")
    marks = ("copied",)

    def fires(self, report) -> pd.Series:
        """One boolean per pair: source-script characters beyond the usual, or copied words (:func:`copied_tokens`).

        Source-script characters: those of :func:`foreign_scripts`, beyond the references' (without references, beyond
        what the systems keep); copied words are read only with references."""
        n = report.evalset.n_segments
        excess = _foreign_excess(report, foreign_scripts(report))
        copied = copied_tokens(report) if report.evalset.ref_names else {}
        flagged = {}
        for system in report.evalset.systems:
            mask = np.zeros(n, dtype=bool)
            if system in excess:
                mask |= excess[system] > 0
            if system in copied:
                mask[copied[system]["seg"].unique()] = True
            flagged[system] = mask
        return by_pair(report, flagged)

    def explain(self, report, system, seg):
        """Why ``untranslated`` fired on one pair: its source-script characters and its copied words, marked."""
        positions = np.array([], dtype=np.int64)
        if report.evalset.ref_names:
            copied = copied_tokens(report)[system]
            positions = copied.loc[copied["seg"] == seg, "pos"].to_numpy(dtype=np.int64)
        marked = np.zeros(len(report.context.tokens.hyps[system].segment(seg)), dtype=bool)
        marked[positions] = True
        excess = _foreign_excess(report, foreign_scripts(report)).get(system)
        sentences = []
        if excess is not None and excess[seg] > 0:
            beyond = "the references'" if report.evalset.ref_names else "what the systems keep"
            sentences.append(f"{int(excess[seg])} character(s) in the source's script "
                             f"({', '.join(foreign_scripts(report))}) beyond {beyond}")
        if len(positions):
            sentences.append(f"{len(positions)} word(s) copied from the source that no reference has")
        return Finding(("; ".join(sentences),), tuple(runs(marked, "copied", "copied from the source")))
