"""Error weights as an option of the analysis: what a scheme costs, in CPU seconds of this process (the machine may
be shared: wall time there says more about the neighbours), best of ``--repeats``.

1. **Lookup** — 5,000 rules x 2,000 distinct categories (:meth:`mtdiag.io.error_weights.ErrorWeights.weights`;
   a scan of every rule per row took 42.8 s of CPU).
2. **Pearmut log** — one line of 50,000 MQM spans on a 1,000,000-character output, read from its bytes and weighed
   (``docs/pearmut.md``: 0.5 s; the reader took 3.0 s), and 1,000 rules x 5,000 spans (15.4 s).
3. **A weights file over the rule limit** — 1.5 million rules, refused (it was refused after 32.6 s and 1.38 GB).
4. **A scheme switch** — TED zh-en (13 systems x 529 segments, ``mqm.errors.tsv``): the report is scored once;
   ``wmt`` → ``esa`` re-weighs its error rows and joins them to that report
   (:func:`mtdiag.pipeline.inputs.judged`), nothing read or scored again (goal ≤ 0.3 s; it re-read and re-scored
   everything, 3.4 s). The time scoring takes is printed beside it, measured in the same run.

Run: ``python benchmarks/bench_error_weights.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtdiag.core.errors import InputError  # noqa: E402
from mtdiag.core.evalset import evalset_from_lists  # noqa: E402
from mtdiag.io import load_folder, with_error_annotations  # noqa: E402
from mtdiag.io.error_weights import ESA, WMT, ErrorWeights, WeightRule, read_error_weights, weighed  # noqa: E402
from mtdiag.pipeline.inputs import Options, evaluate, judged  # noqa: E402

TED = Path(__file__).resolve().parents[1] / "tests" / "data" / "dev" / "ted" / "zh-en"
SWITCH_GOAL_S = 0.3


def timed(run, repeats: int) -> tuple[float, float, object]:
    """(best CPU seconds, best wall seconds, the last result) of ``run()``."""
    cpu, wall, result = [], [], None
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        result = run()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall), result


def lookup(repeats: int) -> str:
    scheme = ErrorWeights("many", "5,000 rules", tuple(WeightRule("minor", f"Family{i}/Kind", 1.0) for i in range(5000)))
    categories = [f"Family{i}/Kind/Detail" for i in range(2000)]
    cpu, wall, _ = timed(lambda: scheme.weights(categories, ["minor"] * len(categories)), repeats)
    return f"5,000 rules x 2,000 categories: {cpu:.3f} s CPU ({wall:.3f} s wall)"


def pearmut_log(n_spans: int, categories: list[str]) -> tuple[object, tuple[str, bytes]]:
    """A set of one 1,000,000-character output and a Pearmut log of one MQM page with ``n_spans`` spans on it."""
    text = ("word " * 200_000)[:1_000_000]
    evalset = evalset_from_lists({"ref": ["ref"]}, {"A": [text]}, src=["src"])
    spans = [{"start_i": (k * 20) % 999_000, "end_i": (k * 20) % 999_000 + 3, "severity": ("major", "minor")[k % 2],
              "category": categories[k % len(categories)]} for k in range(n_spans)]
    item = {"src": "src", "tgt": {"m0": text}, "mtdiag": {"seg_id": 1, "systems": {"m0": "A"}, "protocol": "MQM"}}
    line = {"annotation": [{"m0": {"error_spans": spans}}], "item": [item], "user_id": "u", "item_i": 0}
    return evalset, ("campaign.jsonl", (json.dumps(line) + "\n").encode())


def pearmut(repeats: int) -> list[str]:
    out = []
    evalset, log = pearmut_log(50_000, ["Accuracy/Mistranslation", "Fluency/Grammar"])
    cpu, wall, _ = timed(lambda: weighed(with_error_annotations(evalset, log), WMT), repeats)
    out.append(f"Pearmut log, 50,000 spans on a 1,000,000-character output ({len(log[1]) / 1e6:.1f} MB), read and "
               f"weighed: {cpu:.3f} s CPU ({wall:.3f} s wall)")
    many = ErrorWeights("many", "1,000 rules", tuple(WeightRule(s, f"Family{i}", 1.0)
                                                      for i in range(500) for s in ("major", "minor")))
    evalset, log = pearmut_log(5_000, [f"Family{i}" for i in range(500)])
    cpu, wall, _ = timed(lambda: weighed(with_error_annotations(evalset, log), many), repeats)
    out.append(f"Pearmut log, 1,000 rules x 5,000 spans, read and weighed: {cpu:.3f} s CPU ({wall:.3f} s wall)")
    return out


def rule_limit() -> str:
    body = b"severity\tcategory\tweight\n" + "".join(f"minor\tCategory{i}\t1\n" for i in range(1_500_000)).encode()
    tracemalloc.start()
    c, w = time.process_time(), time.perf_counter()
    try:
        read_error_weights(("w.tsv", body))
        said = "accepted"
    except InputError as error:
        said = f"refused: {error}"
    cpu, wall = time.process_time() - c, time.perf_counter() - w
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (f"1,500,000 rules ({len(body) / 1e6:.1f} MB): {cpu:.3f} s CPU ({wall:.3f} s wall), {peak / 2**20:.1f} MiB "
            f"allocated at the peak beside the file's bytes; {said}")


def switch(repeats: int) -> list[str]:
    evalset = load_folder(TED)
    c = time.process_time()
    scored = evaluate(evalset.without_judgements(), Options())
    scoring = time.process_time() - c
    cpu_wmt, _, wmt = timed(lambda: judged(scored, evalset, WMT), repeats)
    cpu, wall, esa = timed(lambda: judged(scored, evalset, ESA), repeats)
    rows = len(evalset.error_rows)
    assert esa.results is scored.results and wmt.results is scored.results  # nothing scored again
    return [f"TED zh-en ({len(evalset.systems)} systems x {evalset.n_segments} segments, {rows:,} error rows): scoring "
            f"{scoring:.2f} s CPU, once",
            f"  scheme switch wmt -> esa: {cpu:.3f} s CPU ({wall:.3f} s wall), nothing read or scored again "
            f"(goal ≤ {SWITCH_GOAL_S:g} s{'' if cpu <= SWITCH_GOAL_S else ', MISSED'}); wmt again {cpu_wmt:.3f} s CPU",
            f"  spans kept: wmt {len(wmt.evalset.annotations):,}, esa {len(esa.evalset.annotations):,}; system "
            f"human means differ by up to "
            f"{(wmt.evalset.human.groupby('system')['score'].mean() - esa.evalset.human.groupby('system')['score'].mean()).abs().max():.3f}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(lookup(args.repeats))
    for line in pearmut(args.repeats):
        print(line)
    print(rule_limit())
    for line in switch(args.repeats):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
