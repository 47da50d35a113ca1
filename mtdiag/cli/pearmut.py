"""``mtdiag pearmut export``: a Pearmut campaign of the worst-first queue's segments, every system's output in each
item and mtdiag's predicted error spans pre-filled (:func:`mtdiag.report.campaign.pearmut_campaign`, ``docs/pearmut.md``).
What the annotators mark comes back through ``--annotations`` (Pearmut's log, :mod:`mtdiag.io.pearmut_log`)."""

from __future__ import annotations

import json
from pathlib import Path

from mtdiag.cli import arguments, load
from mtdiag.cli.base import CliError, note


def add(commands) -> None:
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
    from mtdiag.report.campaign import DEFAULT_TOP, DEFAULT_USERS  # only for this command (mtdiag.cli.base.Unfilled)
    from mtdiag.io.pearmut_log import PROTOCOLS
    from mtdiag.views.detail import SPAN_THRESHOLD

    export.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="N",
                        help="the segments of the queue's first N pairs, each once (default: %(default)s, the "
                             "queue's first screen: one pair per source)")
    export.add_argument("--strict", action="store_true", help="the queue in strict problem order (as mtdiag triage "
                        "--strict; default: its first screen shows one pair per source)")
    export.add_argument("--users", type=int, default=DEFAULT_USERS, metavar="K",
                        help="annotators, each annotating every page (default: %(default)s)")
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
    from mtdiag.report.campaign import pearmut_campaign
    from mtdiag.views.detail import SPAN_THRESHOLD

    given = getattr(args, f"view_option:{SPAN_THRESHOLD.name}") is not None  # else the protocol's operating point
    threshold = arguments.fixed_view_option(args, SPAN_THRESHOLD, "--threshold") if given else None
    for flag, value in (("--top", args.top), ("--users", args.users)):
        if value < 1:
            raise CliError(f"{flag} must be at least 1, got {value}")
    _, report = load.report(args)
    campaign = pearmut_campaign(report, top=args.top, users=args.users, protocol=args.protocol,
                                threshold=threshold, campaign_id=args.campaign_id,
                                with_reference=args.with_reference, strict=args.strict)
    for text in campaign.notes:
        note(text)
    summary = (f"campaign {campaign.data['campaign_id']}: {len(campaign.segments):,} segments x "
               f"{len(report.evalset.systems)} systems, {len(campaign.spans):,} pre-filled spans, {args.users} "
               f"annotator{'s' if args.users != 1 else ''}")
    text = json.dumps(campaign.data, ensure_ascii=False, indent=1)
    if args.output is None:
        note(summary)
        return text
    output = Path(args.output)
    output.write_text(text + "\n", encoding="utf-8")
    note(f"wrote {output}: {summary}; load it with: pearmut add {output}")
    return ""
