"""Clients of poolhall: the asyncio :class:`clients.client.Client` and the ``poolhall`` CLI."""
