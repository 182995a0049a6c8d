"""Clients of poolhall: the asyncio :class:`poolhall.clients.client.Client` and the ``poolhall``
CLI."""
