"""Check built sets with mtdiag itself (run with the project's venv, from the repository root):

    .venv/bin/python scripts/devdata/check.py /work/devdata

For every folder under the root that has a PROVENANCE.md: mtdiag loads it (``mtdiag.io.load_path``); the human
scores it derives from the error file (``mqm.errors.tsv`` under the default ``wmt`` weights, or ``esa.jsonl``) equal
``mqm.seg.tsv`` where the folder has one; every span lies inside its output. Prints one line per set; exit status 1
on any failure. Not needed to build; it imports mtdiag, the build scripts do not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def main(root: str) -> int:
    from mtdiag.io import load_path  # the package under test
    from mtdiag.io.annotations import read_error_annotations

    failures = 0
    for prov in sorted(Path(root).rglob("PROVENANCE.md")):
        folder = prov.parent
        if not (folder / "src.txt").is_file():
            continue
        name = folder.relative_to(root)
        evalset = load_path(folder)
        human = evalset.human
        note = []
        for file in ("mqm.errors.tsv", "esa.jsonl"):
            if not (folder / file).is_file():
                continue
            derived, spans = read_error_annotations(folder / file, file, evalset.n_segments)
            if (folder / "mqm.seg.tsv").is_file():
                merged = human.merge(derived, on=["seg", "system"], how="outer", suffixes=("_file", "_errors"))
                both = merged.dropna()
                diff = float(np.max(np.abs(both.score_file - both.score_errors))) if len(both) else 0.0
                only = len(merged) - len(both)
                note.append(f"{file} vs mqm.seg.tsv: {len(both)} outputs, max |diff| {diff:.3g}, in one only {only}")
            else:
                note.append(f"{file}: {len(derived)} rated outputs are the human scores")
            texts = {**{s: evalset.hyps[s].tolist() for s in evalset.systems}}
            outside = 0
            for row in spans.itertuples():
                text = texts.get(row.system)
                if text is None or row.side != "target":
                    continue
                outside += not (0 <= row.start <= row.end <= len(text[row.seg]))
            note.append(f"{len(spans)} spans, {outside} outside their output")
            failures += outside > 0
        n_refs = len(getattr(evalset.refs, "columns", evalset.refs))
        print(f"{name}: {evalset.n_segments} segments, {len(evalset.systems)} systems, "
              f"{n_refs} refs, {0 if human is None else len(human)} human scores; " + "; ".join(note))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/work/devdata"))
