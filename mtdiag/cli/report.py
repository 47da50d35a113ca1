"""``mtdiag report``: one self-contained HTML file to share (:func:`mtdiag.report.html_report.html_report`, ``docs/report.md``)."""

from __future__ import annotations

from mtdiag.cli import arguments, load
from mtdiag.cli.base import CliError, note, write_file


def add(commands) -> None:
    """Add the ``report`` command and its flags to ``commands``."""
    report = commands.add_parser(
        "report", help="one self-contained HTML file to share: overview, ranked significance, buckets, worst segments",
        description="Write one HTML file (docs/report.md) that opens in any browser without a server or network: "
                    "corpus scores, ranked significance clusters and p-values, buckets, and the worst segments with "
                    "their evidence highlighted.")
    arguments.add_input_options(report)
    from mtdiag.report.html_report import DEFAULT_TOP, MAX_TOP  # only for this command (mtdiag.cli.base.Unfilled)

    report.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the file to write")
    report.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="N",
                        help=f"worst segments shown, 1 to {MAX_TOP:,} (default: %(default)s; refused when they "
                             "would take over 100 MB)")
    report.add_argument("--title", help="the report's title (default: the test set's name)")
    arguments.add_human_option(report, ", shown with the worst segments")
    arguments.add_where_option(report)
    from mtdiag.views.detail import SPAN_THRESHOLD

    arguments.add_view_option(report, SPAN_THRESHOLD)
    report.set_defaults(handler=run)


def run(args) -> str:
    """Write the HTML report of ``mtdiag report`` to ``--output``; returns ``""`` (nothing to print)."""
    from mtdiag.report.html_report import MAX_TOP, html_report

    if not 1 <= args.top <= MAX_TOP:
        raise CliError(f"--top {args.top:,}: from 1 to {MAX_TOP:,} worst segments")
    from mtdiag.views.detail import SPAN_THRESHOLD

    threshold = arguments.fixed_view_option(args, SPAN_THRESHOLD)
    whole, report = load.report(args, before=lambda evalset: note("scoring …"), analysed=True)
    title = args.title
    if title is None and args.where is not None:
        title = (f"mtdiag report: {whole.evalset.name}, where {args.where} ({report.evalset.n_segments:,} of "
                 f"{whole.evalset.n_segments:,} segments)")
    page = html_report(report, top=args.top, title=title, progress=lambda step: note(f"writing {step} …"),
                       span_threshold=threshold)
    size = write_file(args.output, [page])
    note(f"wrote {args.output} ({size / 1e6:.1f} MB)")
    return ""
