"""I/O and decisions: the wire protocol, campaign hubs, auth, the group-commit writer and the
rules of each game system (``server/rules/<system>.py``)."""
