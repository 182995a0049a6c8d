"""``python -m poolhall``: the ``poolhall`` command, from a checkout or an install."""

import sys

from poolhall.clients.cli import main

sys.exit(main())
