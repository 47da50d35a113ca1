"""``mtdiag likeness``: ORANGE/KING per metric and QUEEN per system (Amigó et al. 2006 §2.2, §3.1;
:mod:`mtdiag.analysis.likeness`), from several references. An alias of ``mtdiag view human`` (``mtdiag view likeness``;
:mod:`mtdiag.cli.view`): its numbers are the view's ``orange_king`` and ``queen`` tables; ``--metrics`` (kept) is the
view's ``--similarity``, ``--pool`` its option. Nothing is scored but the similarities between the references and
the outputs."""

from __future__ import annotations

import json
from dataclasses import replace

from mtdiag.cli import arguments, load, view
from mtdiag.cli.base import json_value, note


def add(commands) -> None:
    """Add the ``likeness`` command and its flags (the options of view ``human`` among them) to ``commands``."""
    likeness = commands.add_parser("likeness", help="ORANGE/KING of metrics and QUEEN of systems (several references)")
    likeness.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    likeness.add_argument("--hyp", action="append", type=arguments.named_file, metavar="NAME=FILE",
                          help="system output (repeatable)")
    arguments.add_testset_option(likeness)
    from mtdiag.analysis.likeness import DEFAULT_QUEEN_METRICS  # only for this command (see mtdiag.cli.base.Unfilled)
    from mtdiag.views import REGISTRY

    likeness.add_argument("--metrics", dest="similarity", default=",".join(DEFAULT_QUEEN_METRICS),
                          help="comma-separated similarity metrics (default: %(default)s; the same as --similarity)")
    arguments.add_tokenize_options(likeness)
    arguments.add_format(likeness)
    view.add_options(likeness, REGISTRY["human"], exclude=("similarity", "metric", "level", "span_threshold"))
    likeness.set_defaults(handler=run)


def run(args) -> str:
    """The output of ``mtdiag likeness``: ORANGE and KING per metric, QUEEN per system, as JSON or TSV."""
    from mtdiag.analysis.likeness import likeness_metrics
    from mtdiag.metrics import metric_classes
    from mtdiag.views import REGISTRY

    human = REGISTRY["human"]
    metrics = list(load.metric_list(args.similarity))

    def known(evalset) -> None:  # the names checked before anything is computed
        classes, allowed = metric_classes(evalset), likeness_metrics(evalset)
        for m in metrics:
            if m not in classes:
                raise ValueError(f"unknown metric {m!r}; known: {', '.join(classes)}")
            if m not in allowed:
                raise ValueError(f"metric {m!r} cannot be a similarity here (it is not segment-level, or needs terms)")

    report = view.evaluated(args, human, scoring=replace(load.options(args), metrics=()), before=known)
    chosen, frames = view.shown(args, human, report, ["orange_king", "queen"], given={"similarity": metrics},
                                quiet=True)
    for name in ("orange_king", "queen"):
        if name not in frames:
            note(f"note: {human.table(name).why_empty(report, chosen)}")
    ok = frames.get("orange_king")
    out = {"orange": {} if ok is None else dict(zip(ok["metric"], ok["orange"])),
           "king": {} if ok is None else dict(zip(ok["metric"], ok["king"])),
           "queen": {} if "queen" not in frames else dict(zip(frames["queen"]["system"], frames["queen"]["queen"]))}
    out = {measure: {k: json_value(float(v)) for k, v in values.items()} for measure, values in out.items()}
    if args.format == "json":
        return json.dumps(out, ensure_ascii=False)
    from mtdiag.report.export import for_people

    lines = ["measure\tname\tvalue"]
    for measure, values in out.items():
        lines += [f"{measure}\t{name}\t{for_people(v)}" for name, v in values.items()]
    return "\n".join(lines)
