"""poolhall: an event-sourced campaign session server for dice-pool tabletop games.

The code lives in five packages: :mod:`poolhall.events` (what is true: commands, events, dice,
the log), :mod:`poolhall.projections` (what follows from the log), :mod:`poolhall.server` (the
table over WebSockets), :mod:`poolhall.reports` (the post-game report) and
:mod:`poolhall.clients` (the CLI, the Python client and the browser table). An installed
poolhall has them under ``poolhall/``; in the repository they are the top-level folders, and
``poolhall/`` holds this file and links to them, so that a checkout imports ``poolhall.*``
exactly as an installed copy does (``pyproject.toml`` maps each package to its folder).
"""
