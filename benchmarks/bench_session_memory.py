"""Benchmark: does an upload the dashboard admits stay within the session's memory budget on every page? (issue 39,
finding 7: a 1,000-column x 1,000-row TSV was admitted by the estimate at ~1.6 GB and peaked at 4.28 GB.)

For each shape (systems x segments x words per output) a test set file is written (TSV: ``src``, ``ref``, one column
per system; sentences of the dev sets with words changed per system, so that every output differs) and, in a process
of its own with ``MTDIAG_SESSION_BUDGET_MB`` set, the dashboard is run under Streamlit's AppTest as a user would use
it: it opens every page on the sample data (what a running server has imported; its derived frames are then
released: the **start** is the RSS after that), switches to *Upload files*, uploads the file as a *Test set file*,
then opens every page of the navigation with its default choices. The **peak** is the
process's VmHWM; what the session cost is **peak − start**, against the budget. A set the budget refuses is said so
(the estimate, :func:`mtdiag.ui.state.over_budget`, refused it before scoring).

The machine is shared: figures are RSS (not time); run one shape at a time (``--jobs 1``, the default).

Run: ``python benchmarks/bench_session_memory.py [--budget 512] [--shape SYSTEMSxSEGMENTSxWORDS ...]``; prints one
row per shape and writes ``artifacts/bench_session_memory.json``. Exit status 1 when an admitted set peaks above the
budget.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
ARTIFACTS = REPO / "artifacts"

DEFAULT_SHAPES = ["998x1000x8", "998x60x8", "200x400x12", "40x2000x20", "6x20000x20", "2x60000x12", "2x400x4000"]
WORDS = ["der", "die", "und", "Welt", "Haus", "nicht", "auch", "schon", "eine", "wurde"]

CHILD = r"""
import gc, json, os, re, sys, time
import psutil
from streamlit.testing.v1 import AppTest
sys.path.insert(0, {repo!r})
from mtdiag import views
from mtdiag.ui import navigation
from tests.test_app import visit

def vm(key):
    return int(re.search(key + r":\s+(\d+)", open("/proc/self/status").read()).group(1)) * 1024

at = AppTest.from_file({app!r}, default_timeout=3600)
at.run()
for name in views.REGISTRY:  # every page once on the sample data: what a server has imported and drawn before
    visit(at, name).run()
from mtdiag.ui import state
state.release_memory()  # derived frames and drawn objects go; the sample's report stays, as on a server
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # the high-water mark starts again here: the sample's pages above the start are not the upload's
start = psutil.Process().memory_info().rss
at.radio(key="data_mode").set_value("Upload files").run()
data = open({path!r}, "rb").read()
t = time.process_time()
at.file_uploader(key="up_testset").set_value(({name!r}, data, "text/tab-separated-values")).run()
del data
errors = [e.value for e in at.error]
pages = []
if not errors:
    for name in views.REGISTRY:
        visit(at, name).run()
        pages.append((name, (vm("VmHWM") - start) / 2**20, [e.value for e in at.exception]))
print(json.dumps({{"start_mb": start / 2**20, "peak_mb": (vm("VmHWM") - start) / 2**20, "errors": errors,
                   "pages": pages, "cpu_s": time.process_time() - t}}))
"""


def write_set(path: Path, systems: int, segments: int, words: int, seed: int = 0) -> int:
    """A TSV test set of the shape; returns its bytes. Texts are dev-set sentences cut or repeated to ``words``
    words, one word changed per system (so no two outputs of a segment are equal)."""
    import devdata

    folder = devdata.root() / "wmt21" / "en-de"
    src = [line for line in (folder / "src.txt").read_text(encoding="utf-8").split("\n") if line.strip()]
    ref_file = next(p for p in sorted(folder.iterdir()) if p.name.startswith("ref"))
    ref = [line for line in ref_file.read_text(encoding="utf-8").split("\n") if line.strip()]
    rng = random.Random(seed)

    def sized(line: str) -> list[str]:
        tokens = line.split() or ["x"]
        return (tokens * (words // len(tokens) + 1))[:words]

    with open(path, "w", encoding="utf-8") as out:
        out.write("src\tref\t" + "\t".join(f"sys{i}" for i in range(systems)) + "\n")
        for r in range(segments):
            reference = sized(ref[r % len(ref)])
            cells = []
            for _ in range(systems):
                output = list(reference)
                output[rng.randrange(len(output))] = rng.choice(WORDS)
                cells.append(" ".join(output))
            out.write(" ".join(sized(src[r % len(src)])) + "\t" + " ".join(reference) + "\t" + "\t".join(cells) + "\n")
    return path.stat().st_size


def measure(shape: str, budget: float) -> dict:
    systems, segments, words = (int(x) for x in shape.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"set-{shape}.tsv"
        size = write_set(path, systems, segments, words)
        env = dict(os.environ, MTDIAG_SESSION_BUDGET_MB=str(budget), MTDIAG_REPORT_TTL_S="3600",
                   PYTHONPATH=str(REPO))
        code = CHILD.format(repo=str(REPO), app=str(REPO / "app.py"), path=str(path), name=path.name)
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shape}: the measuring process failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(shape=shape, systems=systems, segments=segments, words=words, file_mb=size / 2**20,
                  budget_mb=budget, refused=bool(result["errors"]))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=512.0, help="MTDIAG_SESSION_BUDGET_MB of the session")
    parser.add_argument("--shape", action="append", help="SYSTEMSxSEGMENTSxWORDS (repeatable)")
    args = parser.parse_args()
    rows, over = [], False
    print(f"{'shape':>14} {'file MB':>8} {'admitted':>9} {'peak - start MB':>16} {'budget MB':>10} {'cpu s':>7}")
    for shape in args.shape or DEFAULT_SHAPES:
        row = measure(shape, args.budget)
        rows.append(row)
        admitted = not row["refused"]
        over |= admitted and row["peak_mb"] > args.budget
        print(f"{shape:>14} {row['file_mb']:8.1f} {'yes' if admitted else 'refused':>9} {row['peak_mb']:16.0f} "
              f"{args.budget:10.0f} {row['cpu_s']:7.1f}", flush=True)
        if row["refused"]:
            print("    " + row["errors"][0][:240].replace("\n", " "))
        for name, peak, exceptions in row["pages"]:
            if exceptions:
                print(f"    {name}: {exceptions[0][:200]}")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bench_session_memory.json").write_text(json.dumps(rows, indent=1))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
