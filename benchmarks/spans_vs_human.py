"""Predicted error spans (``mtdiag.spans``) against the error spans human raters marked (docs/spans.md).

On a test-set folder with one row per human error and its span (``mqm.errors.tsv``, MQM; or ``esa.jsonl``, ESA) —
by default the WMT21 TED zh-en dev set, ``ted/zh-en`` of the development data (``benchmarks/devdata.py``:
``--data``, ``$MTDIAG_DEV_DATA``, else ``tests/data/dev``) — over the outputs a rater rated (systems matching ``--exclude`` left out: TED's degraded
``metricsystem*`` controls, as in ``triage_vs_human.py``), with each single reference, with all of them, and with
none, it prints:

- **span precision**: the share of predicted spans that overlap (share a character with) a human error span of the
  same output;
- **major recall**: the share of human major/critical error spans (and any error weighing 5 or more, e.g. MQM's
  Non-translation) that a predicted span overlaps;
- **character precision, recall and F1** over the non-space characters of the rated outputs: predicted = in a
  predicted span, true = in a human error span (several raters of one output: the union of their spans);
- **characters marked**: the share of those characters in a predicted span;

each next to the **baseline** "words of the output that are not in the reference": the output's word tokens (the
report's tokens — sacrebleu's tokeniser for the target language, case-folded, typography normalised — that are
not punctuation) that occur nowhere in the segment's reference (with several references: in none of them), each
run of consecutive such tokens one span (a punctuation token or a word the reference has ends a run). Without
references our spans are compared with the baseline *with* the first reference and with all of them.

Every figure is **held out**: the confidence models (``mtdiag.spans.confidence``) are fitted on the other talks
(documents; a set without them: five blocks of consecutive segments) and applied to the held-out talk, for each
talk in turn (a kind with fewer than :data:`MIN_FIT` phrases to fit on keeps the stored coefficients); spans are
kept at the default threshold (``mtdiag.spans.DEFAULT_THRESHOLD``, decided before measuring: better than
chance), not at the best threshold found here.

Goals: with references, span precision ≥ 1.5 × the baseline's at major recall ≥ 0.5, character F1 ≥ the
baseline's and no more characters marked; without references, span precision ≥ the baseline's (which has the
reference) at major recall ≥ 0.4.

``--fit`` prints the coefficients and counts ``mtdiag/spans/confidence.py`` holds, fitted on every talk.

Usage: ``python benchmarks/spans_vs_human.py [FOLDER] [--exclude REGEX] [--fit]`` (Markdown on stdout).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SET = "ted/zh-en"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import devdata  # noqa: E402

from mtdiag import checks  # noqa: E402
from mtdiag.api import evaluate  # noqa: E402
from mtdiag.errors import InputError  # noqa: E402
from mtdiag.io import load_folder  # noqa: E402
from mtdiag.spans import DEFAULT_THRESHOLD, predict_spans  # noqa: E402
from mtdiag.spans.confidence import (CHECK_EVIDENCE, LEXICAL_MODELS, check_confidence, lexical_confidence,  # noqa: E402
                                     lexical_features)
from mtdiag.spans.phrases import GAP, phrases  # noqa: E402
from mtdiag.spans.agreement import (SPAN_MEASURES, CharacterAxis, HumanSpans, character_axis,  # noqa: E402
                                    human_spans, rated_pairs, severity_f1, span_measures)
from mtdiag.spans.predict import check_spans, locator, phrase_spans  # noqa: E402
from mtdiag.spans.support import word_support  # noqa: E402

L2 = 1.0  # ridge penalty of the logistic fits (on the coefficients, not the intercept): a few thousand phrases
MIN_FIT = 50  # phrases of a kind (with hits and misses) below which a fold keeps the stored coefficients
FOLDS = 5  # a set without documents is cut into this many blocks of consecutive segments


# --- the human spans -------------------------------------------------------------------------------------------

@dataclass
class Truth:
    """The rated outputs on one character axis (``mtdiag.spans.agreement``): their human spans and, per output, the
    fold (talk) it is held out in."""

    human: HumanSpans
    docs: np.ndarray

    @property
    def axis(self) -> CharacterAxis:
        return self.human.axis

    @property
    def pairs(self) -> tuple[tuple[str, int], ...]:
        return self.axis.pairs


def truth_of(evalset) -> Truth:
    axis = character_axis(evalset.hyps, rated_pairs(evalset))
    folds = folds_of(evalset)
    return Truth(human=human_spans(axis, evalset.annotations),
                 docs=np.array([folds[g] for _, g in axis.pairs], dtype=object))


def folds_of(evalset) -> np.ndarray:
    """Per segment, the fold it is held out in: its document (talk), or — with fewer than two documents — one of
    :data:`FOLDS` blocks of consecutive segments."""
    n = evalset.n_segments
    if "doc" in evalset.segments and evalset.segments["doc"].nunique() >= 2:
        return evalset.segments["doc"].astype(str).to_numpy()
    return np.array([f"block {1 + i * FOLDS // max(n, 1)}" for i in range(n)], dtype=object)


def on_axis(truth: Truth, spans: pd.DataFrame) -> pd.DataFrame:
    """The spans of rated outputs, with their ``pair`` (position on the axis), ``a``/``b`` on the axis, the pair's
    ``doc`` and whether each ``hit`` (overlaps) a human error span."""
    pair = truth.axis.index(spans["system"], spans["seg"])
    spans = spans[pair >= 0].copy()
    pair = pair[pair >= 0]
    start = truth.axis.base[pair] + np.minimum(spans["start"].to_numpy(dtype=np.int64), truth.axis.lengths[pair])
    end = truth.axis.base[pair] + np.minimum(spans["end"].to_numpy(dtype=np.int64), truth.axis.lengths[pair])
    spans["pair"], spans["a"], spans["b"] = pair, start, end
    spans["doc"] = truth.docs[pair] if len(spans) else np.zeros(0, dtype=object)
    covered = np.concatenate([[0], np.cumsum(truth.human.error)])
    spans["hit"] = covered[end] - covered[start] > 0
    return spans


def figures(truth: Truth, spans: pd.DataFrame, docs: set[str] | None = None) -> dict[str, float]:
    """The measures of the module docstring (``mtdiag.spans.agreement.span_measures`` and ``severity_f1``) over
    the outputs of ``docs`` (default every talk)."""
    within = None if docs is None else np.isin(truth.docs, list(docs))
    found = span_measures(truth.human, spans, within)
    if "severity" in spans:
        found.update(severity_f1(truth.human, spans, within))
    return found


# --- the baseline ----------------------------------------------------------------------------------------------

def baseline_spans(report) -> pd.DataFrame:
    """Runs of output words that no reference of the report has (the module docstring), located."""
    support = word_support(report)
    unmatched = support.word & (support.rho == 0)
    at = np.flatnonzero(unmatched)
    follows = (support.system[at[1:]] == support.system[at[:-1]]) & (support.seg[at[1:]] == support.seg[at[:-1]]) \
        & (support.pos[at[1:]] == support.pos[at[:-1]] + 1)
    starts = np.flatnonzero(np.concatenate([[True], ~follows])) if len(at) else np.zeros(0, np.int64)
    ends = np.concatenate([starts[1:], [len(at)]]) - 1
    tokens = pd.DataFrame({"system": np.asarray(support.systems, dtype=object)[support.system[at[starts]]],
                           "seg": support.seg[at[starts]], "first": support.pos[at[starts]],
                           "last": support.pos[at[ends]]})
    return locator(report).frame(tokens)


# --- fitting the confidences -----------------------------------------------------------------------------------

def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = L2) -> np.ndarray:
    """Maximum-likelihood logistic regression (Newton's method) with a ridge penalty on the slopes:
    ``[intercept, slopes...]``."""
    x = np.column_stack([np.ones(len(features)), features])
    w = np.zeros(x.shape[1])
    penalty = np.diag([0.0] + [l2] * features.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - labels) + penalty @ w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


def fit_models(phrase_frames: list[pd.DataFrame]) -> dict[str, tuple[float, float, float]]:
    """One coefficient triple per kind of evidence, fitted on the pooled labelled phrases of that kind."""
    pooled = pd.concat(phrase_frames, ignore_index=True)
    models = {}
    for kind, part in pooled.groupby("kind"):
        if len(part) < MIN_FIT or part["hit"].nunique() < 2:
            continue
        features = lexical_features(part["min_sigma"].to_numpy(), part["words"].to_numpy())
        if kind == "no_reference":
            features = features[:, 1:]  # no consensus: 1 − σ_min is 0 throughout
            b0, b2 = fit_logistic(features, part["hit"].to_numpy(dtype=float))
            models[kind] = (float(b0), 0.0, float(b2))
        else:
            b0, b1, b2 = fit_logistic(features, part["hit"].to_numpy(dtype=float))
            models[kind] = (float(b0), float(b1), float(b2))
    return {**LEXICAL_MODELS, **models}


def fit_checks(check_frames: list[pd.DataFrame]) -> dict[str, tuple[int, int]]:
    """Per check: (spans that overlap a human error, spans); a mark found in several settings counts once."""
    pooled = pd.concat(check_frames, ignore_index=True) if check_frames else pd.DataFrame({"kind": [], "hit": []})
    pooled = pooled.drop_duplicates(["system", "seg", "start", "end", "kind"]) if len(pooled) else pooled
    return {kind: (int(part["hit"].sum()), len(part)) for kind, part in pooled.groupby("kind")}


# --- one setting: which references the report has --------------------------------------------------------------

@dataclass
class Setting:
    name: str
    report: object
    phrases: pd.DataFrame  # located, labelled phrases (on the truth's axis)
    checks: pd.DataFrame  # located, labelled check spans
    baseline: pd.DataFrame | None  # the baseline with this setting's references (None without references)


def setting(name: str, evalset, refs: list[str], truth: Truth, consensus: bool = True) -> Setting:
    report = evaluate(evalset if refs == list(evalset.ref_names) else
                      replace(evalset, refs=evalset.refs[refs], terms=evalset.terms if refs else None))
    if consensus:
        found = phrase_spans(report)
    else:  # what a user with one system and these references sees: no system support
        support = word_support(report)
        found = locator(report).frame(phrases(replace(support, sigma=np.full(len(support.sigma), np.nan))))
    marks = [check_spans(report, c) for c in checks.active_checks(report) if c.marks]
    marks = pd.concat(marks, ignore_index=True) if marks else found.iloc[:0]
    return Setting(name=name, report=report, phrases=on_axis(truth, found), checks=on_axis(truth, marks),
                   baseline=on_axis(truth, baseline_spans(report)) if refs else None)


def held_out(settings: list[Setting], threshold: float) -> dict[str, pd.DataFrame]:
    """Per setting, the spans kept at ``threshold`` when each talk's confidences come from models fitted on the
    other talks (lexical models pooled over the settings, check counts too)."""
    docs = sorted(set().union(*(set(s.phrases["doc"]) for s in settings)))
    kept: dict[str, list[pd.DataFrame]] = {s.name: [] for s in settings}
    for doc in docs:
        models = fit_models([s.phrases[s.phrases["doc"] != doc] for s in settings])
        evidence = fit_checks([s.checks[s.checks["doc"] != doc] for s in settings])
        for s in settings:
            part = s.phrases[s.phrases["doc"] == doc]
            if len(part):
                part = part.assign(confidence=lexical_confidence(part["kind"].iat[0], part["min_sigma"].to_numpy(),
                                                                 part["words"].to_numpy(), models))
            marks = s.checks[s.checks["doc"] == doc]
            marks = marks.assign(confidence=[check_confidence(k, evidence) for k in marks["kind"]])
            both = pd.concat([part, marks], ignore_index=True)
            kept[s.name].append(both[both["confidence"] >= threshold])
    return {name: pd.concat(parts, ignore_index=True) for name, parts in kept.items()}


# --- printing --------------------------------------------------------------------------------------------------

def row(label: str, f: dict[str, float]) -> str:
    return (f"| {label} | {f['spans']:,} | {f['precision']:.3f} | {f['major_recall']:.3f} | {f['char_p']:.3f} | "
            f"{f['char_r']:.3f} | {f['char_f1']:.3f} | {f['marked']:.3f} |")


HEADER = ("| spans | n | span precision | major recall | char precision | char recall | char F1 | chars marked |\n"
          "|---|---|---|---|---|---|---|---|")


def goals(ours: dict[str, float], base: dict[str, float], with_refs: bool) -> str:
    """The goals of the module docstring, each with its figure."""
    if with_refs:
        items = [(f"precision {ours['precision'] / base['precision']:.2f}× the baseline's (≥ 1.5×)",
                  ours["precision"] >= 1.5 * base["precision"]),
                 (f"major recall {ours['major_recall']:.3f} (≥ 0.5)", ours["major_recall"] >= 0.5),
                 (f"char F1 {ours['char_f1']:.3f} vs {base['char_f1']:.3f} (≥)", ours["char_f1"] >= base["char_f1"]),
                 (f"marked {ours['marked']:.3f} vs {base['marked']:.3f} (≤)", ours["marked"] <= base["marked"])]
    else:
        items = [(f"precision {ours['precision']:.3f} vs the baseline's {base['precision']:.3f} with the "
                  "reference (≥)", ours["precision"] >= base["precision"]),
                 (f"major recall {ours['major_recall']:.3f} (≥ 0.4)", ours["major_recall"] >= 0.4)]
    return "; ".join(f"{text} {'✓' if met else '✗'}" for text, met in items)


def calibration(kept: pd.DataFrame) -> list[str]:
    bins = [0.0, 0.2, 0.3, 0.4, 0.5, 1.01]
    lines = ["| held-out confidence | spans | mean confidence | observed precision |", "|---|---|---|---|"]
    for lo, hi in zip(bins[:-1], bins[1:]):
        part = kept[(kept["confidence"] >= lo) & (kept["confidence"] < hi)]
        if len(part):
            lines.append(f"| {lo:.1f}–{min(hi, 1.0):.1f} | {len(part):,} | {part['confidence'].mean():.3f} | "
                         f"{part['hit'].mean():.3f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", help=f"test-set folder (default: {DEFAULT_SET} of --data)")
    parser.add_argument("--data", metavar="DIR", help=f"development data (default: ${devdata.ENV_VAR}, else "
                                                      f"{devdata.DEFAULT})")
    parser.add_argument("--exclude", default="^metricsystem", metavar="REGEX",
                        help="leave out systems whose name matches (default: %(default)s, TED's degraded controls)")
    parser.add_argument("--fit", action="store_true", help="print the constants of mtdiag/spans/confidence.py")
    args = parser.parse_args(argv)
    folder = Path(args.folder) if args.folder else devdata.folder(DEFAULT_SET, args.data)
    if not folder.is_dir():
        print(f"spans_vs_human: no test-set folder at {folder} (the default is {DEFAULT_SET} of the development "
              f"data; {devdata.SOURCES})", file=sys.stderr)
        return 1
    try:
        evalset = load_folder(folder)
    except InputError as error:
        print(f"spans_vs_human: {error}", file=sys.stderr)
        return 1
    if evalset.annotations is None or not (evalset.annotations["side"] == "target").any():
        print(f"spans_vs_human: {folder} has no human error spans (mqm.errors.tsv or esa.jsonl; MQM error spans of "
              "WMT sets: github.com/google/wmt-mqm-human-evaluation)", file=sys.stderr)
        return 1
    kept = [s for s in evalset.systems if not (args.exclude and re.search(args.exclude, s))]
    full = evalset
    evalset = evalset.with_hyps(evalset.hyps[kept])
    truth = truth_of(evalset)
    refs = list(evalset.ref_names)
    plan = [(f"reference {r}", [r]) for r in refs] + ([("all references", refs)] if len(refs) > 1 else [])
    settings = [setting(name, evalset, chosen, truth) for name, chosen in plan]
    settings.append(setting("no reference", evalset, [], truth))
    alone = [setting(f"{name}, no consensus", evalset, chosen, truth, consensus=False) for name, chosen in plan]
    everything = settings + alone

    if args.fit:
        models = fit_models([s.phrases for s in everything])
        evidence = fit_checks([s.checks for s in everything])
        hits = pd.concat([s.phrases for s in everything], ignore_index=True)
        print("LEXICAL_MODELS = {")
        for kind, (b0, b1, b2) in sorted(models.items()):
            print(f'    "{kind}": ({b0:.3f}, {b1:.3f}, {b2:.3f}),')
        print("}")
        print(f"CHECK_EVIDENCE = {dict(sorted(evidence.items()))}")
        for kind, part in hits[hits["hit"]].groupby("kind"):
            print(f"# {kind}: {covered_major(truth, part):.1%} of the phrases that overlap a human error overlap a "
                  "major one")
        stored = {k: tuple(round(v, 3) for v in c) for k, c in LEXICAL_MODELS.items()}
        fitted = {k: tuple(round(v, 3) for v in c) for k, c in models.items()}
        same = stored == fitted and evidence == CHECK_EVIDENCE
        print(f"# mtdiag/spans/confidence.py holds {'these' if same else 'other'} values")
        return 0

    name = f"{folder.parent.name}/{folder.name}"
    print(f"# Predicted error spans against human error spans: {name}\n")
    error, nonspace = truth.human.error, truth.axis.nonspace
    print(f"{len(truth.pairs):,} rated outputs ({len(kept)} systems), {int(error[nonspace].sum()):,} of "
          f"{int(nonspace.sum()):,} non-space characters in a human error span "
          f"({error[nonspace].mean():.1%}), {int(truth.human.is_major.sum()):,} major human spans, "
          f"{word_rate(truth, settings[0].report):.1%} of the output words in a human error span (the chance level "
          f"of a one-word span); talks (documents): {len(set(truth.docs))}. Default threshold {DEFAULT_THRESHOLD}; "
          "every figure held out by talk.\n")
    kept_spans = held_out(everything, DEFAULT_THRESHOLD)
    summary = []
    for s in settings:
        ours = figures(truth, kept_spans[s.name])
        print(f"## {s.name}\n\n{HEADER}")
        print(row("**predicted (mtdiag.spans)**", ours))
        if s.baseline is not None:
            base = figures(truth, s.baseline)
            print(row("baseline: words not in the reference(s)", base))
            print(f"\nGoals: {goals(ours, base, True)}.\n")
            summary.append((s.name, ours, base))
        else:
            lines = []
            for r in settings:
                if r.baseline is not None:
                    base = figures(truth, r.baseline)
                    print(row(f"baseline with {r.name}", base))
                    lines.append(f"against the baseline with {r.name}: {goals(ours, base, False)}")
                    summary.append((f"no reference vs baseline with {r.name}", ours, base))
            print("\nGoals: " + ". ".join(lines) + ".\n")
    for s in alone:
        ours = figures(truth, kept_spans[s.name])
        print(f"## {s.name} (each system alone: no system support)\n\n{HEADER}")
        print(row("**predicted (mtdiag.spans)**", ours))
        print(row("baseline: words not in the reference(s)", figures(truth, s.baseline)) + "\n")

    print("## Per talk (held out)\n")
    print("| setting | talk | outputs | span precision | baseline's | major recall |\n|---|---|---|---|---|---|")
    for s in settings:
        base_setting = s if s.baseline is not None else settings[0]
        for doc in sorted(set(truth.docs)):
            ours = figures(truth, kept_spans[s.name], {doc})
            base = figures(truth, base_setting.baseline, {doc})
            print(f"| {s.name} | {doc} | {int((truth.docs == doc).sum())} | {ours['precision']:.3f} | "
                  f"{base['precision']:.3f} | {ours['major_recall']:.3f} |")
    print()
    for s in settings:
        print(f"## Calibration: {s.name}\n")
        print("\n".join(calibration(kept_spans[s.name])) + "\n")

    print("## Check marks (all talks)\n\n| check | spans | overlapping a human error | confidence (Laplace) |\n"
          "|---|---|---|---|")
    evidence = fit_checks([s.checks for s in everything])
    for kind, (hits, n) in sorted(evidence.items()):
        print(f"| {kind} | {n} | {hits} | {(hits + 1) / (n + 2):.3f} |")
    print()

    print(f"## Phrase gap (tokens bridged between two candidate words; chosen: {GAP})\n")
    print("| setting | gap | n | span precision | major recall | char F1 | chars marked |\n"
          "|---|---|---|---|---|---|---|")
    for s in settings:
        support = word_support(s.report)
        for gap in range(4):
            found = on_axis(truth, locator(s.report).frame(phrases(support, gap)))
            f = figures(truth, found)
            print(f"| {s.name} | {gap} | {f['spans']:,} | {f['precision']:.3f} | {f['major_recall']:.3f} | "
                  f"{f['char_f1']:.3f} | {f['marked']:.3f} |")
    print()

    start = time.perf_counter()
    report = evaluate(full)
    scored = time.perf_counter() - start
    start = time.perf_counter()
    predicted = predict_spans(report)
    spent = time.perf_counter() - start
    print(f"Speed: the whole set ({len(full.systems)} systems × {full.n_segments} segments, every reference): "
          f"evaluate {scored:.1f} s, then predict_spans {spent:.2f} s ({len(predicted):,} spans).\n")
    print("## Summary\n\n| setting | span precision (baseline) | ratio | major recall | char F1 (baseline) | "
          "chars marked (baseline) |\n|---|---|---|---|---|---|")
    for label, ours, base in summary:
        ratio = ours["precision"] / base["precision"] if base["precision"] else math.nan
        print(f"| {label} | {ours['precision']:.3f} ({base['precision']:.3f}) | {ratio:.2f}× | "
              f"{ours['major_recall']:.3f} | {ours['char_f1']:.3f} ({base['char_f1']:.3f}) | {ours['marked']:.3f} "
              f"({base['marked']:.3f}) |")
    return 0


def word_rate(truth: Truth, report) -> float:
    """The share of the rated outputs' words (tokens that are not punctuation) that overlap a human error span."""
    support = word_support(report)
    at = np.flatnonzero(support.word)
    words = pd.DataFrame({"system": np.asarray(support.systems, dtype=object)[support.system[at]],
                          "seg": support.seg[at], "first": support.pos[at], "last": support.pos[at]})
    return float(on_axis(truth, locator(report).frame(words))["hit"].mean())


def covered_major(truth: Truth, spans: pd.DataFrame) -> float:
    """The share of the spans that overlap a major human span."""
    human = truth.human
    major = np.zeros(truth.axis.size + 1, dtype=np.int64)
    np.add.at(major, human.start[human.is_major], 1)
    np.add.at(major, human.end[human.is_major], -1)
    covered = np.concatenate([[0], np.cumsum(np.cumsum(major[:-1]) > 0)])
    return float((covered[spans["b"].to_numpy()] - covered[spans["a"].to_numpy()] > 0).mean()) if len(spans) else 0.0


if __name__ == "__main__":
    sys.exit(main())
