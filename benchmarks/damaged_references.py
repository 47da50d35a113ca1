"""Suspect references measured (``mtdiag.triage.checks.suspect_reference``; figures in docs/triage.md, "Suspect references").

On every dev set with a reference (default: ``wmt21/en-de``, ``wmt21/zh-en``, ``wmt21/en-ja``, ``ted/zh-en``,
``ted/en-de``, ``terminology/tico19-en-fr`` in the data folder), with a fixed seed, three rounds — one per kind
of damage — each damaging a sample of the segments (``--share``, default 5 %, at least 20) in one of their
references, drawn at random:

- **replaced**: by another segment's reference (one with other text);
- **doubled**: the reference written twice, separated by a space;
- **cut**: cut to its first third (at the last space before a third of its characters, if there is one).

Per set and kind it prints the share of damaged segments flagged *with the damaged reference named* and the share
of untouched segments (none of whose references was damaged in that round) flagged, then, on the set as
released, how many segments the flag fires on and why and — where human raters scored the references themselves
(``ref.X`` rows of ``mqm.seg.tsv``) — the mean MQM score of the flagged references against all references: the
figure on real references. Last, on the sets with one reference, where the queue puts the pairs of the replaced
references with the suspect reference discounted, and where it put them without the discount.

Targets: damaged segments flagged ≥ 90 %, untouched ≤ 2 %, on every set.

Then the damage of a whole run (the ``spun`` and ``garbled`` reasons), per set and seed (``--runs``), on a run of
:data:`RUN` consecutive segments of the first reference:

- **spun**: every word of the segment in the target language's list of :mod:`odd_synonyms` replaced by its odd
  synonym, in segments with at least three such words (``--spun-words 3``: exactly three, drawn at random);
- **garbled**: in segments with at least three words of five letters or more, three of them (or 30 %, if more)
  with two neighbouring letters swapped.

It prints the share of the run flagged spun or garbled naming that reference, and the share of the other segments
flagged so (the false alarms of the two reasons; with any reason of the check beside it), and how the run's flags
were labelled. On the sets as released, the share of each reference's segments flagged spun or garbled: a second
human reference is a free paraphrase, not a spun one.

**Reference bias** (:mod:`mtdiag.analysis.reference_bias`): on each set as released, the systems called ``biased``;
then reference A replaced on :data:`FAVOURED` of its segments by one system's output (drawn at random) with one
word changed — which systems are called ``biased`` then (target: that one and no other).

**The queue's fallback** where every reference is suspect (:func:`mtdiag.triage.ranking.witness_badness`): on the
sets with human scores, with a spun run planted, the Spearman correlation of the outputs' fallback error rates on
the suspect segments with the human scores (negated: higher = worse), one system one vote (consensus, as before)
against the witnesses weighed.

Usage: ``python benchmarks/damaged_references.py [FOLDER ...] [--data DIR] [--share 0.05] [--seed 35] [--runs 3]
[--spun-words all|3]`` (Markdown on stdout).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from unittest import mock

import re
import unicodedata

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

import devdata  # noqa: E402
from odd_synonyms import ODD  # noqa: E402

from mtdiag.triage import checks, ranking  # noqa: E402
from mtdiag.scoring.evaluate import Options, evaluate  # noqa: E402
from mtdiag.analysis import reference_bias  # noqa: E402
from mtdiag.triage.checks import suspect_reference  # noqa: E402
from mtdiag.io import load_folder  # noqa: E402

DEFAULT_SETS = ("wmt21/en-de", "wmt21/zh-en", "wmt21/en-ja", "ted/zh-en", "ted/en-de", "terminology/tico19-en-fr")
KINDS = ("replaced", "doubled", "cut")
MIN_DAMAGED = 20
DETECTION = Options(metrics=("chrf",))  # the check reads tokens and n-grams, not the other metrics' scores


def damaged(evalset, kind: str, share: float, rng: np.random.Generator, at_least: int = MIN_DAMAGED
            ) -> tuple[object, dict[int, str]]:
    """``evalset`` with ``kind`` damage in a sample of ``share`` of its segments (at least ``at_least``), and the
    damaged reference of each damaged segment."""
    n = evalset.n_segments
    count = min(n, max(at_least, round(share * n)))
    refs = evalset.refs.copy()
    names = list(evalset.ref_names)
    which: dict[int, str] = {}
    for seg in rng.choice(n, count, replace=False):
        name = names[int(rng.integers(len(names)))]
        text = str(evalset.refs[name].iat[seg])
        if kind == "replaced":
            others = np.flatnonzero(evalset.refs[name].astype(str).to_numpy() != text)
            new = str(evalset.refs[name].iat[int(rng.choice(others))])
        elif kind == "doubled":
            new = f"{text} {text}"
        else:
            third = max(1, len(text) // 3)
            space = text.rfind(" ", 0, third + 1)
            new = text[:space] if space > 0 else text[:third]
        refs.at[seg, name] = new
        which[int(seg)] = name
    return replace(evalset, refs=refs), which


def detection(evalset, kind: str, share: float, seed: int) -> dict:
    """One round: the found and untouched rates, and the reasons the damaged references were flagged for."""
    broken, which = damaged(evalset, kind, share, np.random.default_rng([seed, KINDS.index(kind)]))
    report = evaluate(broken, DETECTION)
    start = time.process_time()
    rows = suspect_reference.suspect_references(report)
    seconds = time.process_time() - start
    named = set(zip(rows["seg"], rows["reference"]))
    found = [(seg, ref) in named for seg, ref in which.items()]
    flagged = set(rows["seg"])
    untouched = [seg for seg in range(broken.n_segments) if seg not in which]
    hits = rows[[(s, r) in set(which.items()) for s, r in zip(rows["seg"], rows["reference"])]]
    return {"damaged": len(which), "found": float(np.mean(found)), "untouched": len(untouched),
            "untouched_flagged": float(np.mean([seg in flagged for seg in untouched])), "seconds": seconds,
            "reasons": {r: int(hits[r].sum()) for r in suspect_reference.REASONS}}


def real_references(evalset) -> list[str]:
    """On the set as released: how many segments are flagged and why, and — where raters scored the references —
    the flagged references' mean MQM against all references'."""
    report = evaluate(evalset, DETECTION)
    rows = suspect_reference.suspect_references(report)
    n = evalset.n_segments
    reasons = ", ".join(f"{r} {int(rows[r].sum())}" for r in suspect_reference.REASONS)
    lines = [f"As released: {rows['seg'].nunique():,} of {n:,} segments flagged ({rows['seg'].nunique() / n:.1%}); "
             f"{len(rows):,} references ({reasons})."]
    human = evalset.human
    if human is None:
        return lines
    scores = {}
    for ref in evalset.ref_names:
        for spelled in (f"ref.{ref}", f"ref-{ref}", f"ref_{ref}", ref):
            rated = human[human["system"] == spelled]
            if len(rated):
                scores[ref] = rated.groupby("seg")["score"].mean()
                break
    if not scores:
        return lines
    every = pd.concat([s.rename("score").to_frame().assign(reference=r) for r, s in scores.items()])
    every = every.reset_index()
    flagged = every.merge(rows[["seg", "reference"]], on=["seg", "reference"])
    share_major = lambda frame: float((frame["score"] <= -5).mean()) if len(frame) else float("nan")  # noqa: E731
    lines.append(f"References scored by MQM raters ({', '.join(scores)}): all {len(every):,}, mean MQM "
                 f"{every['score'].mean():.2f}, {share_major(every):.0%} with a major error; the {len(flagged):,} "
                 f"flagged, mean MQM {flagged['score'].mean():.2f}, {share_major(flagged):.0%} with a major error.")
    return lines


def queue_effect(evalset, share: float, seed: int) -> str | None:
    """On a set with one reference, replaced references: where the queue ranks the damaged segments' pairs with the
    discount and without it (the reference-based evidence charged to the outputs, as before)."""
    if len(evalset.ref_names) != 1:
        return None
    broken, which = damaged(evalset, "replaced", share, np.random.default_rng([seed, 0]))
    report = evaluate(broken)
    damaged_pairs = {(s, seg) for s in broken.systems for seg in which}

    def placed(report) -> tuple[float, float]:
        queue = ranking.worst_first(report, strict=True)
        rank = np.arange(len(queue)) / len(queue)
        mine = np.array([(s, g) in damaged_pairs for s, g in zip(queue["system"], queue["seg"])])
        top = int(0.1 * len(queue))
        return float(np.median(rank[mine])), float(mine[:top].mean())

    with_discount = placed(report)
    nothing = pd.Series(False, index=report.segments.index)
    unflagged = suspect_reference.suspect_references(report).iloc[:0]
    with mock.patch.object(ranking, "reference_at_fault", lambda report: nothing), \
            mock.patch.object(ranking, "suspect_references", lambda report: unflagged), \
            mock.patch.object(checks, "reference_at_fault", lambda report: nothing):
        without = placed(evaluate(broken))
    return (f"Queue, {len(which)} replaced references: their pairs' median place {with_discount[0]:.0%} of the queue "
            f"from the top ({without[0]:.0%} without the discount); share of the first 10 % that are theirs "
            f"{with_discount[1]:.1%} ({without[1]:.1%} without; their share of all pairs "
            f"{len(damaged_pairs) / len(report.segments):.1%}).")


RUN = 30  # consecutive segments of a planted spun or garbled run
RUN_KINDS = ("spun", "garbled")
AT_LEAST = 3  # words changed in each segment of the run, at least
FAVOURED = 0.25  # share of reference A replaced by one system's output (one word changed)


def _letters(word: str) -> bool:
    return bool(word) and all(ch.isalpha() or unicodedata.category(ch).startswith("M") for ch in word)


def odd_places(text: str, language: str) -> list[tuple[int, int, str]]:
    """(start, end, odd synonym) of every word of ``text`` in the language's list (:data:`odd_synonyms.ODD`);
    Japanese by substring, the longest first, never overlapping."""
    table = ODD.get(language, {})
    out = []
    if language in ("ja", "zh"):
        taken = np.zeros(len(text), dtype=bool)
        for key in sorted(table, key=len, reverse=True):
            for match in re.finditer(re.escape(key), text):
                if not taken[match.start():match.end()].any():
                    taken[match.start():match.end()] = True
                    out.append((match.start(), match.end(), table[key]))
        return sorted(out)
    for match in re.finditer(r"\S+", text):
        word = match.group()
        core = word.strip(".,;:!?\"'()«»„“”‘’[]—–-")
        if core and core.lower() in table:
            start = match.start() + word.index(core)
            new = table[core.lower()]
            out.append((start, start + len(core), new[0].upper() + new[1:] if core[0].isupper() else new))
    return out


def spin(text: str, language: str, rng: np.random.Generator, words: int | None) -> str | None:
    """``text`` with its listed words replaced by their odd synonyms — all of them, or ``words`` drawn at random;
    None with fewer than :data:`AT_LEAST`."""
    places = odd_places(text, language)
    if len(places) < AT_LEAST:
        return None
    chosen = range(len(places)) if words is None else sorted(rng.choice(len(places), words, replace=False))
    for i in reversed(list(chosen)):
        start, end, new = places[i]
        text = text[:start] + new + text[end:]
    return text


def garble(text: str, rng: np.random.Generator) -> str | None:
    """``text`` with two neighbouring letters swapped in three of its words of five letters or more (30 % of them
    if that is more); None with fewer than :data:`AT_LEAST` such words."""
    words = text.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 5 and _letters(w)]
    if len(long) < AT_LEAST:
        return None
    for i in rng.choice(long, min(len(long), max(AT_LEAST, round(0.3 * len(long)))), replace=False):
        w = words[i]
        j = int(rng.integers(1, len(w) - 2))
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def planted_run(evalset, kind: str, rng: np.random.Generator, words: int | None = None, length: int = RUN
                ) -> tuple[object, list[int], str]:
    """``evalset`` with a ``kind`` run (``spun`` or ``garbled``) planted in its first reference on ``length``
    consecutive segments, drawn among the runs with the most segments that can take the damage; the damaged
    segments and the reference."""
    reference = evalset.ref_names[0]
    language = (evalset.tgt_lang or "en").split("-")[0]
    texts = evalset.refs[reference].astype(str).tolist()
    damage = (lambda t: spin(t, language, rng, words)) if kind == "spun" else (lambda t: garble(t, rng))
    able = np.array([(len(odd_places(t, language)) if kind == "spun" else
                      sum(len(w) >= 5 and _letters(w) for w in t.split(" "))) >= AT_LEAST for t in texts])
    window = np.convolve(able.astype(int), np.ones(min(length, len(texts)), int), "valid")
    start = int(rng.choice(np.flatnonzero(window == window.max())))
    refs, damaged = evalset.refs.copy(), []
    for seg in range(start, min(start + length, len(texts))):
        new = damage(texts[seg])
        if new is not None:
            refs.at[seg, reference] = new
            damaged.append(seg)
    return replace(evalset, refs=refs), damaged, reference


def run_detection(evalset, kind: str, seed: int, words: int | None = None) -> dict:
    """One planted run: the share of it flagged spun or garbled naming the reference, the share of the other
    segments flagged so (and by any reason), and how the run's flags were labelled."""
    broken, damaged, reference = planted_run(evalset, kind, np.random.default_rng([seed, RUN_KINDS.index(kind)]),
                                             words)
    rows = suspect_reference.suspect_references(evaluate(broken, DETECTION))
    worded = rows[rows["spun"] | rows["garbled"]]
    found = worded[(worded["reference"] == reference) & worded["seg"].isin(damaged)]
    others = np.setdiff1d(np.arange(broken.n_segments), damaged)
    return {"damaged": len(damaged), "found": len(set(found["seg"])) / max(len(damaged), 1),
            "others": len(others), "false": float(np.isin(others, worded["seg"]).mean()),
            "any": float(np.isin(others, rows["seg"]).mean()),
            "labels": {"spun": int(found["spun"].sum()), "garbled": int(found["garbled"].sum())}}


def paraphrase_rates(evalset) -> dict[str, float]:
    """On the set as released: per reference, the share of its segments flagged spun or garbled."""
    rows = suspect_reference.suspect_references(evaluate(evalset, DETECTION))
    worded = rows[rows["spun"] | rows["garbled"]]
    return {ref: float(worded["reference"].eq(ref).sum() / evalset.n_segments) for ref in evalset.ref_names}


def favoured(evalset, rng: np.random.Generator, share: float = FAVOURED) -> tuple[object, str]:
    """``evalset`` with reference A replaced on ``share`` of its segments by one system's output (drawn at random)
    with one word changed (its letters reversed; without spaces, two neighbouring characters swapped)."""
    system = evalset.systems[int(rng.integers(len(evalset.systems)))]
    reference = evalset.ref_names[0]
    refs = evalset.refs.copy()
    for seg in rng.choice(evalset.n_segments, round(share * evalset.n_segments), replace=False):
        text = str(evalset.hyps[system].iat[seg])
        words = text.split()
        if len(words) < 3 and len(text) > 6:  # a script without spaces
            j = int(rng.integers(len(text) - 2))
            refs.at[seg, reference] = text[:j] + text[j + 1] + text[j] + text[j + 2:]
            continue
        if words:
            j = int(rng.integers(len(words)))
            words[j] = words[j][::-1] if len(words[j]) > 2 else words[j] + "x"
        refs.at[seg, reference] = " ".join(words)
    return replace(evalset, refs=refs), system


def bias_round(evalset, seed: int) -> tuple[list[str], str | None, list[str]]:
    """(the systems called biased on the set as released, the planted system, those called biased with it)."""
    scores = Options(metrics=("chrf", "ter"))
    if len(evalset.systems) < 2:
        return [], None, []
    released = reference_bias.biased(evaluate(evalset, scores))["system"].tolist()
    broken, system = favoured(evalset, np.random.default_rng([seed, 43]))
    return released, system, reference_bias.biased(evaluate(broken, scores))["system"].tolist()


def fallback_effect(evalset, seed: int) -> tuple[float, float, int] | None:
    """With a spun run planted: Spearman of the fallback error rate with the negated human score over the pairs of
    the suspect segments — (one system one vote, witnesses weighed, pairs); None without human scores."""
    if evalset.human is None or len(evalset.systems) < 3:
        return None
    broken, _, _ = planted_run(evalset, "spun", np.random.default_rng([seed, 0]))
    report = evaluate(broken)
    at_fault = suspect_reference.reference_at_fault(report)
    human = evalset.human.groupby(["system", "seg"])["score"].mean()
    pairs = [p for p in at_fault[at_fault].index if p in human.index]
    if len(pairs) < 10:
        return None
    one_vote = ranking.badness_percentile(ranking.view_scores(report, "consensus"), "consensus", report)
    weighed = ranking.error_rate(report)
    worse = -human.loc[pairs].to_numpy()
    rho = lambda rate: float(pd.Series(rate.loc[pairs].to_numpy()).corr(pd.Series(worse), method="spearman"))  # noqa: E731
    return rho(one_vote), rho(weighed), len(pairs)


def _damage_section(folders: list[Path], args) -> None:
    print("| set | systems | references | kind | damaged | flagged, naming the damaged reference | untouched "
          "segments flagged | reasons (damaged) | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for folder in folders:
        evalset = load_folder(folder)
        name = "/".join(folder.parts[-2:])
        for kind in KINDS:
            r = detection(evalset, kind, args.share, args.seed)
            reasons = ", ".join(f"{k} {v}" for k, v in r["reasons"].items() if v)
            print(f"| {name} | {len(evalset.systems)} | {len(evalset.ref_names)} | {kind} | {r['damaged']} | "
                  f"**{r['found']:.1%}** | **{r['untouched_flagged']:.1%}** (of {r['untouched']:,}) | {reasons} | "
                  f"{r['seconds']:.2f} |")
        notes.append((name, real_references(evalset), queue_effect(evalset, args.share, args.seed)))
        sys.stdout.flush()
    for name, real, queue in notes:
        print(f"\n**{name}.** " + " ".join(real) + (f" {queue}" if queue else ""))


def _runs_section(folders: list[Path], args) -> None:
    words = None if args.spun_words == "all" else int(args.spun_words)
    print(f"\n| set | kind | seeds | damaged per run | run flagged spun/garbled (lowest–highest, mean) | other "
          "segments flagged spun/garbled (highest) | … by any reason (highest) | labels (spun, garbled) |")
    print("|---|---|---|---|---|---|---|---|")
    for folder in folders:
        evalset = load_folder(folder)
        name = "/".join(folder.parts[-2:])
        for kind in RUN_KINDS:
            rounds = [run_detection(evalset, kind, args.seed + i, words) for i in range(args.runs)]
            if not any(r["damaged"] for r in rounds):
                print(f"| {name} | {kind} | {args.runs} | 0 | n/a (no segment takes the damage) | | | |")
                continue
            found = [r["found"] for r in rounds]
            labels = (sum(r["labels"]["spun"] for r in rounds), sum(r["labels"]["garbled"] for r in rounds))
            print(f"| {name} | {kind} | {args.runs} | {np.mean([r['damaged'] for r in rounds]):.0f} | "
                  f"**{min(found):.0%}–{max(found):.0%}** ({np.mean(found):.1%}) | "
                  f"**{max(r['false'] for r in rounds):.1%}** | {max(r['any'] for r in rounds):.1%} | "
                  f"{labels[0]}, {labels[1]} |")
            sys.stdout.flush()
    print("\nFree paraphrases: the share of each reference's segments flagged spun or garbled on the sets as "
          "released.\n")
    for folder in folders:
        rates = paraphrase_rates(load_folder(folder))
        print(f"- {'/'.join(folder.parts[-2:])}: " + ", ".join(f"{ref} {rate:.1%}" for ref, rate in rates.items()))


def _bias_section(folders: list[Path], args) -> None:
    print(f"\n| set | systems | biased as released | planted ({FAVOURED:.0%} of reference A from) | biased then |")
    print("|---|---|---|---|---|")
    for folder in folders:
        evalset = load_folder(folder)
        released, system, planted = bias_round(evalset, args.seed)
        print(f"| {'/'.join(folder.parts[-2:])} | {len(evalset.systems)} | {', '.join(released) or 'none'} | "
              f"{system or 'n/a (one system)'} | {', '.join(planted) or 'none'} |")
        sys.stdout.flush()


def _fallback_section(folders: list[Path], args) -> None:
    print("\n| set | suspect pairs (rated) | Spearman with human badness: one system one vote | witnesses weighed |")
    print("|---|---|---|---|")
    for folder in folders:
        result = fallback_effect(load_folder(folder), args.seed)
        if result is not None:
            print(f"| {'/'.join(folder.parts[-2:])} | {result[2]:,} | {result[0]:.3f} | **{result[1]:.3f}** |")
            sys.stdout.flush()


PARTS = {"damage": _damage_section, "runs": _runs_section, "bias": _bias_section, "fallback": _fallback_section}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", help=f"test-set folders (default: {', '.join(DEFAULT_SETS)} in --data)")
    parser.add_argument("--data", metavar="DIR", help=f"the development data (default: ${devdata.ENV_VAR}, else "
                        f"{devdata.DEFAULT})")
    parser.add_argument("--share", type=float, default=0.05, help="share of segments damaged per round")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--runs", type=int, default=3, help="seeds of the planted spun and garbled runs")
    parser.add_argument("--spun-words", default="all", choices=("all", "3"),
                        help="words of each spun segment replaced: every listed one, or three drawn at random")
    parser.add_argument("--part", action="append", choices=tuple(PARTS), help="only these parts (default: all)")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders] or [devdata.folder(name, args.data) for name in DEFAULT_SETS]
    for part in args.part or PARTS:
        PARTS[part](folders, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
