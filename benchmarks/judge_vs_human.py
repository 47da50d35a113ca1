"""The learned judge measured where it was not fitted: per dev set held out by language pair (and by protocol), and
with ``--heldout`` on the held-out sets with the shipped model (``docs/spans.md``, ``docs/triage.md``).

Per set it prints:

- **scores** — within-segment pairwise accuracy (the headline for ranking: the systems' outputs of one source
  compared, free of length), system pairwise accuracy (with a 95 % bootstrap interval over the set's sources for
  the judge) and segment Pearson of the judge's score (predicted MQM on MQM sets, predicted ESA on ESA sets), of
  chrF and of the **length baseline** (minus the output's characters: shorter is better) — beside every
  correlation, what length alone reaches;
- **spans** — the WMT23 QE task 2 character F1 with severity (``mtdiag.spans.agreement.severity_f1``) of the
  protocol's spans (``mtdiag spans --protocol``) against four trivial strategies: every character minor, every
  character major, the reference diff (output words no reference has) marked minor, and marked major;
- **queue** — the lift at 10 % of the worst-first queue (``mtdiag.triage.ranking.worst_first``, as shown) against
  the human-worst 10 % (MQM: most penalised; ESA: lowest), and of every single signal: each segment metric, the
  judge's score and the output's length.

The dev sets' judge scores come from the model refitted without the set's language pair (leave-one-pair-out; the
ESA set's fold is also leave-one-protocol-out) and, as a second protocol fold, from the model fitted on the ESA set
alone for the MQM sets; the held-out sets (``--heldout``) are scored by the shipped model, fitted on every dev set,
and nothing is chosen on them. ``--write-figures`` stores the figures the dashboard's captions quote
(``mtdiag/spans/judge_figures.json``: the dev folds' system and within-segment accuracy of the judge and chrF).

Usage: ``python benchmarks/judge_vs_human.py [--heldout] [--data DIR] [--devdata DIR] [--sets NAME,...]
[--resamples N] [--write-figures]`` (Markdown on stdout).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_judge  # noqa: E402
from spans_vs_human import baseline_spans  # noqa: E402
from mtdiag.metrics import metric_info  # noqa: E402
from mtdiag.scoring.evaluate import evaluate  # noqa: E402
from mtdiag.spans.agreement import (character_axis, human_spans, pairwise_accuracy, pearson,  # noqa: E402
                                    rated_pairs, score_agreement, severity_f1, system_accuracy_interval,
                                    within_segment_accuracy)
from mtdiag.spans.judge import FIGURES_FILE, judged, stored_model  # noqa: E402
from mtdiag.spans.judge_training import fit_model, training_rows  # noqa: E402
from mtdiag.spans.protocol import protocol_spans  # noqa: E402
from mtdiag.triage import ranking  # noqa: E402

RESAMPLES = 1000
SCORE_ROWS = ("judge", "chrf", "length")


def human_table(report) -> pd.DataFrame:
    """``system, seg, human`` (mean over raters, higher = better) of the report's rated outputs."""
    human = report.evalset.human
    human = human[human["system"].isin(report.evalset.systems)]
    return human.groupby(["system", "seg"], sort=False)["score"].mean().rename("human").reset_index()


def output_characters(report) -> pd.Series:
    """Per (system, seg): the output's characters (whitespace included)."""
    hyps = report.evalset.hyps
    return pd.Series(np.concatenate([hyps[s].astype(str).str.len().to_numpy() for s in report.evalset.systems]),
                     index=report.segments.index, dtype=float)


def score_measures(rated: pd.DataFrame, values: np.ndarray) -> dict[str, float]:
    """Within-segment accuracy, system accuracy (means over each system's rated outputs) and segment Pearson."""
    means = pd.DataFrame({"s": rated["system"], "v": values, "h": rated["human"]}).groupby("s").mean()
    return {"within": within_segment_accuracy(rated["seg"], values, rated["human"])[0],
            "system": pairwise_accuracy(means["v"], means["h"])[0], "pearson": pearson(values, rated["human"])}


def judge_score(judge: pd.DataFrame, protocol: str) -> pd.Series:
    """The judge's score on the protocol's scale; a model fitted on the other protocol alone has that one's only
    (the rankings are the same on either scale)."""
    return judge[protocol] if protocol in judge else judge[next(c for c in ("mqm", "esa") if c in judge)]


def scores_section(report, protocol: str, judge: pd.DataFrame, resamples: int) -> dict:
    """The score figures of one set: the judge (its protocol's scale), chrF (its corpus score on the rated
    segments at system level) and the length baseline."""
    rated = human_table(report)
    index = pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])
    values = judge_score(judge, protocol).reindex(index).to_numpy()
    figures = {"judge": score_measures(rated, values)}
    figures["judge"]["interval"] = system_accuracy_interval(rated["seg"], rated["system"], values, rated["human"],
                                                            resamples)
    chrf = score_measures(rated, report.segments["chrf"].reindex(index).to_numpy())
    chrf["system"] = score_agreement(report, "chrf", human=rated.rename(columns={"human": "score"}))["sys_accuracy"]
    figures["chrf"] = chrf
    figures["length"] = score_measures(rated, -output_characters(report).reindex(index).to_numpy())
    return figures


def spans_section(report, protocol: str, judge: pd.DataFrame) -> dict:
    """Severity F1 of the protocol's spans (gated by ``judge``, the fold's scores) and of the four trivial
    strategies on the rated outputs."""
    evalset = report.evalset
    axis = character_axis(evalset.hyps, rated_pairs(evalset))
    human = human_spans(axis, evalset.annotations)
    every = pd.DataFrame({"system": [s for s, _ in axis.pairs], "seg": [g for _, g in axis.pairs],
                          "start": 0, "end": axis.lengths})
    diff = baseline_spans(report)  # the trivial reference diff (severity added below)
    strategies = {"ours": protocol_spans(report, protocol, judge),
                  "every character minor": every.assign(severity="minor"),
                  "every character major": every.assign(severity="major"),
                  "reference diff minor": diff.assign(severity="minor"),
                  "reference diff major": diff.assign(severity="major")}
    return {name: severity_f1(human, spans)["sev_f1"] for name, spans in strategies.items()}


def queue_section(report, protocol: str, judge: pd.DataFrame) -> dict:
    """Lift at 10 % of the queue and of every single signal against the human-worst outputs."""
    rated = human_table(report)
    index = pd.MultiIndex.from_arrays([rated["system"], rated["seg"]])
    bad = (100.0 - rated["human"] if protocol == "esa" else -rated["human"]).to_numpy()
    queue = ranking.worst_first(report)
    place = pd.Series(np.arange(len(queue)), index=pd.MultiIndex.from_arrays([queue["system"], queue["seg"]]))
    lifts = {"queue": ranking.lift(-place.reindex(index).to_numpy(float), bad)}
    for metric in report.metrics:
        info = metric_info(metric, report)
        if info.segment_level and info.has_direction and metric not in ("predicted_mqm", "predicted_esa"):
            values = report.segments[metric].reindex(index)
            lifts[metric] = ranking.lift(-info.oriented(values).to_numpy(dtype=float), bad)
    lifts["judge"] = ranking.lift(-judge_score(judge, protocol).reindex(index).to_numpy(), bad)
    lifts["length"] = ranking.lift(output_characters(report).reindex(index).to_numpy(), bad)
    return lifts


def dev_judges(reports: dict, rows: pd.DataFrame) -> dict[str, dict[str, pd.DataFrame]]:
    """Per dev set, the judge's scores by fold: ``pair`` (the model fitted without the set's language pair) and,
    for MQM sets, ``protocol`` (fitted on the ESA sets alone)."""
    judges: dict[str, dict[str, pd.DataFrame]] = {}
    esa_only = rows[rows["protocol"] == "esa"]
    protocol_model = fit_model(esa_only) if len(esa_only) else None
    for pair in dict.fromkeys(rows["pair"]):
        model = fit_model(rows[rows["pair"] != pair])
        for dev in (d for d in train_judge.DEV_SETS if d.pair == pair and d.name in reports):
            judges[dev.name] = {"pair": judged(reports[dev.name], model)}
            if dev.protocol == "mqm" and protocol_model is not None:
                judges[dev.name]["protocol"] = judged(reports[dev.name], protocol_model)
    return judges


def score_lines(name: str, fold: str, figures: dict) -> list[str]:
    judge, chrf, length = (figures[k] for k in SCORE_ROWS)
    low, high = judge["interval"]
    return [f"| {name} | {fold} | **{judge['within']:.3f}** / {chrf['within']:.3f} / {length['within']:.3f} | "
            f"**{judge['system']:.2f}** [{low:.2f}, {high:.2f}] / {chrf['system']:.2f} / {length['system']:.2f} | "
            f"{judge['pearson']:.3f} / {chrf['pearson']:.3f} / {length['pearson']:.3f} |"]


def verdicts(name: str, scores: dict, spans: dict, lifts: dict) -> list[str]:
    """The issue's must-show lines of one set (✓ met, ✗ not)."""
    mark = lambda ok: "✓" if ok else "✗"  # noqa: E731
    judge, chrf = scores["judge"], scores["chrf"]
    trivial = max((v, k) for k, v in spans.items() if k != "ours")
    single = max((v, k) for k, v in lifts.items() if k != "queue")
    return [f"| {name} | within-segment ≥ chrF + 0.01 | {judge['within']:.3f} vs {chrf['within'] + 0.01:.3f} | "
            f"{mark(judge['within'] >= chrf['within'] + 0.01)} |",
            f"| {name} | system ≥ chrF | {judge['system']:.2f} vs {chrf['system']:.2f} | "
            f"{mark(judge['system'] >= chrf['system'])} |",
            f"| {name} | spans ≥ 1.2 × best trivial ({trivial[1]}) | {spans['ours']:.3f} vs {1.2 * trivial[0]:.3f} | "
            f"{mark(spans['ours'] >= 1.2 * trivial[0])} |",
            f"| {name} | queue ≥ 1.1 × every single signal (best: {single[1]}) | {lifts['queue']:.2f} vs "
            f"{1.1 * single[0]:.2f} | {mark(lifts['queue'] >= 1.1 * single[0])} |"]


def tables(results: list[dict]) -> list[str]:
    """The benchmark's Markdown: scores, spans, queue, must-show."""
    lines = ["### Scores: judge / chrF / length baseline", "",
             "| set | judge fitted without | within-segment pairwise accuracy | system pairwise accuracy "
             "(judge: 95 % interval) | segment Pearson |", "|---|---|---|---|---|"]
    for r in results:
        for fold, figures in r["scores"].items():
            lines += score_lines(r["name"], fold, figures)
    names = list(results[0]["spans"])
    lines += ["", "### Spans: character F1 with severity (WMT23 QE task 2)", "",
              "| set | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    lines += ["| {} | {} |".format(r["name"], " | ".join(f"{r['spans'][k]:.3f}" for k in names)) for r in results]
    lines += ["", "### Queue: lift at 10 % against the human-worst outputs", "",
              "| set | queue | best single signal | judge | length | every other signal |", "|---|---|---|---|---|---|"]
    for r in results:
        q = r["lifts"]
        others = {k: v for k, v in q.items() if k not in ("queue", "judge", "length")}
        best = max((v, k) for k, v in q.items() if k != "queue")
        lines.append(f"| {r['name']} | **{q['queue']:.2f}** | {best[1]} {best[0]:.2f} | {q['judge']:.2f} | "
                     f"{q['length']:.2f} | " + ", ".join(f"{k} {v:.2f}" for k, v in others.items()) + " |")
    lines += ["", "### Must show", "", "| set | figure | value | met |", "|---|---|---|---|"]
    for r in results:
        main_fold = next(iter(r["scores"]))
        lines += verdicts(r["name"], r["scores"][main_fold], r["spans"], r["lifts"])
    return lines


def caption_figures(results: list[dict]) -> dict:
    """What the dashboard's captions quote, from the dev folds held out by language pair."""
    return {"sets": {r["name"]: {k: {"within": round(r["scores"]["language pair"][k]["within"], 3),
                                     "system": round(r["scores"]["language pair"][k]["system"], 3)}
                                 for k in SCORE_ROWS} for r in results},
            "made_by": "benchmarks/judge_vs_human.py --write-figures (dev sets, leave-one-language-pair-out)"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "tests" / "data" / "dev")
    parser.add_argument("--devdata", type=Path, default=train_judge.default_devdata())
    parser.add_argument("--heldout", action="store_true", help="measure the held-out sets (shipped model)")
    parser.add_argument("--sets", help="comma-separated set names (default: every dev or held-out set)")
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--write-figures", action="store_true", help=f"store the captions' figures ({FIGURES_FILE})")
    args = parser.parse_args(argv)
    chosen = train_judge.HELDOUT_SETS if args.heldout else train_judge.DEV_SETS
    if args.sets:
        chosen = tuple(d for d in chosen if d.name in args.sets.split(","))
    reports = {d.name: evaluate(train_judge.load(d.path(args.data, args.devdata))) for d in chosen}
    if args.heldout:
        judges = {name: {"none (shipped model)": judged(report)} for name, report in reports.items()}
    else:
        rows = pd.concat([training_rows(reports[d.name], d.protocol, d.name).assign(pair=d.pair) for d in chosen],
                         ignore_index=True)
        judges = {name: {{"pair": "language pair", "protocol": "protocol (fitted on ESA)"}[k]: v
                         for k, v in folds.items()} for name, folds in dev_judges(reports, rows).items()}
    results = []
    for dev in chosen:
        report, folds = reports[dev.name], judges[dev.name]
        main_judge = next(iter(folds.values()))
        results.append({"name": dev.name, "protocol": dev.protocol,
                        "scores": {fold: scores_section(report, dev.protocol, j, args.resamples)
                                   for fold, j in folds.items()},
                        "spans": spans_section(report, dev.protocol, main_judge),
                        "lifts": queue_section(report, dev.protocol, main_judge)})
    print("\n".join(tables(results)))
    if args.write_figures and not args.heldout:
        path = REPO / "mtdiag" / "spans" / FIGURES_FILE
        path.write_text(json.dumps(caption_figures(results), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
