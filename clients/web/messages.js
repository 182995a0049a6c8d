// The server's messages as the page reads them, for the type checker only (tsconfig.json,
// TypeScript's checkJs): JSDoc types, no code. No page imports this module at run time; the
// others name its types with `@import`. The shapes are events/messages.py's and
// projections/snapshot.py's (the protocol reference, docs/reference/protocol.md); a game
// system's own parts (its table, its views, its events' fields, a character's stats) are
// that system's module's business and stay open records here.
export {};

/** @typedef {"gm" | "player" | "spectator" | "admin" | "replay"} Role */

/** Who reads the page: `.me` of every part of the table. @typedef {{member: string, role: Role}} Me */

/** An event of the log: `type` and its own fields (events/<system>.py). A fair roll's event
 * carries its stamp in `fair`; a sealed private roll is `{type: "private_roll", visibility, fair?}` (a roll keeps its stamp).
 * @typedef {{type: string, fair?: FairStamp, visibility?: string, [field: string]: any}} GameEvent */

/** A fair roll's stamp (events/fair.py): its epoch, nonce and the client seeds digest.
 * @typedef {{epoch: number, nonce: number, seeds: string}} FairStamp */

/**
 * One line of the log (`event`).
 * @typedef {object} EventFrame
 * @property {"event"} [type]
 * @property {number} seq
 * @property {string} at
 * @property {string} actor
 * @property {string} command
 * @property {GameEvent} event
 * @property {string} [hash]
 */

/**
 * @typedef {object} Welcome
 * @property {"welcome"} type
 * @property {Role} role
 * @property {string} member
 * @property {string | null} campaign
 * @property {string} name
 * @property {string} system
 * @property {number} head
 * @property {string} head_hash
 * @property {number} replay_from
 */

/** @typedef {{member: string, name: string, role: Role, characters: string[], active?: boolean}} MemberEntry */

/** A character's stats: its game system's sheet (`system` tells which).
 * @typedef {{system: string, [field: string]: any}} Stats */

/** A character at the table; `changed` is the seq of the event that last changed its sheet
 * (by the member `changed_by`), which a form sends back as `update_character`'s `based_on`.
 * @typedef {{character: string, name: string, stats: Stats, conditions?: Record<string, number>,
 *   changed?: number, changed_by?: string}} CharacterEntry */

/** @typedef {{member: string, name: string, session: number, last?: number}} ReplayLinkEntry */
/** @typedef {{character: string, name: string}} RetiredEntry */

/** The fair rolls' epoch (projections/campaign.py FairState).
 * @typedef {{client_seeds: Record<string, string>, [field: string]: any}} FairState */

/** A game system's table (projections/<system>.py): open checks or tests, the latest closed.
 * @typedef {{system: string, [field: string]: any}} SystemTable */

/**
 * What a snapshot and a `table` message share: the table after event `seq`.
 * @typedef {object} TableFields
 * @property {number} seq
 * @property {string} campaign
 * @property {string} name
 * @property {string} system
 * @property {MemberEntry[]} members
 * @property {CharacterEntry[]} characters
 * @property {number} session
 * @property {boolean} in_session
 * @property {Array<Record<string, any>>} rolls
 * @property {SystemTable} table
 * @property {ReplayLinkEntry[]} [replay_links]
 * @property {FairState} [fair]
 * @property {RetiredEntry[]} [retired] characters retired, named for the log before
 */

/** @typedef {TableFields & {type: "table", connected: string[], dice_wait?: boolean}} TableNow */

/** @typedef {TableFields & {type: "snapshot", head_hash: string, id?: string | null, recent: EventFrame[]}} Snapshot */

/** A standing view (odds, the combat turn ...): `data` is its system's. @typedef {{type: "view", about: string, data: any}} View */

/** @typedef {{type: "views_at", id: string, seq: number, views: View[]}} ViewsAt */

/** @typedef {{type: "ack", id: string, seqs: number[], campaign?: string, member?: string, token?: string}} Ack */

/** @typedef {{type: "history", id: string, before: number, events: EventFrame[]}} HistoryPage */

/** @typedef {{type: "revealed", events: EventFrame[]}} Revealed */

/** @typedef {{type: "report", id: string, path: string}} ReportReady */

/**
 * The server's refusal (`error`): `path` names the field it is about.
 * @typedef {object} ErrorReply
 * @property {"error"} type
 * @property {string | null} [id]
 * @property {string} code
 * @property {string} message
 * @property {string | null} [path]
 * @property {number | null} [retry_after]
 */

/** @typedef {Welcome | Snapshot | EventFrame | HistoryPage | Revealed | Ack | ErrorReply | View | ViewsAt | ReportReady | TableNow} ServerMessage */

/** A command or request the page sends: `type` and its fields (`id` is added when sent).
 * @typedef {{type: string, id?: string, [field: string]: any}} Command */

/** Names for ids (describe.js namesOf), and a member's role (null if unknown).
 * @typedef {{member: (id: string) => string, character: (id: string) => string, role?: (id: string) => string | null}} Names */

/**
 * A game system's module (systems/index.js).
 * @typedef {object} GameSystem
 * @property {string} panel the tag of the element that shows the system's table
 * @property {string} [sheet] the tag of the GM's character form
 * @property {(frame: EventFrame, names: Names) => Node | null} describe one log line's body
 */
