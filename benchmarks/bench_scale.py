"""Peak memory and time of ``mtdiag score`` at 10k / 100k / 1M segments, against sacrebleu's CLI (issue: scale).

Synthetic sets are built from real lines: the WMT21 en-de dev set (source, reference A and its systems) repeated
until the wanted number of segments. Each command runs as its own process; its peak RSS is read from
``getrusage(RUSAGE_CHILDREN)`` in a fresh wrapper process, so one measurement never inherits another's peak.

Cases (``--cases``, default all):

- ``10k-2``, ``100k-2``, ``100k-4``: N segments x S systems + source, mtdiag's default metrics (otem, utem, waft,
  neva, bleu, chrf, ter, length_ratio), against ``sacrebleu -m bleu chrf`` on the same systems;
- ``1m-bleu``: 1M segments x 1 system, BLEU only (mtdiag and sacrebleu).

Targets: 100k x 4 peak RSS <= 3 GB and time <= 1.0x sacrebleu BLEU+chrF; 1M x 1 BLEU <= 2 GB.

Usage: ``python benchmarks/bench_scale.py [--cases 100k-4,1m-bleu] [--workdir DIR]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dev" / "wmt21" / "en-de"
SYSTEMS = ["Facebook-AI", "Online-W", "UEdin", "VolcTrans-GLAT"]
CASES = {"10k-2": (10_000, 2, None), "100k-2": (100_000, 2, None), "100k-4": (100_000, 4, None),
         "1m-bleu": (1_000_000, 1, "bleu")}


def build(workdir: Path, n: int, systems: list[str]) -> dict[str, Path]:
    """src, ref and system files of ``n`` lines, cycling the dev set's lines."""
    files = {"src": DATA / "src.txt", "ref": DATA / "ref.A.txt"}
    files |= {s: DATA / f"newstest2021.en-de.{s}.txt" for s in systems}
    out = {}
    for name, source in files.items():
        target = workdir / f"{n}.{name}.txt"
        if not target.exists():
            lines = source.read_text(encoding="utf-8").split("\n")[:-1]
            with target.open("w", encoding="utf-8") as handle:
                handle.writelines(line + "\n" for line in itertools.islice(itertools.cycle(lines), n))
        out[name] = target
    return out


def measure(command: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of ``command``, measured in a fresh wrapper process."""
    wrapper = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
               "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
               "print(json.dumps([time.perf_counter() - t, "
               "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024]))")
    done = subprocess.run([sys.executable, "-c", wrapper, *command], check=True, capture_output=True, text=True)
    seconds, rss = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mtdiag-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print("| case | segments | systems | metrics | mtdiag s | mtdiag peak RSS MB | sacrebleu s | sacrebleu peak MB | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in args.cases.split(","):
        n, n_systems, metrics = CASES[case]
        systems = SYSTEMS[:n_systems]
        files = build(workdir, n, systems)
        ours = [sys.executable, "-m", "mtdiag", "score", "--ref", str(files["ref"]), "--src", str(files["src"])]
        ours += [arg for s in systems for arg in ("--hyp", f"{s}={files[s]}")]
        if metrics:
            ours += ["--metrics", metrics]
        theirs = [sys.executable, "-m", "sacrebleu", str(files["ref"]), "-i", *(str(files[s]) for s in systems),
                  "-m", *(metrics.split(",") if metrics else ["bleu", "chrf"])]
        our_s, our_rss = measure(ours)
        their_s, their_rss = measure(theirs)
        label = metrics or "default (8 metrics)"
        print(f"| {case} | {n:,} | {n_systems} | {label} | {our_s:.1f} | {our_rss:,.0f} | {their_s:.1f} | "
              f"{their_rss:,.0f} | {our_s / their_s:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
