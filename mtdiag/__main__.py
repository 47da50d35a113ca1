"""``python -m mtdiag`` runs the command line."""

from mtdiag.cli import run

run()
