"""The PostgreSQL log's schema: plain tables whose constraints are the log's promises.

- ``events``: one row per event, ``UNIQUE (campaign, seq)``: a second event at a sequence
  number is refused by the database, so two server processes that decided against the same
  head cannot both append, whoever writes (this release's processes find it out first, under
  each campaign's advisory lock: :mod:`.append`; a writer that takes none gets a unique
  violation, and the batch is made again from a fresh read). The payload
  is ``json`` (kept byte for byte as written, which the chain hash covers; readable with any
  SQL tool's JSON operators); ``position`` is the order rows were appended in.
- ``commands``: what each accepted command id appended, ``PRIMARY KEY (campaign,
  command_id)``: a command id is used once per campaign, whichever process sees it; and
  ``commands_one_creation``, unique on ``command_id`` where ``first_seq = 1``: a command id
  creates one campaign at most, whichever processes it was sent to
  (:mod:`poolhall.events.one_creation`; made apart from :data:`STATEMENTS`, as a log from
  before it may hold campaigns it must leave out).
- ``sealed_tokens``: the token an invite issued, sealed under its retry key
  (:mod:`poolhall.server.sealed_tokens`), written in the same transaction as its events.
- ``issued_tokens``: the campaign each token hash was issued for (derived from the events,
  written in the same transaction), so a join is checked before its campaign loads.
- ``snapshots``: derived data (:mod:`.snapshots`), not append-only: may be dropped.
- ``deployment``: settings all the processes of one deployment share (the admin token's
  SHA-256, never the token).
- ``report_tickets``: the report pages' tickets, so any process opens one
  (:mod:`.report_tickets`); ``UNLOGGED``, not append-only (a ticket is spent by deleting it).
- ``presence_processes`` and ``presence``: who is connected, through which server process
  (:mod:`.presence`): each process's heartbeat and since when the deployment has been serving
  as it judged it, and its connections per (campaign, member).
  ``UNLOGGED``: nothing in them outlives the processes that write them, so they cost no WAL,
  and a crash of the database empties them (each process writes its rows again at its next
  heartbeat).

Triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE`` on every table but ``deployment``, the
report tickets and the presence tables: the log is append-only in the database itself, whoever
connects.
:data:`SCHEMA_VERSION` is kept in ``deployment``; :func:`create` runs every statement
idempotently, in one transaction, under an advisory lock, so that three processes starting at
once create it once; a schema at an older version gets the statements of
:data:`UPGRADES` only.
"""

from __future__ import annotations

__all__ = ["APPEND_ONLY_TABLES", "CHANNEL", "PRESENCE_CHANNEL", "SCHEMA_VERSION", "STATEMENTS",
           "UPGRADES"]

SCHEMA_VERSION = 4
"""1: the log; 2: the presence tables; 3: each process's ``serving_since``; 4: the report
pages' tickets, and the unique index of creations (made by :func:`.database.create_schema`:
:mod:`poolhall.events.one_creation`)."""

CHANNEL = "poolhall_heads"
"""The LISTEN/NOTIFY channel: each payload is ``<new head> <campaign>`` (the campaign last,
as it is the part that may hold spaces), sent by the append's transaction, so delivered only
once it commits. A schema's name is appended (``poolhall_heads_<schema>``) when it is not
``public``, so that deployments in two schemas of one database do not hear each other."""

PRESENCE_CHANNEL = "poolhall_presence"
"""The channel of presence changes: each payload is a campaign whose members connected
through some process changed (:mod:`.presence`); the same schema suffix as :data:`CHANNEL`."""

APPEND_ONLY_TABLES = ("events", "commands", "sealed_tokens", "issued_tokens", "fair_seeds")

_PRESENCE: tuple[str, ...] = (
    """CREATE UNLOGGED TABLE IF NOT EXISTS presence_processes (
        process text PRIMARY KEY,
        beat timestamptz NOT NULL DEFAULT now(),
        expiry double precision NOT NULL CHECK (expiry > 0),
        serving_since timestamptz)""",
    """CREATE UNLOGGED TABLE IF NOT EXISTS presence (
        campaign text NOT NULL,
        process text NOT NULL REFERENCES presence_processes ON DELETE CASCADE,
        member text NOT NULL,
        connections integer NOT NULL CHECK (connections > 0),
        PRIMARY KEY (campaign, process, member))""",
    "CREATE INDEX IF NOT EXISTS presence_of_process ON presence (process)",
)

_SERVING_SINCE = ("ALTER TABLE presence_processes"
                  " ADD COLUMN IF NOT EXISTS serving_since timestamptz")
"""Since when the deployment has been serving, as the process judged it when it opened the log
(:meth:`.presence.PostgresPresence.enter`); ``NULL`` in the row of a process made for schema
version 2, which does not say (it counts as no process: the careful side)."""

_TICKETS = """CREATE UNLOGGED TABLE IF NOT EXISTS report_tickets (
    ticket text PRIMARY KEY,
    campaign text NOT NULL,
    session bigint,
    head bigint NOT NULL,
    hidden json NOT NULL,
    expires timestamptz NOT NULL)"""
"""The report pages' tickets (:mod:`.report_tickets`): any process opens one another issued."""

_VERSION = f"""INSERT INTO deployment (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}')
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"""

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS events (
        position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        campaign text NOT NULL,
        seq bigint NOT NULL CHECK (seq > 0),
        type text NOT NULL,
        version integer NOT NULL,
        payload json NOT NULL,
        recorded_at text NOT NULL,
        actor text NOT NULL,
        command_id text NOT NULL,
        hash text NOT NULL,
        CONSTRAINT events_campaign_seq UNIQUE (campaign, seq))""",
    """CREATE TABLE IF NOT EXISTS commands (
        campaign text NOT NULL,
        command_id text NOT NULL,
        actor text NOT NULL,
        first_seq bigint NOT NULL,
        last_seq bigint NOT NULL,
        CONSTRAINT commands_campaign_command_id PRIMARY KEY (campaign, command_id),
        CHECK (first_seq > 0 AND last_seq >= first_seq))""",
    """CREATE INDEX IF NOT EXISTS commands_creations ON commands (command_id)
        WHERE first_seq = 1""",
    """CREATE TABLE IF NOT EXISTS sealed_tokens (
        campaign text NOT NULL,
        command_id text NOT NULL,
        sealed text NOT NULL,
        PRIMARY KEY (campaign, command_id))""",
    """CREATE TABLE IF NOT EXISTS issued_tokens (
        token_hash text PRIMARY KEY,
        campaign text NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS snapshots (
        campaign text NOT NULL,
        seq bigint NOT NULL,
        fingerprint text NOT NULL,
        head_hash text NOT NULL,
        state bytea NOT NULL,
        seal text NOT NULL DEFAULT '',
        PRIMARY KEY (campaign, seq))""",
    "ALTER TABLE snapshots ADD COLUMN IF NOT EXISTS seal text NOT NULL DEFAULT ''",
    """CREATE TABLE IF NOT EXISTS fair_seeds (
        campaign text NOT NULL,
        epoch bigint NOT NULL CHECK (epoch >= 1),
        seed bytea NOT NULL CHECK (length(seed) = 32),
        PRIMARY KEY (campaign, epoch))""",
    """CREATE TABLE IF NOT EXISTS deployment (
        key text PRIMARY KEY,
        value text NOT NULL)""",
    """CREATE OR REPLACE FUNCTION poolhall_append_only() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'poolhall: % is append-only (% refused)', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'restrict_violation';
        END $$""",
    *(statement.format(table=table) for table in APPEND_ONLY_TABLES for statement in (
        """CREATE OR REPLACE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
            FOR EACH ROW EXECUTE FUNCTION poolhall_append_only()""",
        """CREATE OR REPLACE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
            FOR EACH STATEMENT EXECUTE FUNCTION poolhall_append_only()""",
    )),
    *_PRESENCE,
    _SERVING_SINCE,
    _TICKETS,
    _VERSION,
)
"""Every statement of the schema, each safe to run again (``IF NOT EXISTS``, ``OR
REPLACE``; triggers ``OR REPLACE`` need PostgreSQL 14 or later)."""

UPGRADES: dict[int, tuple[str, ...]] = {1: (*_PRESENCE, _TICKETS, _VERSION),
                                        2: (_SERVING_SINCE, _TICKETS, _VERSION),
                                        3: (_TICKETS, _VERSION)}
"""What brings a schema at each older version to :data:`SCHEMA_VERSION`: only the new
tables and column, so that an upgrade beside running processes takes no lock on the log's
tables (their triggers' DDL would); the column is added to an unlogged table of a few rows,
which the running processes' heartbeats wait on for a moment, and may be left empty (theirs
leave it so). Every upgrade also makes the unique index of creations if it is missing
(:func:`.database.create_schema`): building it holds the appends of the processes already
serving for as long as it takes to read ``commands`` (no deadlock: it waits for no lock
they hold but the table's)."""
