"""Predicted error spans (``mtdiag.spans``) and predicted MQM against human judgements (docs/spans.md).

**Spans.** On every test-set folder with one row per human error and its span (``mqm.errors.tsv``, MQM; or
``esa.jsonl``, ESA) — by default the dev sets that have them, ``ted/zh-en`` and ``ted/en-de`` of the development data
(``benchmarks/devdata.py``: ``--data``, ``$MTDIAG_DEV_DATA``, else ``tests/data/dev``) — over the outputs a rater
rated (systems matching ``--exclude`` left out: TED's degraded ``metricsystem*`` controls, as in
``triage_vs_human.py``), with each single reference, with all of them, and with none, it prints the measures of
``mtdiag.spans.agreement``:

- **span precision**: the share of predicted spans that overlap (share a character with) a human error span of the
  same output;
- **major recall**: the share of human major/critical error spans (and any error weighing 5 or more, e.g. MQM's
  Non-translation) that a predicted span overlaps;
- **character precision, recall and F1** over the non-space characters of the rated outputs: predicted = in a
  predicted span, true = in a human error span (several raters of one output: the union of their spans);
- **characters marked**: the share of those characters in a predicted span;
- **character F1 with severity**: the WMT23 QE task 2 measure (every character and one slot after each output; a
  character counts 1 when both mark it with the same severity, ½ with the other);
- the **severities** predicted (shares of critical, major, minor);

each next to the **baseline** "words of the output that are not in the reference": the output's word tokens (the
report's tokens — sacrebleu's tokeniser for the target language, case-folded, typography normalised — that are
not punctuation) that occur nowhere in the segment's reference (with several references: in none of them), each
run of consecutive such tokens one span (a punctuation token or a word the reference has ends a run), marked
major; and, for the severity F1, the **floor** that marks every character major. Without references our spans are
compared with the baseline *with* the references.

Every figure is **held out**: the confidence models (``mtdiag.spans.confidence``) are fitted on the other talks of
*every* set given (documents; a set without them: five blocks of consecutive segments) and applied to the held-out
talk, for each talk in turn (a kind with fewer than :data:`MIN_FIT` phrases to fit on keeps the stored
coefficients); spans are kept at the default threshold (``mtdiag.spans.DEFAULT_THRESHOLD``, decided before
measuring: better than chance), not at the best threshold found here.

**Scores.** On every dev set with MQM scores (``--scores``; default ``ted/zh-en``, ``ted/en-de``, ``wmt21/en-de``,
``wmt21/zh-en``), predicted MQM (``mtdiag.metrics.predicted_mqm``) and chrF against the human MQM scores of the
rated outputs: system-level pairwise accuracy, segment-level Pearson and pairwise accuracy within segments
(``mtdiag.spans.agreement``). On a set whose error rows the confidences were fitted on, predicted MQM comes from
the held-out spans (all references); elsewhere from the stored models.

Goals (the issue's "must show"), on every dev set: predicted severities with minor ≥ 20 % and none above 80 %;
severity F1 ≥ 1.15 × the baseline's and ≥ 2 × the floor's; span precision ≥ 1.5 × the baseline's at major recall
≥ 0.5 and character F1 ≥ the baseline's (with references); predicted MQM's system-level accuracy, segment Pearson
and within-segment accuracy each ≥ chrF's.

``--fit`` prints the coefficients and counts ``mtdiag/spans/confidence.py`` holds, fitted on every talk of every
set given.

Usage: ``python benchmarks/spans_vs_human.py [FOLDER ...] [--scores FOLDER ...] [--exclude REGEX] [--fit]``
(Markdown on stdout).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SPAN_SETS = ("ted/zh-en", "ted/en-de")  # the dev sets with human error rows
SCORE_SETS = ("ted/zh-en", "ted/en-de", "wmt21/en-de", "wmt21/zh-en")  # the dev sets with human MQM scores
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import devdata  # noqa: E402

from mtdiag.triage import checks  # noqa: E402
from mtdiag.scoring.evaluate import Options, default_metrics, evaluate  # noqa: E402
from mtdiag.core.errors import InputError  # noqa: E402
from mtdiag.io import load_folder, weighed  # noqa: E402
from mtdiag.metrics.predicted_mqm import STAT_NAMES  # noqa: E402
from mtdiag.spans import DEFAULT_THRESHOLD, SEVERITIES, predict_spans  # noqa: E402
from mtdiag.spans.agreement import (SPAN_MEASURES, CharacterAxis, HumanSpans, character_axis,  # noqa: E402
                                    human_spans, is_major, mean_score_agreement, rated_pairs, score_agreement,
                                    severity_f1, span_measures)
from mtdiag.spans.confidence import (CHECK_EVIDENCE, LEXICAL_MODELS, check_confidence, lexical_confidence,  # noqa: E402
                                     lexical_features, phrase_severity)
from mtdiag.spans.mqm import penalty_statistics  # noqa: E402
from mtdiag.spans.omissions import missing_reference_words  # noqa: E402
from mtdiag.spans.phrases import GAP, phrases  # noqa: E402
from mtdiag.spans.predict import check_spans, locator, phrase_spans, whole_output_spans  # noqa: E402
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


def truth_of(evalset, name: str = "") -> Truth:
    """The truth of a set's rated outputs; folds named ``name`` + talk (held out across several sets)."""
    evalset = weighed(evalset)  # the set's error rows as spans, by the default scheme (wmt)
    axis = character_axis(evalset.hyps, rated_pairs(evalset))
    folds = np.array([f"{name} {fold}".strip() for fold in folds_of(evalset)], dtype=object)
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
                      replace(evalset, refs=evalset.refs[refs], terms=evalset.terms if refs else None),
                      Options(metrics=("chrf",) if refs else ("consensus",)))
    if consensus:
        found = phrase_spans(report)
    else:  # what a user with one system and these references sees: no system support
        support = word_support(report)
        found = locator(report).frame(phrases(replace(support, sigma=np.full(len(support.sigma), np.nan))))
        found = found.assign(severity=phrase_severity(found["words"].to_numpy()))
    marks = [(check_spans(report, c) if c.marks else whole_output_spans(report, c)).assign(critical=c.critical)
             for c in checks.active_checks(report) if c.marks or c.critical]
    marks = pd.concat(marks, ignore_index=True) if marks else found.iloc[:0].assign(critical=False)
    return Setting(name=name, report=report, phrases=on_axis(truth, found), checks=on_axis(truth, marks),
                   baseline=on_axis(truth, baseline_spans(report).assign(severity="major")) if refs else None)


def held_out(settings: list[Setting], threshold: float) -> dict[str, pd.DataFrame]:
    """Per setting, the spans kept at ``threshold`` when each talk's confidences come from models fitted on the
    other talks (lexical models pooled over the settings and sets, check counts too)."""
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
            marks = marks.assign(confidence=[check_confidence(k, evidence, critical=bool(c))
                                             for k, c in zip(marks["kind"], marks["critical"])])
            both = pd.concat([part, marks], ignore_index=True)
            kept[s.name].append(both[both["confidence"] >= threshold])
    return {name: pd.concat(parts, ignore_index=True) for name, parts in kept.items()}


# --- one set of error rows -------------------------------------------------------------------------------------

@dataclass
class SpanSet:
    name: str
    evalset: object  # the rated systems only
    full: object  # every system
    truth: Truth
    settings: list[Setting]  # each reference, all references, none
    alone: list[Setting]  # each reference without the other systems

    @property
    def everything(self) -> list[Setting]:
        return self.settings + self.alone

    @property
    def with_references(self) -> Setting:
        """The setting with every reference (the user's default)."""
        return [s for s in self.settings if s.baseline is not None][-1]

    @property
    def without_references(self) -> Setting:
        return self.settings[-1]


def span_set(name: str, evalset, exclude: str | None) -> SpanSet:
    kept = [s for s in evalset.systems if not (exclude and re.search(exclude, s))]
    rated = evalset.with_hyps(evalset.hyps[kept])
    truth = truth_of(rated, name)
    refs = list(rated.ref_names)
    plan = [(f"reference {r}", [r]) for r in refs] + ([("all references", refs)] if len(refs) > 1 else [])
    settings = [replace(setting(f"{name}: {label}", rated, chosen, truth), name=f"{name}: {label}")
                for label, chosen in plan]
    settings.append(setting(f"{name}: no reference", rated, [], truth))
    alone = [setting(f"{name}: {label}, no consensus", rated, chosen, truth, consensus=False)
             for label, chosen in plan]
    return SpanSet(name=name, evalset=rated, full=evalset, truth=truth, settings=settings, alone=alone)


def floor_spans(truth: Truth) -> pd.DataFrame:
    """Every character of every rated output marked major (the severity F1's floor)."""
    return pd.DataFrame({"system": [p[0] for p in truth.pairs], "seg": [p[1] for p in truth.pairs], "start": 0,
                         "end": truth.axis.lengths, "severity": "major"})


def severity_shares(spans: pd.DataFrame) -> dict[str, float]:
    counts = spans["severity"].value_counts()
    return {s: float(counts.get(s, 0)) / max(len(spans), 1) for s in SEVERITIES}


# --- printing --------------------------------------------------------------------------------------------------

def row(label: str, f: dict[str, float]) -> str:
    return (f"| {label} | {f['spans']:,} | {f['precision']:.3f} | {f['major_recall']:.3f} | {f['char_p']:.3f} | "
            f"{f['char_r']:.3f} | {f['char_f1']:.3f} | {f['marked']:.3f} | "
            + (f"{f['sev_f1']:.3f} |" if "sev_f1" in f else "— |"))


HEADER = ("| spans | n | span precision | major recall | char precision | char recall | char F1 | chars marked | "
          "severity F1 |\n|---|---|---|---|---|---|---|---|---|")


def mark(met: bool) -> str:
    return "✓" if met else "✗"


def goals(ours: dict[str, float], base: dict[str, float], with_refs: bool) -> str:
    """The span goals of the module docstring, each with its figure."""
    if with_refs:
        items = [(f"precision {ours['precision'] / base['precision']:.2f}× the baseline's (≥ 1.5×)",
                  ours["precision"] >= 1.5 * base["precision"]),
                 (f"major recall {ours['major_recall']:.3f} (≥ 0.5)", ours["major_recall"] >= 0.5),
                 (f"char F1 {ours['char_f1']:.3f} vs {base['char_f1']:.3f} (≥)", ours["char_f1"] >= base["char_f1"])]
    else:
        items = [(f"precision {ours['precision']:.3f} vs the baseline's {base['precision']:.3f} with the "
                  "reference (≥)", ours["precision"] >= base["precision"]),
                 (f"major recall {ours['major_recall']:.3f} (≥ 0.4)", ours["major_recall"] >= 0.4)]
    return "; ".join(f"{text} {mark(met)}" for text, met in items)


def calibration(kept: pd.DataFrame) -> list[str]:
    bins = [0.0, 0.2, 0.3, 0.4, 0.5, 1.01]
    lines = ["| held-out confidence | spans | mean confidence | observed precision |", "|---|---|---|---|"]
    for lo, hi in zip(bins[:-1], bins[1:]):
        part = kept[(kept["confidence"] >= lo) & (kept["confidence"] < hi)]
        if len(part):
            lines.append(f"| {lo:.1f}–{min(hi, 1.0):.1f} | {len(part):,} | {part['confidence'].mean():.3f} | "
                         f"{part['hit'].mean():.3f} |")
    return lines


def severity_bounds(sets: list[SpanSet], kept: dict[str, pd.DataFrame]) -> list[str]:
    """What bounds the severity F1 of these spans: the same spans all major, and with the *oracle* severity — each
    span given the severity of the human error characters it overlaps most (ties and misses keep ours) —, next to
    the goals (1.15 × the baseline's, 2 × the floor's)."""
    lines = ["| set, setting | severity F1 | every span major | oracle severity | 1.15 × baseline | 2 × floor |",
             "|---|---|---|---|---|---|"]
    for one in sets:
        human = one.truth.human
        base = severity_f1(human, one.with_references.baseline)["sev_f1"]
        floor = severity_f1(human, floor_spans(one.truth))["sev_f1"]
        for s in (one.with_references, one.without_references):
            spans = kept[s.name]
            only_major = np.concatenate([[0], np.cumsum(human.major & ~human.minor)])
            only_minor = np.concatenate([[0], np.cumsum(human.minor & ~human.major)])
            major = only_major[spans["b"].to_numpy()] - only_major[spans["a"].to_numpy()]
            minor = only_minor[spans["b"].to_numpy()] - only_minor[spans["a"].to_numpy()]
            oracle = np.where(major > minor, "major", np.where(minor > major, "minor", spans["severity"].to_numpy()))
            found = [severity_f1(human, spans.assign(severity=v))["sev_f1"] for v in
                     (spans["severity"].to_numpy(), "major", oracle)]
            lines.append(f"| {s.name} | {found[0]:.3f} | {found[1]:.3f} | {found[2]:.3f} | {1.15 * base:.3f} | "
                         f"{2 * floor:.3f} |")
    return lines


def rater_severity(sets: list[SpanSet], kept: dict[str, pd.DataFrame]) -> list[str]:
    """How much of a human error's severity is the rater's: the accuracy of guessing it from the same rater's other
    errors (their majority, leave one out) against guessing the set's majority severity, and our rule's accuracy on
    the human errors our spans (with references) overlap."""
    lines = ["| set | human error spans | major | accuracy: the majority severity | accuracy: the rater's other "
             "errors | errors our spans overlap | accuracy: our rule | accuracy: the majority severity |",
             "|---|---|---|---|---|---|---|---|"]
    for one in sets:
        rows = one.evalset.annotations
        rows = rows[(rows["side"] == "target") & (rows["start"] >= 0) & rows["system"].isin(one.evalset.systems)]
        rows = rows[rows["severity"].astype(str).str.strip().str.lower().isin(["minor", "major", "critical"])]
        major = pd.Series(is_major(rows["severity"].to_numpy(), rows["weight"].to_numpy()), index=rows.index)
        by_rater = major.groupby(rows["rater"])
        others, count = by_rater.transform("sum") - major, by_rater.transform("size") - 1
        guess = np.where(count > 0, others / count.clip(lower=1) > 0.5, True)
        spans = kept[one.with_references.name]
        pairs = spans.merge(rows.assign(human_major=major)[["system", "seg", "start", "end", "human_major"]],
                            on=["system", "seg"], suffixes=("", "_human"))
        pairs = pairs[(pairs["start"] < pairs["end_human"]) & (pairs["start_human"] < pairs["end"])]
        ours = (pairs["severity"] != "minor").to_numpy() == pairs["human_major"].to_numpy()
        share = pairs["human_major"].mean()
        lines.append(f"| {one.name} | {len(rows):,} | {major.mean():.1%} | {max(major.mean(), 1 - major.mean()):.3f} | "
                     f"{(guess == major.to_numpy()).mean():.3f} | {len(pairs):,} | {ours.mean():.3f} | "
                     f"{max(share, 1 - share):.3f} |")
    return lines


def carry_over(sets: list[SpanSet]) -> list[str]:
    """Confidences fitted on the other sets alone (every talk) applied to a set: do they carry across sets? Mean
    confidence against observed precision of its spans, with references and without."""
    lines = ["| set, setting | fitted on | spans | mean confidence | observed precision |", "|---|---|---|---|---|"]
    for one in sets:
        others = [o for o in sets if o is not one]
        if not others:
            continue
        models = fit_models([s.phrases for o in others for s in o.everything])
        for s in (one.with_references, one.without_references):
            part = s.phrases
            if not len(part):
                continue
            confidence = lexical_confidence(part["kind"].iat[0], part["min_sigma"].to_numpy(),
                                            part["words"].to_numpy(), models)
            lines.append(f"| {s.name} | {', '.join(o.name for o in others)} | {len(part):,} | "
                         f"{confidence.mean():.3f} | {part['hit'].mean():.3f} |")
    return lines


def severity_table(sets: list[SpanSet], kept: dict[str, pd.DataFrame]) -> tuple[list[str], list[dict]]:
    """The severity lines (shares, severity F1 against the baseline and the floor) and one summary row per set
    and setting."""
    lines = ["| set, setting | spans | critical | major | minor | severity F1 | baseline (words not in the "
             "references, major) | ratio | floor (every character major) | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    rows = []
    for one in sets:
        base = severity_f1(one.truth.human, one.with_references.baseline)["sev_f1"]
        floor = severity_f1(one.truth.human, floor_spans(one.truth))["sev_f1"]
        for s in (one.with_references, one.without_references):
            spans = kept[s.name]
            shares = severity_shares(spans)
            ours = severity_f1(one.truth.human, spans)["sev_f1"]
            lines.append(f"| {s.name} | {len(spans):,} | {shares['critical']:.1%} | {shares['major']:.1%} | "
                         f"{shares['minor']:.1%} | {ours:.3f} | {base:.3f} | {ours / base:.2f}× | {floor:.3f} | "
                         f"{ours / floor:.2f}× |")
            rows.append({"setting": s.name, "shares": shares, "sev_f1": ours, "base": base, "floor": floor})
    return lines, rows


def penalties(one: SpanSet, kept: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per (system, segment) of a set's rated systems (all references): the held-out spans' expected ``penalty``
    (``mtdiag.spans.mqm``), the reference words the output lacks (``omitted``, ``mtdiag.spans.omissions``), the
    segment's ``doc`` (talk) and the ``human`` MQM score (NaN where no one rated it)."""
    report = one.with_references.report
    systems = list(one.evalset.systems)
    stats = penalty_statistics(kept[one.with_references.name], systems, one.evalset.n_segments,
                               missing_reference_words(report))
    index = pd.MultiIndex.from_product([systems, range(one.evalset.n_segments)], names=["system", "seg"])
    human = one.evalset.human.set_index(["system", "seg"])["score"]
    docs = np.array([f"{one.name} {d}" for d in folds_of(one.evalset)], dtype=object)
    return pd.DataFrame({"penalty": stats[..., STAT_NAMES.index("penalty")].ravel(),
                         "omitted": stats[..., STAT_NAMES.index("omitted")].ravel(),
                         "doc": np.tile(docs, len(systems)),
                         "human": human.groupby(level=[0, 1]).mean().reindex(index).to_numpy(dtype=float)},
                        index=index)


def fit_omission_weight(frames: list[pd.DataFrame]) -> float:
    """The weight of a missing reference word in predicted MQM: the ratio ``b / a`` of the least-squares fit
    ``human penalty ≈ a · span penalty + b · missing words`` (no intercept: a clean output is 0) over the rated
    outputs of the frames (:func:`penalties`)."""
    pooled = pd.concat(frames)
    pooled = pooled[np.isfinite(pooled["human"])]
    (a, b), *_ = np.linalg.lstsq(pooled[["penalty", "omitted"]].to_numpy(dtype=float),
                                 -pooled["human"].to_numpy(dtype=float), rcond=None)
    return float(b / a)


def held_out_mqm(frames: dict[str, pd.DataFrame], name: str) -> pd.Series:
    """Predicted MQM of set ``name`` per (system, segment), each talk's omission weight fitted on the other talks of
    every set (:func:`fit_omission_weight`)."""
    frame = frames[name]
    weight = {doc: fit_omission_weight([f[f["doc"] != doc] for f in frames.values()]) for doc in set(frame["doc"])}
    return -(frame["penalty"] + frame["doc"].map(weight) * frame["omitted"])


def score_rows(name: str, folder: Path, exclude: str | None, frames: dict[str, pd.DataFrame]
               ) -> list[tuple[str, str, dict]]:
    """Predicted MQM and chrF against the human MQM scores of one set: (set, metric, measures)."""
    evalset = weighed(load_folder(folder))
    systems = [s for s in evalset.systems if not (exclude and re.search(exclude, s))]
    evalset = evalset.with_hyps(evalset.hyps[systems])
    human = evalset.human[evalset.human["system"].isin(systems)]
    report = evaluate(evalset, Options(metrics=("chrf", "predicted_mqm")))
    found = [(name, "chrF", score_agreement(report, "chrf"))]
    if name in frames:  # held out: the spans of the all-references setting and the omission weight, by talk
        found.append((name, "predicted MQM (held out)", mean_score_agreement(held_out_mqm(frames, name), human)))
    else:
        found.append((name, "predicted MQM", score_agreement(report, "predicted_mqm")))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", metavar="FOLDER",
                        help=f"test-set folders with error rows (default: {', '.join(SPAN_SETS)} of --data)")
    parser.add_argument("--scores", nargs="*", metavar="FOLDER",
                        help=f"test-set folders with MQM scores (default: {', '.join(SCORE_SETS)} of --data; with "
                             "FOLDERs given: those)")
    parser.add_argument("--data", metavar="DIR", help=f"development data (default: ${devdata.ENV_VAR}, else "
                                                      f"{devdata.DEFAULT})")
    parser.add_argument("--exclude", default="^metricsystem", metavar="REGEX",
                        help="leave out systems whose name matches (default: %(default)s, TED's degraded controls)")
    parser.add_argument("--fit", action="store_true", help="print the constants of mtdiag/spans/confidence.py")
    args = parser.parse_args(argv)
    given = [Path(f) for f in args.folders]
    folders = given or [devdata.root(args.data) / name for name in SPAN_SETS]
    scored = ([Path(f) for f in args.scores] if args.scores is not None else
              given or [devdata.root(args.data) / name for name in SCORE_SETS])
    sets = []
    for folder in folders:
        if not folder.is_dir():
            print(f"spans_vs_human: no test-set folder at {folder} (the defaults are {', '.join(SPAN_SETS)} of the "
                  f"development data; {devdata.SOURCES})", file=sys.stderr)
            return 1
        try:
            evalset = weighed(load_folder(folder))
        except InputError as error:
            print(f"spans_vs_human: {error}", file=sys.stderr)
            return 1
        if evalset.annotations is None or not (evalset.annotations["side"] == "target").any():
            print(f"spans_vs_human: {folder} has no human error spans (mqm.errors.tsv or esa.jsonl; MQM error spans "
                  "of WMT sets: github.com/google/wmt-mqm-human-evaluation)", file=sys.stderr)
            return 1
        sets.append(span_set(f"{folder.parent.name}/{folder.name}", evalset, args.exclude))
    everything = [s for one in sets for s in one.everything]

    if args.fit:
        models = fit_models([s.phrases for s in everything])
        evidence = fit_checks([s.checks[~s.checks["critical"].astype(bool)] for s in everything])
        print("LEXICAL_MODELS = {")
        for kind, (b0, b1, b2) in sorted(models.items()):
            print(f'    "{kind}": ({b0:.3f}, {b1:.3f}, {b2:.3f}),')
        print("}")
        print(f"CHECK_EVIDENCE = {dict(sorted(evidence.items()))}")
        stored = {k: tuple(round(v, 3) for v in c) for k, c in LEXICAL_MODELS.items()}
        fitted = {k: tuple(round(v, 3) for v in c) for k, c in models.items()}
        same = stored == fitted and evidence == CHECK_EVIDENCE
        print(f"# mtdiag/spans/confidence.py holds {'these' if same else 'other'} values")
        return 0

    print(f"# Predicted error spans and predicted MQM against human judgements: {', '.join(s.name for s in sets)}\n")
    print(f"Default threshold {DEFAULT_THRESHOLD}; every span figure held out by talk, the confidence models fitted "
          f"on the other talks of every set ({sum(len(set(one.truth.docs)) for one in sets)} talks).\n")
    kept_spans = held_out(everything, DEFAULT_THRESHOLD)
    summary = []
    for one in sets:
        truth = one.truth
        error, nonspace = truth.human.error, truth.axis.nonspace
        print(f"## {one.name}\n\n{len(truth.pairs):,} rated outputs ({len(one.evalset.systems)} systems), "
              f"{int(error[nonspace].sum()):,} of {int(nonspace.sum()):,} non-space characters in a human error span "
              f"({error[nonspace].mean():.1%}), {int(truth.human.is_major.sum()):,} major human spans, "
              f"{word_rate(truth, one.settings[0].report):.1%} of the output words in a human error span (the chance "
              f"level of a one-word span); talks (documents): {len(set(truth.docs))}.\n")
        for s in one.settings:
            ours = figures(truth, kept_spans[s.name])
            print(f"### {s.name}\n\n{HEADER}")
            print(row("**predicted (mtdiag.spans)**", ours))
            if s.baseline is not None:
                base = figures(truth, s.baseline)
                print(row("baseline: words not in the reference(s)", base))
                print(f"\nGoals: {goals(ours, base, True)}.\n")
                summary.append((s.name, ours, base))
            else:
                lines = []
                for r in one.settings:
                    if r.baseline is not None:
                        base = figures(truth, r.baseline)
                        print(row(f"baseline with {r.name.split(': ')[1]}", base))
                        lines.append(f"against the baseline with {r.name.split(': ')[1]}: {goals(ours, base, False)}")
                        summary.append((f"{s.name} vs baseline with {r.name.split(': ')[1]}", ours, base))
                print("\nGoals: " + ". ".join(lines) + ".\n")
        for s in one.alone:
            ours = figures(truth, kept_spans[s.name])
            print(f"### {s.name} (each system alone: no system support)\n\n{HEADER}")
            print(row("**predicted (mtdiag.spans)**", ours))
            print(row("baseline: words not in the reference(s)", figures(truth, s.baseline)) + "\n")

    print("## Severity\n")
    lines, severity_rows = severity_table(sets, kept_spans)
    print("\n".join(lines) + "\n")
    print("What bounds it — the same spans with every severity major, and with the oracle severity (each span the "
          "severity of the human error characters it overlaps most):\n")
    print("\n".join(severity_bounds(sets, kept_spans)) + "\n")
    print("Whose severity it is — a human error's severity guessed from the same rater's other errors, against our "
          "rule on the errors our spans overlap:\n")
    print("\n".join(rater_severity(sets, kept_spans)) + "\n")

    print("## Per talk (held out)\n")
    print("| setting | talk | outputs | span precision | baseline's | major recall |\n|---|---|---|---|---|---|")
    for one in sets:
        for s in one.settings:
            base_setting = s if s.baseline is not None else one.with_references
            for doc in sorted(set(one.truth.docs)):
                ours = figures(one.truth, kept_spans[s.name], {doc})
                base = figures(one.truth, base_setting.baseline, {doc})
                print(f"| {s.name} | {doc} | {int((one.truth.docs == doc).sum())} | {ours['precision']:.3f} | "
                      f"{base['precision']:.3f} | {ours['major_recall']:.3f} |")
    print()
    for one in sets:
        for s in (one.with_references, one.without_references):
            print(f"## Calibration: {s.name}\n")
            print("\n".join(calibration(kept_spans[s.name])) + "\n")
    if len(sets) > 1:
        print("## Across sets: confidences fitted on the other set alone\n")
        print("\n".join(carry_over(sets)) + "\n")

    print("## Check marks (all talks)\n\n| check | spans | overlapping a human error | confidence (Laplace) |\n"
          "|---|---|---|---|")
    evidence = fit_checks([s.checks for s in everything])
    for kind, (hits, n) in sorted(evidence.items()):
        print(f"| {kind} | {n} | {hits} | {(hits + 1) / (n + 2):.3f} |")
    print()

    print(f"## Phrase gap (tokens bridged between two candidate words; chosen: {GAP})\n")
    print("| setting | gap | n | span precision | major recall | char F1 | chars marked |\n"
          "|---|---|---|---|---|---|---|")
    for one in sets:
        for s in one.settings:
            support = word_support(s.report)
            for gap in range(4):
                f = figures(one.truth, on_axis(one.truth, locator(s.report).frame(phrases(support, gap))))
                print(f"| {s.name} | {gap} | {f['spans']:,} | {f['precision']:.3f} | {f['major_recall']:.3f} | "
                      f"{f['char_f1']:.3f} | {f['marked']:.3f} |")
    print()

    print("## Predicted MQM against human MQM, next to chrF\n")
    print("| set | metric | system pairs ordered as humans (pairs) | segment Pearson | within-segment pairwise "
          "accuracy (pairs) |\n|---|---|---|---|---|")
    frames = {one.name: penalties(one, kept_spans) for one in sets if one.evalset.human is not None}
    agreements = []
    for folder in scored:
        name = f"{folder.parent.name}/{folder.name}"
        if not folder.is_dir() or weighed(load_folder(folder)).human is None:
            print(f"| {name} | no MQM scores here | | | |")
            continue
        for set_name, metric, a in score_rows(name, folder, args.exclude, frames):
            print(f"| {set_name} | {metric} | {a['sys_accuracy']:.3f} ({a['sys_pairs']}) | {a['seg_pearson']:.3f} | "
                  f"{a['seg_accuracy']:.3f} ({a['seg_pairs']:,}) |")
            agreements.append((set_name, metric, a))
    print()

    for one in sets:
        others = tuple(m for m in default_metrics(one.full) if m != "predicted_mqm")
        start = time.process_time()
        evaluate(one.full, Options(metrics=others))
        without = time.process_time() - start
        start = time.process_time()
        report = evaluate(one.full)
        spent = time.process_time() - start
        print(f"Speed ({one.name}, CPU time, one run in this process — its texts already tokenised; "
              f"docs/spans.md has fresh processes): the whole set ({len(one.full.systems)} systems × "
              f"{one.full.n_segments} segments, every reference), the default metrics: evaluate {without:.1f} s "
              f"without predicted MQM, {spent:.1f} s with it (its {len(predict_spans(report)):,} spans "
              "predicted on the way).\n")

    print("## Summary\n\n| setting | span precision (baseline) | ratio | major recall | char F1 (baseline) | "
          "chars marked (baseline) |\n|---|---|---|---|---|---|")
    for label, ours, base in summary:
        ratio = ours["precision"] / base["precision"] if base["precision"] else float("nan")
        print(f"| {label} | {ours['precision']:.3f} ({base['precision']:.3f}) | {ratio:.2f}× | "
              f"{ours['major_recall']:.3f} | {ours['char_f1']:.3f} ({base['char_f1']:.3f}) | {ours['marked']:.3f} "
              f"({base['marked']:.3f}) |")
    print()
    print(must_show(sets, kept_spans, severity_rows, agreements))
    return 0


def must_show(sets: list[SpanSet], kept: dict[str, pd.DataFrame], severity_rows: list[dict],
              agreements: list[tuple[str, str, dict]]) -> str:
    """The issue's "must show" figures, one line each with ✓ or ✗."""
    lines = ["## Must show (issue 34)\n", "| set | figure | value | goal | met |", "|---|---|---|---|---|"]
    for r in severity_rows:
        shares = r["shares"]
        top = max(shares.values())
        lines.append(f"| {r['setting']} | severities minor / largest | {shares['minor']:.1%} / {top:.1%} | "
                     f"≥ 20 % / ≤ 80 % | {mark(shares['minor'] >= 0.2 and top <= 0.8)} |")
        lines.append(f"| {r['setting']} | severity F1 vs baseline, vs floor | {r['sev_f1'] / r['base']:.2f}×, "
                     f"{r['sev_f1'] / r['floor']:.2f}× | ≥ 1.15×, ≥ 2× | "
                     f"{mark(r['sev_f1'] >= 1.15 * r['base'])} {mark(r['sev_f1'] >= 2 * r['floor'])} |")
    for one in sets:
        s = one.with_references
        ours, base = figures(one.truth, kept[s.name]), figures(one.truth, s.baseline)
        met = ours["precision"] >= 1.5 * base["precision"] and ours["major_recall"] >= 0.5
        lines.append(f"| {s.name} | span precision vs baseline at major recall | "
                     f"{ours['precision'] / base['precision']:.2f}× at {ours['major_recall']:.3f} | ≥ 1.5× at ≥ 0.5 | "
                     f"{mark(met)} |")
        lines.append(f"| {s.name} | char F1 vs baseline | {ours['char_f1']:.3f} vs {base['char_f1']:.3f} | ≥ | "
                     f"{mark(ours['char_f1'] >= base['char_f1'])} |")
    by_set: dict[str, dict[str, dict]] = {}
    for name, metric, a in agreements:
        by_set.setdefault(name, {})["chrF" if metric == "chrF" else "mqm"] = a
    for name, pair in by_set.items():
        chrf, mqm = pair["chrF"], pair["mqm"]
        for key, label in (("sys_accuracy", "system pairs ordered"), ("seg_pearson", "segment Pearson"),
                           ("seg_accuracy", "within-segment pairwise accuracy")):
            lines.append(f"| {name} | {label}: predicted MQM vs chrF | {mqm[key]:.3f} vs {chrf[key]:.3f} | ≥ | "
                         f"{mark(mqm[key] >= chrf[key])} |")
    return "\n".join(lines) + "\n"


def word_rate(truth: Truth, report) -> float:
    """The share of the rated outputs' words (tokens that are not punctuation) that overlap a human error span."""
    support = word_support(report)
    at = np.flatnonzero(support.word)
    words = pd.DataFrame({"system": np.asarray(support.systems, dtype=object)[support.system[at]],
                          "seg": support.seg[at], "first": support.pos[at], "last": support.pos[at]})
    return float(on_axis(truth, locator(report).frame(words))["hit"].mean())


if __name__ == "__main__":
    sys.exit(main())
