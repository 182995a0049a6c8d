"""Telling a client that its copy of a campaign is not the server's history (``diverged``).

A client resumes from the last event it holds (``since``) and, since it knows it, that event's
chain hash (``since_hash``). If the server's log no longer reaches ``since`` (it lost events
it had acknowledged: a write-ahead log deleted after a crash, a restore from an older backup)
or its event at ``since`` has another hash (it lost some and appended others since), then
resuming would graft new events onto a history the server does not have, and the client's
state would be wrong without anyone noticing. The join is refused with ``diverged`` instead,
naming both ends, so the people at the table learn it at once.

This module decides; the hub fetches the hash at ``since`` (in memory at the head, else one
indexed read of the log off the event loop) and answers.
"""

from __future__ import annotations

from collections.abc import Collection

from poolhall.events.errors import Rejected

__all__ = ["check_history", "needs_lookup"]

_SHOWN = 16
"""Hex digits of a hash quoted in the message: enough to tell two apart and find the row."""


def needs_lookup(since: int, since_hash: str | None, head: int) -> bool:
    """Whether checking this join needs the log's hash at ``since`` (below the head)."""
    return since_hash is not None and since < head


def check_history(*, since: int, since_hash: str | None, head: int, head_hash: str,
                  hash_at_since: str | None = None,
                  hidden: Collection[int] = ()) -> Rejected | None:
    """The ``diverged`` refusal for a client holding events the server lacks, or ``None``.

    ``hash_at_since`` is the log's hash of event ``since`` when ``since < head`` (see
    :func:`needs_lookup`). A client that sends no ``since_hash`` (an older one) is checked
    on ``since`` alone. ``hidden``: the seqs this member may not see yet (sealed private
    rolls), whose hashes the message does not quote: a sealed event reaches them with no
    hash, and the refusal must not give it either.
    """
    lead = "your copy of this campaign has events the server does not have"
    ends = (f"the server's history ends at event {head} "
            f"(hash {_quoted(head_hash, head in hidden)})")
    if since > head:
        return Rejected("diverged", f"{lead}: {ends}; your last event is {since}", "$.since")
    if since_hash is None:
        return None
    server_hash = head_hash if since == head else hash_at_since
    if server_hash == since_hash:
        return None
    return Rejected("diverged", f"{lead}: your last event is {since} with hash "
                    f"{_short(since_hash)}, the server's event {since} has hash "
                    f"{_quoted(server_hash or '', since in hidden)}; {ends}", "$.since_hash")


def _quoted(digest: str, withheld: bool) -> str:
    """A hash of the server's as a refusal quotes it: withheld for a sealed event."""
    return "withheld: a private roll" if withheld else _short(digest)


def _short(digest: str) -> str:
    return digest[:_SHOWN] + "..." if len(digest) > _SHOWN else digest or "none"
