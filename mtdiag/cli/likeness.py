"""``mtdiag likeness``: ORANGE/KING per metric and QUEEN per system (Amigó et al. 2006 §2.2, §3.1;
:mod:`mtdiag.likeness`), from several references."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, inputs
from mtdiag.cli.base import json_value, note


def add(commands) -> None:
    likeness = commands.add_parser("likeness", help="ORANGE/KING of metrics and QUEEN of systems (several references)")
    likeness.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    likeness.add_argument("--hyp", action="append", type=arguments.named_file, metavar="NAME=FILE",
                          help="system output (repeatable)")
    arguments.add_testset_option(likeness)
    from mtdiag.likeness import DEFAULT_QUEEN_METRICS  # only for this command (see mtdiag.cli.base.Unfilled)

    likeness.add_argument("--metrics", dest="similarity", default=",".join(DEFAULT_QUEEN_METRICS),
                          help="comma-separated similarity metrics (default: %(default)s)")
    arguments.add_tokenize_options(likeness)
    arguments.add_format(likeness)
    likeness.set_defaults(handler=run)


def run(args) -> str:
    from mtdiag.likeness import likeness_scores, orange_king, queen

    metrics = inputs.metric_list(args.similarity)
    evalset = inputs.load(args)
    inputs.print_warnings(evalset)
    scores = likeness_scores(evalset, metrics, inputs.options(args))
    ok, qu = orange_king(scores), queen(scores)
    for explanation in dict.fromkeys(e for e in (ok.explanation, qu.explanation) if e):
        note(f"note: {explanation}")
    out = {"orange": ok.table["orange"].to_dict(), "king": ok.table["king"].to_dict(), "queen": qu.systems.to_dict()}
    out = {measure: {k: json_value(float(v)) for k, v in values.items()} for measure, values in out.items()}
    if args.format == "json":
        return json.dumps(out, ensure_ascii=False)
    from mtdiag.export import for_people

    lines = ["measure\tname\tvalue"]
    for measure, values in out.items():
        lines += [f"{measure}\t{name}\t{for_people(v)}" for name, v in values.items()]
    return "\n".join(lines)
