"""``mtdiag ngrams``: HT-only / MT-only n-gram tables (Aikawa & Rarrick §2.2: the n-grams only the human translation
or only a system uses, :mod:`mtdiag.ht_mt_ngrams`)."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, inputs
from mtdiag.cli.base import CliError


def add(commands) -> None:
    ngrams = commands.add_parser("ngrams", help="n-grams only the human translation or only a system uses")
    ngrams.add_argument("--ht", metavar="REF.txt", help="the human translation")
    ngrams.add_argument("--mt", action="append", type=arguments.named_file, metavar="NAME=FILE",
                        help="system output (repeatable)")
    arguments.add_testset_option(ngrams, "its first reference is the human translation")
    from mtdiag.ht_mt_ngrams import DEFAULT_MIN_COUNT  # only for this command (see mtdiag.cli.base.Unfilled)

    ngrams.add_argument("--order", type=arguments.orders, default=(3,), metavar="N[,N...]",
                        help="n-gram order 1-4, or several comma-separated (1,2,3,4: one tokenisation shared; the "
                        "output then has one table set per order) (default: 3)")
    ngrams.add_argument("--min-count", type=int, default=DEFAULT_MIN_COUNT, help="minimum count k in the corpus that "
                        "has the n-gram (default: %(default)s)")
    ngrams.add_argument("--top", type=int, default=50, help="rows per table, 0 = all (default: %(default)s)")
    arguments.add_tokenize_options(ngrams)
    ngrams.add_argument("--tgt-lang", help="target language code: chooses the default tokeniser (default: read "
                        "from a folder name like wmt22.en-ja or en-ja, or file names like generaltest2022.en-ja.X.txt)")
    ngrams.add_argument("--dask", metavar="ADDRESS", help="count on a Dask cluster, one task per system: a "
                        "scheduler address (tcp://host:8786), or local / local:N; the tables are identical")
    arguments.add_format(ngrams)
    ngrams.set_defaults(handler=run)


def run(args) -> str:
    from mtdiag.ht_mt_ngrams import ngram_tables

    if args.min_count < 1:
        raise CliError(f"--min-count {args.min_count}: must be at least 1")
    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all rows) or more")
    evalset = inputs.load(args, ref_flag="--ht", hyp_flag="--mt")
    inputs.print_warnings(evalset)
    options = inputs.options(args).resolved(evalset).tokenize_options
    if args.dask:
        from mtdiag.chunks import ngram_tables_on_dask

        tables = ngram_tables_on_dask(evalset, args.dask, orders=args.order, min_count=args.min_count,
                                      options=options)
    else:
        tables = ngram_tables(evalset, orders=args.order, min_count=args.min_count, options=options)

    def rows(system: str, order: int) -> dict:
        table = tables.table(system, order)
        frames = {kind: getattr(table, kind)[["ngram", "ht_count", "mt_count"]] for kind in ("ht_only", "mt_only")}
        return {kind: frame.head(args.top) if args.top else frame for kind, frame in frames.items()}

    # one order: {"order": n, "tables": {system: ...}} as before; several: {"orders": [...], "tables": {"n": ...}}
    per_order = {order: {system: rows(system, order) for system in tables.systems} for order in args.order}
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
