"""What the pages say about the reference itself, plainly: the suspect references (another segment's text, cut,
doubled, spun, garbled: :mod:`mtdiag.triage.checks.suspect_reference`) and the systems a reference favours
(:mod:`mtdiag.analysis.reference_bias`) — for the Segments page's *Why* box, the segment detail and the Compare page.
Plain text: the pages escape it."""

from __future__ import annotations

import pandas as pd

from mtdiag.analysis import reference_bias
from mtdiag.metrics import EvidenceTable, SegmentEvidence
from mtdiag.triage import ranking
from mtdiag.triage.checks import suspect_reference

MAX_RUNS = 3  # runs of spun or garbled segments the Why box names


def why(report) -> str:
    """The Segments page's *Why*: what the problem score is built from, and what is suspect in the references.

    What the problem score is built from (:func:`mtdiag.triage.ranking.signals`), then which references are suspect
    and why, the runs of spun or garbled ones, and the systems a reference favours."""
    parts = [ranking.signals(report)]
    if report.evalset.has_references and report.evalset.systems:
        rows = suspect_reference.suspect_references(report)
        if len(rows):
            reasons = ", ".join(f"{reason} {int(rows[reason].sum()):,}" for reason in suspect_reference.REASONS
                                if rows[reason].any())
            parts.append(f"why the references are suspect: {reasons}" + _runs(report, rows))
        favoured = reference_bias.biased(report)
        if len(favoured):
            several = len(favoured) > 1
            parts.append("the reference favours " + ", ".join(
                f"{row.system} (a near copy of reference {row.reference} in {row.near_copies:,} of {row.segments:,} "
                f"segments, the others {row.others_share:.1%})" for row in favoured.itertuples())
                + f": {'their' if several else 'its'} reference-based scores are too high (Overview, Reference bias)")
    return "; ".join(parts)


def _runs(report, rows: pd.DataFrame) -> str:
    """The longest runs of spun or garbled segments, as segment ids."""
    worded = rows[(rows["spun"] | rows["garbled"]) & (rows["run_end"] > rows["run_start"])]
    if worded.empty:
        return ""
    runs = worded.drop_duplicates(["reference", "run_start"]).assign(
        size=lambda f: f["run_end"] - f["run_start"] + 1).sort_values("size", ascending=False).head(MAX_RUNS)
    ids = report.evalset.seg_ids
    return "; spun or garbled runs: " + ", ".join(
        f"{ids[int(r.run_start)]}–{ids[int(r.run_end)]}" + (f" (reference {r.reference})"
                                                            if len(report.evalset.ref_names) > 1 else "")
        for r in runs.itertuples())


def reference_evidence(report, system: str, seg: int) -> SegmentEvidence | None:
    """For the segment detail: a *Reference* table; None when there is nothing to say.

    Why the segment's reference is suspect, the words that gave it away, and whether the reference is here (nearly)
    the output of a system it favours."""
    rows = []
    if report.evalset.has_references and report.evalset.systems:
        flagged = suspect_reference.suspect_references(report)
        if (flagged["seg"] == seg).any():
            rows += [{"about": "suspect reference", "finding": sentence} for sentence in
                     suspect_reference.SuspectReference().explain(report, system, seg).sentences]
        rows += [{"about": "favoured system", "finding": sentence} for sentence in favoured_here(report, seg)]
    if not rows:
        return None
    table = EvidenceTable("Reference", pd.DataFrame(rows, columns=["about", "finding"]),
                          "What is wrong with the reference itself here (docs/triage.md, \"Suspect references\" and "
                          "\"Reference bias\").")
    return SegmentEvidence(tables={"reference": table})


def favoured_here(report, seg: int) -> list[str]:
    """One sentence per favoured system whose output is a near copy of the reference that favours it in ``seg``."""
    favoured = reference_bias.biased(report)
    if favoured.empty:
        return []
    near = reference_bias.near_copies(report)
    out = []
    for row in favoured.itertuples():
        if bool(near[row.reference].at[seg, row.system]):
            same = bool(reference_bias.identical(report, row.reference)[report.evalset.systems.index(row.system),
                                                                        seg])
            out.append(f"Reference {row.reference} is {'exactly' if same else 'nearly'} {row.system}'s output here, "
                       f"and {row.system} is favoured by it over the set ({row.near_copies:,} near copies of "
                       f"{row.segments:,} segments, the other systems {row.others_share:.1%}): its reference-based "
                       "scores here say little.")
    return out


def compare_note(report, a: str, b: str) -> str:
    """For the Compare page, in one sentence: which of the two systems a reference favours; "" when neither.

    As the Overview page's Reference bias finds it."""
    favoured = reference_bias.biased(report)
    named = favoured[favoured["system"].isin([a, b])]
    if named.empty:
        return ""
    who = " and ".join(f"{row.system} (reference {row.reference}: {row.near_copies:,} near copies, "
                       f"the others {row.others_share:.1%})" for row in named.itertuples())
    return (f"Favoured by the reference: {who} — its reference-based scores (BLEU, chrF, TER, …) are inflated "
            "against the other system; trust the reference-free and human scores more here.")
