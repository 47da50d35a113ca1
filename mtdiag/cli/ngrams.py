"""``mtdiag ngrams``: HT-only / MT-only n-gram tables (Aikawa & Rarrick §2.2: the n-grams only the human translation
or only a system uses, :mod:`mtdiag.metrics.ht_mt_ngrams`). An alias of ``mtdiag view ngrams`` (:mod:`mtdiag.cli.view`):
its tables are the view's ``ngrams`` table for each system, kind and order (``--order 1,2,3,4``: several orders
on one tokenisation), its flags the view's options (``--min-count``, ``--ht-ref``, ``--hide-function-words``, …),
``--ht``/``--mt`` the reference and the systems; every n-gram is listed unless ``--hide-function-words``. Nothing
is scored: the tables are counts of tokens."""

from __future__ import annotations

import json
from dataclasses import replace

from mtdiag.cli import arguments, load, view
from mtdiag.cli.base import CliError

KINDS = ("ht_only", "mt_only")


def add(commands) -> None:
    """Add the ``ngrams`` command and its flags (the options of view ``ngrams`` among them) to ``commands``."""
    ngrams = commands.add_parser("ngrams", help="n-grams only the human translation or only a system uses")
    ngrams.add_argument("--ht", metavar="REF.txt", help="the human translation")
    ngrams.add_argument("--mt", action="append", type=arguments.named_file, metavar="NAME=FILE",
                        help="system output (repeatable)")
    arguments.add_testset_option(ngrams, "its first reference is the human translation")
    from mtdiag.views import REGISTRY  # only for this command (see mtdiag.cli.base.Unfilled)

    ngrams.add_argument("--order", type=arguments.orders, default=(3,), metavar="N[,N...]",
                        help="n-gram order 1-4, or several comma-separated (1,2,3,4: one tokenisation shared; the "
                        "output then has one table set per order) (default: 3)")
    ngrams.add_argument("--top", type=int, default=50, help="rows per table, 0 = all (default: %(default)s)")
    arguments.add_tokenize_options(ngrams)
    ngrams.add_argument("--tgt-lang", help="target language code: chooses the default tokeniser (default: read "
                        "from a folder name like wmt22.en-ja or en-ja, or file names like generaltest2022.en-ja.X.txt)")
    ngrams.add_argument("--dask", metavar="ADDRESS", help="count on a Dask cluster, one task per system: a "
                        "scheduler address (tcp://host:8786), or local / local:N; the tables are identical")
    arguments.add_format(ngrams)
    view.add_options(ngrams, REGISTRY["ngrams"], exclude=("against", "system", "order", "kind", "other", "side"))
    ngrams.set_defaults(handler=run)


def run(args) -> str:
    """The output of ``mtdiag ngrams``: the HT-only and MT-only n-grams of every system and order, as JSON or TSV."""
    from mtdiag.views import REGISTRY

    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all rows) or more")
    ngrams = REGISTRY["ngrams"]
    given = {"against": "human", "hide_function_words": False, **arguments.view_options_given(args)}
    given["min_count"] = ngrams.option("min_count").resolve(None, {}, given.get("min_count"))  # before scoring
    report = view.evaluated(args, ngrams, scoring=replace(load.options(args), metrics=()), flags=("--ht", "--mt"))
    if args.dask:
        _counted_on_dask(args, ngrams, report, given)

    def rows(system: str, order: int) -> dict:
        out = {}
        for kind in KINDS:
            _, frames = view.shown(args, ngrams, report, ["ngrams"], quiet=True,
                                   given={**given, "system": system, "order": order, "kind": kind})
            frame = frames["ngrams"][["ngram", "ht_count", "mt_count"]]
            out[kind] = frame.head(args.top) if args.top else frame
        return out

    # one order: {"order": n, "tables": {system: ...}} as before; several: {"orders": [...], "tables": {"n": ...}}
    per_order = {order: {system: rows(system, order) for system in report.evalset.systems} for order in args.order}
    single = len(args.order) == 1
    if args.format == "json":
        def records(by_system: dict) -> dict:
            return {system: {kind: [[g, int(h), int(m)] for g, h, m in frame.itertuples(index=False)]
                             for kind, frame in kinds.items()}
                    for system, kinds in by_system.items()}
        if single:
            return json.dumps({"order": args.order[0], "tables": records(per_order[args.order[0]])},
                              ensure_ascii=False)
        return json.dumps({"orders": list(args.order),
                           "tables": {str(order): records(by_system) for order, by_system in per_order.items()}},
                          ensure_ascii=False)
    lines = ["system\ttable\tngram\tht_count\tmt_count" if single else
             "order\tsystem\ttable\tngram\tht_count\tmt_count"]
    for order, by_system in per_order.items():
        lead = "" if single else f"{order}\t"
        for system, kinds in by_system.items():
            for kind, frame in kinds.items():
                lines += [f"{lead}{system}\t{kind}\t{g}\t{h}\t{m}" for g, h, m in frame.itertuples(index=False)]
    return "\n".join(lines)


def _counted_on_dask(args, ngrams, report, given: dict) -> None:
    """``--dask``: the n-gram tables of every order counted on the cluster, kept in the report's context where the
    view reads them (:func:`mtdiag.metrics.ht_mt_ngrams.context_ngram_tables`): the view then shows the cluster's counts."""
    from mtdiag.scoring.chunks import ngram_tables_on_dask

    ht_ref = ngrams.option("ht_ref").resolve(report, {}, given.get("ht_ref"))
    tables = ngram_tables_on_dask(report.evalset, args.dask, orders=args.order, min_count=given["min_count"],
                                  options=report.context.options, ht_ref=ht_ref)
    for order in args.order:
        report.context.memo(("ngram_tables", (order,), given["min_count"], ht_ref), lambda: tables)
