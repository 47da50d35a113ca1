"""Peak memory and time of ``mtdiag score`` at 10k / 100k / 1M segments, against sacrebleu's CLI (issue: scale).

Synthetic sets are built from real lines: the WMT21 en-de dev set (source, reference A and its systems; the
development data: :mod:`devdata`) repeated until the wanted number of segments. Each command runs once as its own
process, the two in turn (:mod:`paired`: wall time and the child's own peak RSS).

Cases (``--cases``, default all):

- ``10k-2``, ``100k-2``, ``100k-4``: N segments x S systems + source, mtdiag's default metrics (otem, utem, waft,
  neva, bleu, chrf, ter, length_ratio; and predicted_mqm on sets of up to 100,000 system-segment pairs: 10k-2),
  against ``sacrebleu -m bleu chrf`` on the same systems;
- ``1m-bleu``: 1M segments x 1 system, BLEU only (mtdiag and sacrebleu).

Targets: 100k x 4 peak RSS <= 3 GB and time <= 1.0x sacrebleu BLEU+chrF; 1M x 1 BLEU <= 2 GB.

Usage: ``python benchmarks/bench_scale.py [--cases 100k-4,1m-bleu] [--workdir DIR] [--data DIR]``
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

import devdata
from paired import run

SYSTEMS = ["Facebook-AI", "Online-W", "UEdin", "VolcTrans-GLAT"]
CASES = {"10k-2": (10_000, 2, None), "100k-2": (100_000, 2, None), "100k-4": (100_000, 4, None),
         "1m-bleu": (1_000_000, 1, "bleu")}


def build(workdir: Path, n: int, systems: list[str], folder: Path) -> dict[str, Path]:
    """src, ref and system files of ``n`` lines, cycling the lines of ``folder`` (the dev set wmt21/en-de)."""
    files = {"src": folder / "src.txt", "ref": folder / "ref.A.txt"}
    files |= {s: folder / f"newstest2021.en-de.{s}.txt" for s in systems}
    out = {}
    for name, source in files.items():
        target = workdir / f"{n}.{name}.txt"
        if not target.exists():
            lines = source.read_text(encoding="utf-8").split("\n")[:-1]
            with target.open("w", encoding="utf-8") as handle:
                handle.writelines(line + "\n" for line in itertools.islice(itertools.cycle(lines), n))
        out[name] = target
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--data", help=f"the development data (default: ${devdata.ENV_VAR}, else {devdata.DEFAULT})")
    args = parser.parse_args()
    folder = devdata.folder("wmt21/en-de", args.data)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mtdiag-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print("| case | segments | systems | metrics | mtdiag s | mtdiag peak RSS MiB | sacrebleu s | sacrebleu peak MiB | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in args.cases.split(","):
        n, n_systems, metrics = CASES[case]
        systems = SYSTEMS[:n_systems]
        files = build(workdir, n, systems, folder)
        ours = [sys.executable, "-m", "mtdiag", "score", "--ref", str(files["ref"]), "--src", str(files["src"])]
        ours += [arg for s in systems for arg in ("--hyp", f"{s}={files[s]}")]
        if metrics:
            ours += ["--metrics", metrics]
        theirs = [sys.executable, "-m", "sacrebleu", str(files["ref"]), "-i", *(str(files[s]) for s in systems),
                  "-m", *(metrics.split(",") if metrics else ["bleu", "chrf"])]
        mine, sacrebleu = run(ours), run(theirs)
        label = metrics or "default metrics"
        print(f"| {case} | {n:,} | {n_systems} | {label} | {mine.wall:.1f} | {mine.peak_mib:,.0f} | {sacrebleu.wall:.1f} "
              f"| {sacrebleu.peak_mib:,.0f} | {mine.wall / sacrebleu.wall:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
