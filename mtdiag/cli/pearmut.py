"""``mtdiag pearmut export``: a Pearmut campaign of the worst-first queue's segments, every system's output in each
item and mtdiag's predicted error spans pre-filled (:func:`mtdiag.report.campaign.pearmut_campaign`, ``docs/pearmut.md``).
What the annotators mark comes back through ``--annotations`` (Pearmut's log, :mod:`mtdiag.io.pearmut_log`)."""

from __future__ import annotations

from mtdiag.cli import arguments, load
from mtdiag.cli.base import CliError, note, write_file


def add(commands) -> None:
    """Add the ``pearmut`` command, its action ``export`` and that action's flags to ``commands``."""
    pearmut = commands.add_parser(
        "pearmut", help="human evaluation in Pearmut: a campaign of the queue with mtdiag's spans pre-filled",
        description="Pearmut (pip install pearmut; Python >= 3.12) runs WMT's human evaluation (ESA, MQM). "
                    "'export' writes a campaign of the worst-first queue for 'pearmut add'; the annotation log "
                    "Pearmut writes (data/annotations/CAMPAIGN.jsonl) is read back with --annotations "
                    "(docs/pearmut.md).")
    actions = pearmut.add_subparsers(dest="pearmut_action", required=True, metavar="ACTION")
    export = actions.add_parser(
        "export", help="a Pearmut campaign of the segments of the queue's first N pairs",
        description="A Pearmut campaign (JSON for 'pearmut add'): one page per segment of the queue's first N "
                    "(system, segment) pairs, in queue order, each with the source, every system's output and "
                    "mtdiag's predicted error spans pre-filled (Pearmut's offsets: UTF-16 units, end inclusive); "
                    "ids in every item match the annotations back to the segments (docs/pearmut.md).")
    arguments.add_input_options(export)
    arguments.add_where_option(export)
    from mtdiag.report.campaign import DEFAULT_TOP, DEFAULT_USERS, MAX_CAMPAIGN_MB, MAX_USERS  # this command's only
    from mtdiag.io.pearmut_log import PROTOCOLS
    from mtdiag.views.detail import SPAN_THRESHOLD

    export.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="N",
                        help="the segments of the queue's first N pairs, each once (default: %(default)s, the "
                             "queue's first screen: one pair per source)")
    export.add_argument("--strict", action="store_true", help="the queue in strict problem order (as mtdiag triage "
                        "--strict; default: its first screen shows one pair per source)")
    export.add_argument("--users", type=int, default=DEFAULT_USERS, metavar="K",
                        help=f"annotators, each annotating every page: from 1 to {MAX_USERS} (default: "
                             f"%(default)s); the file, at most {MAX_CAMPAIGN_MB} MB, holds every page once per "
                             "annotator (Pearmut's format)")
    export.add_argument("--protocol", choices=tuple(PROTOCOLS), default="esa",
                        help="esa: error spans (minor, major) and a 0-100 score; mqm: error spans with category "
                             "and severity, scored by their weights (default: %(default)s)")
    arguments.add_view_option(export, SPAN_THRESHOLD, "--threshold")
    export.add_argument("--with-reference", action="store_true",
                        help="show the first reference beside the source (default: the source only, as ESA and "
                             "MQM in WMT; the reference when the set has no source)")
    export.add_argument("--campaign-id", metavar="ID", help="the campaign's id in Pearmut (default: "
                        "mtdiag-SET-PROTOCOL)")
    export.add_argument("-o", "--output", metavar="CAMPAIGN.json", help="write the campaign to this file "
                        "(default: print it)")
    export.set_defaults(handler=run)


def run(args) -> str:
    """The campaign of ``mtdiag pearmut export`` to print, or ``""`` once it is written to ``--output``."""
    from mtdiag.report.campaign import MAX_USERS, campaign_text, pearmut_campaign
    from mtdiag.views.detail import SPAN_THRESHOLD

    given = getattr(args, f"view_option:{SPAN_THRESHOLD.name}") is not None  # else the protocol's operating point
    threshold = arguments.fixed_view_option(args, SPAN_THRESHOLD, "--threshold") if given else None
    if args.top < 1:
        raise CliError(f"--top must be at least 1, got {args.top:,}")
    if not 1 <= args.users <= MAX_USERS:
        raise CliError(f"--users {args.users:,}: from 1 to {MAX_USERS} annotators")
    _, report = load.report(args, analysed=True)
    campaign = pearmut_campaign(report, top=args.top, users=args.users, protocol=args.protocol,
                                threshold=threshold, campaign_id=args.campaign_id,
                                with_reference=args.with_reference, strict=args.strict)
    for text in campaign.notes:
        note(text)
    summary = (f"campaign {campaign.data['campaign_id']}: {len(campaign.segments):,} segments x "
               f"{len(report.evalset.systems)} systems, {len(campaign.spans):,} pre-filled spans, {args.users} "
               f"annotator{'s' if args.users != 1 else ''}")
    try:
        pieces = campaign_text(campaign)
    except ValueError as exc:  # the file's size, known before it is written
        raise CliError(f"{exc} (--users, --top)") from None
    if args.output is None:
        note(summary)
        return "".join(pieces).rstrip("\n")
    size = write_file(args.output, pieces)
    note(f"wrote {args.output} ({size / 1e6:.1f} MB): {summary}; load it with: pearmut add {args.output}")
    return ""
