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

Targets (issue 35): damaged segments flagged ≥ 90 %, untouched ≤ 2 %, on every set.

Usage: ``python benchmarks/damaged_references.py [FOLDER ...] [--data DIR] [--share 0.05] [--seed 35]``
(Markdown on stdout).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

import devdata  # noqa: E402

from mtdiag.triage import checks, ranking  # noqa: E402
from mtdiag.scoring.evaluate import Options, evaluate  # noqa: E402
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
        mine = np.array([(s, g - 1) in damaged_pairs for s, g in zip(queue["system"], queue["seg_id"])])
        top = int(0.1 * len(queue))
        return float(np.median(rank[mine])), float(mine[:top].mean())

    with_discount = placed(report)
    nothing = pd.Series(False, index=report.segments.index)
    unflagged = suspect_reference.suspect_references(report).iloc[:0]
    with mock.patch.object(triage, "reference_at_fault", lambda report: nothing), \
            mock.patch.object(triage, "suspect_references", lambda report: unflagged), \
            mock.patch.object(checks, "reference_at_fault", lambda report: nothing):
        without = placed(evaluate(broken))
    return (f"Queue, {len(which)} replaced references: their pairs' median place {with_discount[0]:.0%} of the queue "
            f"from the top ({without[0]:.0%} without the discount); share of the first 10 % that are theirs "
            f"{with_discount[1]:.1%} ({without[1]:.1%} without; their share of all pairs "
            f"{len(damaged_pairs) / len(report.segments):.1%}).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", help=f"test-set folders (default: {', '.join(DEFAULT_SETS)} in --data)")
    parser.add_argument("--data", metavar="DIR", help=f"the development data (default: ${devdata.ENV_VAR}, else "
                        f"{devdata.DEFAULT})")
    parser.add_argument("--share", type=float, default=0.05, help="share of segments damaged per round")
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders] or [devdata.folder(name, args.data) for name in DEFAULT_SETS]
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
