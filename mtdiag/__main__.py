"""``python -m mtdiag`` runs the command line."""

import sys

from mtdiag.cli import main

sys.exit(main())
