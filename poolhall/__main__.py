"""``python -m poolhall``: the ``poolhall`` command, from a checkout or an install."""

from poolhall.clients.cli import console

console()
