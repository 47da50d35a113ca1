"""Mutation fuzzing at scale: ``--inputs`` (10,000) mutated inputs of every input kind through the loaders the
dashboard calls, with the generator of ``tests/test_fuzz_inputs.py`` (:mod:`tests.fuzzing`: the kinds, seeds from
``tests/data``, the mutations — the structural ones that multiply work among them —, the dashboard's limits for a 64
MB session budget).

Every input is timed in CPU seconds of the process that runs it (the machine may be shared: wall time there says
more about the neighbours than about the input). Prints per kind: inputs, loaded, refused (``InputError``), other
exceptions (the first of each type and place with its reproducer: the kind and input number, which
:func:`tests.fuzzing.fuzz_input` rebuilds), and the slowest input — found in the run, then **timed alone** in this
process after the run (CPU and wall, best of three), which is the figure reported; writes the table as Markdown to
``--out`` when given. Exit status 1 when any input raised anything but an ``InputError`` or its slowest input alone
took more than ``--slow`` (2) seconds of CPU. ``--workers`` processes share the kinds, each with at most
``--memory-gb`` (4) GB of address space: an input that needs more is reported as a ``MemoryError``.

Run: ``nice python benchmarks/fuzz_inputs.py [--inputs 10000] [--seed 0] [--kinds "WMT XML,SGML"] [--workers 2]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzzing import KINDS, MAX_SECONDS, fuzz_input, timed_input  # noqa: E402


def limit_memory(gigabytes: float) -> None:
    """Cap this process's address space (``RLIMIT_AS``): an input that would take more fails with ``MemoryError`` —
    counted and reported as an exception with its reproducer — instead of the machine's OOM killer ending the run."""
    import resource

    cap = int(gigabytes * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def fuzz_kind(name: str, inputs: int, seed: int) -> dict:
    """The counts, the slowest input (CPU seconds) and one reproducer per distinct other exception of one kind."""
    kind = next(k for k in KINDS if k.name == name)
    counts = {"loaded": 0, "refused": 0, "other": 0}
    others: dict[tuple, str] = {}
    slowest = (0.0, -1, "")
    for number in range(inputs):
        upload, applied = fuzz_input(kind, number, seed)
        start = time.process_time()
        try:
            outcome, _ = timed_input(kind, upload)
            counts[outcome] += 1
        except Exception as error:  # noqa: BLE001  (counted and reported: the point of the benchmark)
            counts["other"] += 1
            frame = traceback.extract_tb(error.__traceback__)[-1]
            where = (type(error).__name__, Path(frame.filename).name, frame.lineno)
            others.setdefault(where, f"input {number} ({applied}, {upload[0]}): {type(error).__name__}: "
                                     f"{str(error)[:160]} at {where[1]}:{where[2]}")
        elapsed = time.process_time() - start
        if elapsed > slowest[0]:
            slowest = (elapsed, number, applied)
    return {"kind": name, "inputs": inputs, **counts, "slowest": slowest, "others": list(others.values())}


def alone(name: str, number: int, seed: int, repeats: int = 3) -> tuple[float, float]:
    """(CPU, wall) seconds of one input run by itself in this process, the best of ``repeats``."""
    kind = next(k for k in KINDS if k.name == name)
    upload, _ = fuzz_input(kind, number, seed)
    best = (float("inf"), float("inf"))
    for _ in range(repeats):
        wall = time.perf_counter()
        try:
            _, cpu = timed_input(kind, upload)
        except Exception:  # noqa: BLE001  (reported by the run already)
            cpu = float("nan")
        best = min(best, (cpu, time.perf_counter() - wall))
    return best


def table(results: list[dict]) -> str:
    lines = ["| kind | inputs | loaded | refused (InputError) | other exceptions | slowest input: in the run (CPU) | "
             "alone: CPU / wall | its mutations |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        seconds, number, applied = r["slowest"]
        cpu, wall = r["alone"]
        lines.append(f"| {r['kind']} | {r['inputs']:,} | {r['loaded']:,} | {r['refused']:,} | {r['other']:,} | "
                     f"{seconds:.2f} s (input {number}) | {cpu:.3f} / {wall:.3f} s | {applied} |")
    total = {key: sum(r[key] for r in results) for key in ("inputs", "loaded", "refused", "other")}
    lines.append(f"| **all** | {total['inputs']:,} | {total['loaded']:,} | {total['refused']:,} | {total['other']:,} | "
                 f"{max(r['slowest'][0] for r in results):.2f} s | {max(r['alone'][0] for r in results):.3f} s | |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000, help="inputs per kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", default=",".join(k.name for k in KINDS), help="comma-separated kind names")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--slow", type=float, default=MAX_SECONDS, help="CPU seconds an input may take, alone")
    parser.add_argument("--out", type=Path, help="write the table (Markdown) here")
    parser.add_argument("--memory-gb", type=float, default=4.0,
                        help="address space of each worker (an input that needs more is a MemoryError, reported)")
    args = parser.parse_args()
    names = [n.strip() for n in args.kinds.split(",") if n.strip()]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers, initializer=limit_memory, initargs=(args.memory_gb,)) as pool:
        results = []
        for result in pool.map(fuzz_kind, names, [args.inputs] * len(names), [args.seed] * len(names)):
            result["alone"] = alone(result["kind"], result["slowest"][1], args.seed)
            results.append(result)
            print(f"{result['kind']}: {result['loaded']:,} loaded, {result['refused']:,} refused, "
                  f"{result['other']:,} other, slowest {result['slowest'][0]:.2f} s of CPU in the run "
                  f"(input {result['slowest'][1]}), {result['alone'][0]:.3f} s alone", flush=True)
            for other in result["others"]:
                print(f"  other exception: {other}", flush=True)
    text = table(results)
    print(text)
    print(f"seed {args.seed}, {time.perf_counter() - start:,.0f} s in all")
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    failed = any(r["other"] or r["alone"][0] > args.slow for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
