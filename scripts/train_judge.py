"""Train the judge's model (``mtdiag/spans/judge_model.json``) on the development sets, bit for bit.

    python scripts/train_judge.py [--data DIR] [--devdata DIR] [-o mtdiag/spans/judge_model.json] [--check]

Reads the dev sets of :data:`DEV_SETS` — TED zh-en and en-de from ``--data`` (default ``tests/data/dev``), the
WMT21 news sets (en-de, zh-en, en-ru), WMT21 TED en-ru and WMT24 ESA en-hi from ``--devdata`` (default
``$MTDIAG_DEVDATA`` else ``/work/devdata``; built by ``scripts/devdata/build.py``) —, scores each with mtdiag's
default options (the degraded ``metricsystem*`` controls left out), and fits the model
(:func:`mtdiag.spans.judge_training.fit_model`). The held-out sets (:data:`HELDOUT_SETS`) are never read here.
The same sets give the same bytes: the fit is deterministic and its numbers are rounded to six significant digits.
``--check`` writes nothing and exits 1 when the file differs from the shipped one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mtdiag.io import load_folder  # noqa: E402
from mtdiag.scoring.evaluate import evaluate  # noqa: E402
from mtdiag.spans.judge import MODEL_FILE  # noqa: E402

EXCLUDE = "^metricsystem"  # WMT21's degraded controls: not systems a user compares
SHIPPED = REPO / "mtdiag" / "spans" / MODEL_FILE
DEVDATA_ENV = "MTDIAG_DEVDATA"


@dataclass(frozen=True)
class DevSet:
    """A set with human scores: its ``name``, language ``pair``, ``protocol`` (mqm / esa), where it is (``root``:
    ``data`` = ``--data``, ``devdata`` = ``--devdata``) and its folder under that root."""

    name: str
    pair: str
    protocol: str
    root: str
    folder: str

    def path(self, data: Path, devdata: Path) -> Path:
        return (data if self.root == "data" else devdata) / self.folder


DEV_SETS = (
    DevSet("ted/zh-en", "zh-en", "mqm", "data", "ted/zh-en"),
    DevSet("ted/en-de", "en-de", "mqm", "data", "ted/en-de"),
    DevSet("wmt21-news/en-de", "en-de", "mqm", "devdata", "dev/wmt21-news/en-de"),
    DevSet("wmt21-news/zh-en", "zh-en", "mqm", "devdata", "dev/wmt21-news/zh-en"),
    DevSet("wmt21-news/en-ru", "en-ru", "mqm", "devdata", "dev/wmt21-news/en-ru"),
    DevSet("wmt21-ted/en-ru", "en-ru", "mqm", "devdata", "dev/wmt21-ted/en-ru"),
    DevSet("wmt24/en-hi", "en-hi", "esa", "devdata", "dev/wmt24/en-hi"),
)
HELDOUT_SETS = (
    DevSet("wmt23-sxs/en-de", "en-de", "mqm", "devdata", "heldout/wmt23-sxs/en-de"),
    DevSet("wmt23-sxs/zh-en", "zh-en", "mqm", "devdata", "heldout/wmt23-sxs/zh-en"),
    DevSet("wmt24/en-zh", "en-zh", "esa", "devdata", "heldout/wmt24/en-zh"),
    DevSet("wmt24/en-cs", "en-cs", "esa", "devdata", "heldout/wmt24/en-cs"),
    DevSet("wmt24/en-ja", "en-ja", "esa", "devdata", "heldout/wmt24/en-ja"),
)


def default_devdata() -> Path:
    return Path(os.environ.get(DEVDATA_ENV) or "/work/devdata")


def load(path: Path, exclude: str = EXCLUDE):
    """A set's EvalSet without the systems ``exclude`` matches; a missing folder stops with one line."""
    if not path.is_dir():
        sys.exit(f"missing {path}: build the development data with scripts/devdata/build.py (scripts/devdata/README.md)")
    evalset = load_folder(path)
    kept = [s for s in evalset.systems if not re.search(exclude, s)]
    return evalset.with_hyps(evalset.hyps[kept])


def training_data(sets, data: Path, devdata: Path, report_of=None):
    """The training rows of ``sets`` (:func:`mtdiag.spans.judge_training.training_rows`), concatenated;
    ``report_of(dev_set)`` gives a set's report (default: scored here with the default options)."""
    import pandas as pd

    from mtdiag.spans.judge_training import training_rows

    frames = []
    for dev in sets:
        report = report_of(dev) if report_of else evaluate(load(dev.path(data, devdata)))
        frames.append(training_rows(report, dev.protocol, dev.name).assign(pair=dev.pair))
    return pd.concat(frames, ignore_index=True)


def model_text(model: dict) -> str:
    """The model file's text: sorted keys, two-space indent, a final newline."""
    return json.dumps(model, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    from mtdiag.spans.judge_training import fit_model

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "tests" / "data" / "dev")
    parser.add_argument("--devdata", type=Path, default=default_devdata())
    parser.add_argument("-o", "--output", type=Path, default=SHIPPED)
    parser.add_argument("--check", action="store_true", help="compare with the shipped model, write nothing")
    args = parser.parse_args(argv)
    text = model_text(fit_model(training_data(DEV_SETS, args.data, args.devdata)))
    if args.check:
        same = SHIPPED.read_text(encoding="utf-8") == text
        print("the shipped model is reproduced bit for bit" if same else f"{SHIPPED} differs from the fit")
        return 0 if same else 1
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text.encode('utf-8')):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
