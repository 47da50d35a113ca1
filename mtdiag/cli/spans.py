"""``mtdiag spans``: the error spans mtdiag predicts (``docs/spans.md``), one xCOMET-style record per (system,
segment) — ``{"system", "seg_id", "mt", "metric", "error_spans": [{"text", "start", "end", "severity",
"confidence", "kind"}]}``, character offsets into ``mt`` — so ``mtdiag score --metric-spans FILE`` reads them back
and they can be compared with xCOMET's (:func:`mtdiag.spans.span_records`)."""

from __future__ import annotations

import io

from mtdiag.cli import arguments, load
from mtdiag.cli.base import note, write_file


def add(commands) -> None:
    """Add the ``spans`` command and its flags to ``commands``."""
    spans = commands.add_parser(
        "spans", help="the error spans mtdiag predicts: one xCOMET-style record per (system, segment)",
        description="The error spans mtdiag predicts in every output (docs/spans.md): one record per (system, "
                    "segment) — system, seg_id (1-based; with --where the whole set's ids), mt (the output), metric "
                    "(mtdiag), error_spans [{text, start, end, severity, confidence, kind}] with character offsets "
                    "into mt — the shape mtdiag score --metric-spans reads back. With references, from the alignment "
                    "with every reference and the other systems; without, from the other systems and the checks.")
    arguments.add_input_options(spans)
    arguments.add_where_option(spans)
    from mtdiag.views.detail import SPAN_THRESHOLD  # only for this command (see mtdiag.cli.base.Unfilled)

    arguments.add_view_option(spans, SPAN_THRESHOLD, "--threshold")
    from mtdiag.spans.protocol import DEFAULT_PROTOCOL, OPERATING_POINTS, PROTOCOLS

    spans.add_argument("--protocol", choices=PROTOCOLS, default=DEFAULT_PROTOCOL,
                       help="the human-evaluation protocol whose raters the spans should match: its operating point "
                            "(" + ", ".join(f"{p}: confidence at least {OPERATING_POINTS[p]['threshold']:g} in the "
                                            f"worst {OPERATING_POINTS[p]['share']:.0%} of the outputs by the judge"
                                            for p in PROTOCOLS) + "; ESA raters mark fewer spans) unless --threshold "
                            "is given (every span from that confidence; docs/spans.md)")
    arguments.add_format(spans, ("jsonl", "json"), default="jsonl")
    spans.add_argument("-o", "--output", metavar="SPANS.jsonl", help="write the records to this file (default: "
                       "print them)")
    spans.set_defaults(handler=run)


def run(args) -> str:
    """The span records of ``mtdiag spans`` (JSONL or JSON) to print, or ``""`` once written to ``--output``."""
    from mtdiag.spans import predict_spans, span_records, write_span_records
    from mtdiag.spans.protocol import operating_point, protocol_spans
    from mtdiag.views.detail import SPAN_THRESHOLD

    given = getattr(args, f"view_option:{SPAN_THRESHOLD.name}") is not None
    threshold = (arguments.fixed_view_option(args, SPAN_THRESHOLD, "--threshold") if given
                 else operating_point(args.protocol)["threshold"])
    _, report = load.report(args, analysed=True)
    predicted = predict_spans(report, threshold) if given else protocol_spans(report, args.protocol)
    records = span_records(report, predicted)
    marked = len({(s, g) for s, g in zip(predicted["system"], predicted["seg"])})
    summary = (f"{len(predicted):,} spans in {marked:,} of {len(records):,} outputs (confidence at least "
               f"{threshold:g})")
    text = io.StringIO()
    write_span_records(records, text, args.format)
    if args.output is None:
        note(summary)
        return text.getvalue().rstrip("\n")
    write_file(args.output, [text.getvalue()])  # whole or not at all
    note(f"wrote {args.output}: {summary}")
    return ""
