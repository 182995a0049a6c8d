"""What an operator may tune: one frozen dataclass, one ``poolhall serve`` flag per field.

Each field carries its default and its help text, so adding a setting is one field here: the
flag (``queue_limit`` -> ``--queue-limit``), its type and its help are derived from the field.
Limits are per server process; the defaults suit a real table on a small machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Settings", "add_arguments", "from_arguments"]


def _setting(default: Any, help: str, env: str | None = None) -> Any:
    """A field with its default, the help text of its flag, and the environment variable
    that may set it instead of the flag (``env``)."""
    return field(default=default, metadata={"help": help, "env": env})


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The operator's settings of one server."""

    queue_limit: int = _setting(
        4096, "frames a client may fall behind before it is disconnected (close 1013)")
    send_buffer: int = _setting(
        128 * 1024, "kernel send buffer per client, in bytes (0 leaves it to the kernel)")
    """Left to autotuning, the buffer grows to megabytes for a client that stops reading,
    hiding the stall for thousands of frames and costing memory per client."""
    disk_reserve_mb: int = _setting(
        64, "free disk space (MiB) to keep beside the log: below it commands are refused"
        " with 'unavailable' and /health answers 503 (0 disables)")
    """Checked once a second. Refusing before the disk is full keeps the log writable (a
    checkpoint needs room too) and the state from running ahead of what the log holds."""
    join_timeout: float = _setting(
        10.0, "seconds a new connection has to join before it is closed (close 1008)")
    max_connections: int = _setting(
        1000, "connections open at once in total; lowered to fit the file descriptor limit")
    max_connections_per_address: int = _setting(
        64, "connections open at once from one IP address (IPv6: one /64); a LAN party behind"
            " one NAT shares an address")
    unfinished_requests_per_address: int = _setting(
        8, "HTTP requests (WebSocket handshakes, /health, the page's files) one address may be"
        " sending at once; its further connections wait, unread, for one of them to finish")
    """A browser sends its request as soon as it connects, so its turn lasts a round trip; a
    request sent a byte at a time holds one of its own address's turns, never another's."""
    request_rate: float = _setting(
        10.0, "HTTP requests (WebSocket handshakes, /health) per second one address may make"
        " before each is answered a second late")
    request_burst: int = _setting(
        30, "HTTP requests one address may make at once before request_rate applies")
    """Every handshake or /health answer costs the event loop all tables share; an outsider
    asking /health 1,000 times a second raised another table's p99 to 180 ms."""
    join_failures_allowed: int = _setting(
        20, "failed joins one address may make per window before its joins are refused")
    join_failure_window: float = _setting(
        60.0, "seconds of that window: failed joins are counted, and refused, per window")
    member_rate: float = _setting(
        10.0, "commands per second one member may send, across all their connections "
        "(the admin token is one member); more are refused with rate_limited")
    """A person does not roll ten times a second; scripts and pipelining clients get the burst.
    At this rate one member writes about 15 MB of log an hour, not the 17 GB seen unlimited."""
    member_burst: int = _setting(
        30, "commands one member may send at once before member_rate applies")
    campaign_rate: float = _setting(
        100.0, "commands per second one campaign accepts from all its members together")
    campaign_burst: int = _setting(
        200, "commands one campaign may take at once before campaign_rate applies")
    member_in_flight: int = _setting(
        16, "commands one member may have sent and not yet had answered, across connections")
    member_connections: int = _setting(
        8, "connections one member (one token) may have open at once")
    """A player with a phone, a laptop and a spare tab uses three; a spectator token that
    opened 300 reading connections raised the GM's p99 from 1.9 ms to 163 ms."""
    join_rate: float = _setting(
        5.0, "joins per second one member may make (a join with since=0 replays the log)")
    join_burst: int = _setting(
        20, "joins one member may make at once before join_rate applies")
    replay_rate: float = _setting(
        20_000.0, "events per second a campaign's joins may have sent from the log (replays"
        " and resumes); a join over it is refused rate_limited")
    replay_burst: int = _setting(
        60_000, "events a campaign's joins may have sent from the log at once before"
        " replay_rate applies (a larger replay still goes through, then is repaid)")
    """Joins afresh get a snapshot (one message); only ``replay`` and resumes cost events."""
    catch_up_timeout: float = _setting(
        10.0, "seconds a joining client has to take each page of the events it missed before "
        "it is closed (1013) to resume later")
    """A client that joins with since=0 and never reads once held its whole catch-up in the
    server's memory (500 such sockets: 795 MB, never freed)."""
    gc_freeze_joins: int = _setting(
        64, "joins after which, once they pause for a second, the objects alive are frozen out of"
        " the garbage collector's full scans (0: CPython's defaults)")
    """Connections live long and hold ~100 tracked objects each: with 10,000 of them a full
    collection held the event loop ~0.5 s (:mod:`poolhall.server.gc_tuning`)."""
    ping_interval: float = _setting(
        20.0, "seconds between keepalive pings to each client; a client that has not answered"
        " one by the next is closed (1011), within twice this of its last answer (0: no pings)")
    """websockets' default interval, and its bound for detecting a dead client (20 s to the
    next ping, 20 s for the pong); pinged from one timer for all
    (:mod:`poolhall.server.keepalive`)."""
    view_workers: int = _setting(
        1, "worker processes computing odds off the event loop (each takes a core while busy)")
    view_budget: float = _setting(
        5.0, "seconds one odds computation may take before its view says it was not computed "
        "(0: no limit)")
    view_cache: int = _setting(
        4096, "computed odds kept for reuse (the same pool again, members joining)")
    view_backlog: int = _setting(
        64, "views of one campaign that may wait for the workers; past it, sent without odds")
    base_url: str = _setting(
        "", "the address people open the table at when it is not this server's own (e.g. "
        "https://table.example.org behind a proxy, http://gamebox.lan:8765 on a LAN): its "
        "host name is answered and its pages may open a WebSocket", env="POOLHALL_BASE_URL")
    """Requests naming another host are refused (403): a stranger's DNS name pointed at this
    server (DNS rebinding) must not reach the table. Loopback names, the machine's own name,
    address literals and ``--host`` are always answered (:mod:`poolhall.server.allowed_hosts`)."""
    report_memory: int = _setting(
        256, "MiB of data the report worker may hold (its RLIMIT_DATA: heap and private "
        "mappings, matplotlib's included; 0: no limit); a page needing more is not made")
    """The report worker folds a campaign's log a page at a time (~80 MiB resident whatever
    the log's length, about 150 MiB of data mapped with matplotlib and numpy loaded): the
    limit makes its share of the server's memory a known figure, whoever asks for a report."""
    allowed_origins: str = _setting(
        "", "other web origins whose pages may open a WebSocket here, comma-separated "
        "(e.g. https://table.example.org behind a proxy); their host names are answered too")
    idle_unload: float = _setting(
        300.0, "seconds a campaign nobody is connected to stays loaded before its hub is "
        "unloaded (0: never); it loads again, from its latest snapshot, when next joined")
    """Memory follows the tables in use: an unloaded campaign holds nothing but its id."""
    snapshot_every: int = _setting(
        1000, "events between the stored snapshots of a campaign's state, from which it loads"
        " and any earlier table is rebuilt (0: none stored)")
    """Loading folds at most this many events after the latest snapshot; ``state_at`` as many
    after the nearest one. Each snapshot is a few KiB in the log's file (table ``snapshots``,
    derived data: deleting it loses nothing)."""
    presence_expiry: float = _setting(
        5.0, "with several processes on one PostgreSQL: seconds after a process stops (killed, "
        "cut off from the database) that the members connected through it stop showing as "
        "connected on the others' pages; each process beats five times as often")
    """A process stopped cleanly withdraws its members at once; one killed cannot, so the
    others forget it once it has not beaten for this long (:mod:`poolhall.server.shared_presence`).
    Shorter shows a dead process's members gone sooner, at a heartbeat statement more often."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every setting to ``parser`` (``poolhall serve``); a setting with an
    environment variable takes its default from it (``POOLHALL_BASE_URL``, which the commands
    that print links read too: set once, it names the same address everywhere)."""
    group = parser.add_argument_group("limits and tuning")
    for setting in dataclasses.fields(Settings):
        default, env = setting.default, setting.metadata["env"]
        shown = f"${env}, else {default or 'none'}" if env else default
        group.add_argument(_flag(setting.name), dest=setting.name, type=type(default),
                           default=os.environ.get(env, default) if env else default,
                           metavar=type(default).__name__.upper(),
                           help=f"{setting.metadata['help']} (default {shown})")


def from_arguments(args: argparse.Namespace) -> Settings:
    """The settings given on the command line."""
    return Settings(**{setting.name: getattr(args, setting.name)
                       for setting in dataclasses.fields(Settings)})
