"""``mtdiag serve``: the dashboard, served by Streamlit from the package's own entry script
(:mod:`mtdiag.ui.dashboard`), so an installed package serves it without a checkout; Streamlit's command line is
started through :mod:`mtdiag.ui.serve`, which imports the dashboard's modules while the browser loads."""

from __future__ import annotations

import sys
from pathlib import Path

from mtdiag.cli.base import CliError
from mtdiag.core.arrow_memory import use_the_system_allocator

DASHBOARD = Path(__file__).resolve().parents[1] / "ui" / "dashboard.py"
SETTINGS = {
    "server.headless": "true",
    "server.maxUploadSize": "200",  # MB per file; the dashboard's own limits bound the work (docs/inputs.md)
    "browser.gatherUsageStats": "false",  # nothing leaves the machine unasked
    "browser.serverAddress": "localhost",  # the printed URL; no "what is my IP" lookup at start
    "client.showErrorDetails": "none",  # tracebacks go to the server console, never to the page
    "client.toolbarMode": "minimal",  # no "Deploy" button: a local tool
}
"""Streamlit settings of the dashboard: passed as flags, so the packaged dashboard served from any folder behaves as
``streamlit run app.py`` in the repository does with its ``.streamlit/config.toml`` (a test keeps the two equal)."""


def add(commands) -> None:
    """Add the ``serve`` command and its flags to ``commands``."""
    serve = commands.add_parser("serve", help="start the dashboard")
    serve.add_argument("--data", metavar="DIR", help="open this test-set folder (default: the sample data)")
    serve.add_argument("--workspace", metavar="DIR", help="the folder of saved runs (default: $MTDIAG_WORKSPACE, "
                       "else ~/.mtdiag/workspace)")
    serve.add_argument("--workspace-max-mb", type=int, metavar="MB", help="keep the saved runs under this size: "
                       "saving removes the oldest runs first (default: $MTDIAG_WORKSPACE_MAX_MB, else no limit)")
    serve.add_argument("--address", default="127.0.0.1", help="the interface to listen on (default: %(default)s, "
                       "this machine only; 0.0.0.0 for every interface, which shows uploaded data to the network)")
    serve.add_argument("--port", type=int, default=8501, help="the port (default: %(default)s)")
    serve.set_defaults(handler=run)


def run(args) -> str:
    """Serve the dashboard with Streamlit until it exits (``mtdiag serve``); an error when its status is not 0."""
    import os
    import subprocess

    if not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: expected a port number 1-65535")
    command = [sys.executable, "-m", "mtdiag.ui.serve", "run", str(DASHBOARD), "--server.address", args.address,
               "--server.port", str(args.port), *(f"--{name}={value}" for name, value in SETTINGS.items())]
    app_arguments = (["--data", args.data] if args.data else []) + (["--workspace", args.workspace]
                                                                      if args.workspace else [])
    if app_arguments:
        command += ["--", *app_arguments]
    if args.workspace_max_mb is not None:
        if args.workspace_max_mb < 1:
            raise CliError("--workspace-max-mb must be at least 1")
        os.environ["MTDIAG_WORKSPACE_MAX_MB"] = str(args.workspace_max_mb)  # the dashboard's process inherits it
    # glibc gives each thread (a Streamlit session runs in its own) an arena of its own; two keep freed memory from
    # staying scattered over up to 16 of them (docs/scaling.md, "Hostile uploads under load"); a value set wins
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    use_the_system_allocator()  # the dashboard's process inherits it, set before its first allocation
    return_code = subprocess.call(command)
    if return_code:
        raise CliError(f"the dashboard exited with status {return_code}")
    return ""
