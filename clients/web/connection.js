// The table's connection: join, resume, commands and their answers, on a WebSocket that
// opens again by itself (./reconnecting.js: offline, the delays, the link's check).
//
// A resume sends the last event the page has (`since`, `since_hash`): the server sends exactly
// the events missed (or a snapshot if too far behind), so the log shows no gap and no
// duplicate. Commands carry an id; one still unanswered when the connection drops is sent
// again, with the same id, after the resume: the server answers a retry with its first answer,
// so a command is never applied twice.
//
// Offline, the page says "you are offline" (not "reconnecting…": nothing is tried). Commands
// made meanwhile wait in `pending`, never written to a socket, and a person's says so beside
// its form, with Cancel (`held`: ./unsent.js). Joined again, such a command waits for the
// catch-up's `table`, and one made before the game session started or ended is not sent in a
// session its maker never saw (a roll pressed offline in session 1 was recorded minutes later
// in session 2): the page asks whether to send it. A command that was written to a socket and
// not answered is another matter: the server may have done it, so it is sent again, same id,
// as soon as the page is welcomed (`resend`). So is one the server refused `shutting_down`: a
// server stopping (a restart, a rolling upgrade behind a proxy) refuses before deciding
// anything, so it was not done, and the player never sees that refusal (`answer`).

import {BACK_SHOWN_MS, FOR_GOOD, IDLE_CHECK_MS, Reconnecting, defaultUrl, newId}
  from "./reconnecting.js";

/** @import {Store} from "./store.js" */
/** @import {TableNow} from "./messages.js" */
/** @import {Command, ErrorReply, ServerMessage} from "./messages.js" */

/**
 * A command sent and not yet answered.
 * @typedef {object} Waiting
 * @property {Command & {id: string}} message
 * @property {(reply: any) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {boolean} [retried]
 * @property {boolean} [sent] written to a socket at least once: only the same id may follow
 * @property {Element} [origin] a person's command: the control it came from (see `held`)
 * @property {TableNow | null} [table] the table it was made at
 * @property {boolean} [stale] made in another game session: sent only if asked again (unsent.js)
 */

/** What the page adds to the server's words on `diverged`: the server's log was put back
 * (a backup restored) and this page holds events it lost. Trying again only gets the same
 * refusal, while a reload joins afresh (the page keeps its events in memory only), so say so:
 * the bare refusal left people looking at "disconnected" with nothing to do. */
export const DIVERGED_ADVICE = "the server's log was put back to an earlier point (a backup "
  + "restored?), so the events after it are no longer on record: reload this page to see the "
  + "table as the server has it now";

export class CommandRefused extends Error {
  /** @param {ErrorReply} reply */
  constructor(reply) {
    super(reply.message);
    this.code = reply.code;
    this.path = reply.path;
  }
}

export class TableConnection extends Reconnecting {
  /** @param {Store} store @param {{campaign: string, token: string, url?: string}} where */
  constructor(store, {campaign, token, url = defaultUrl()}) {
    super(url);
    this.store = store;
    this.campaign = campaign;
    this.token = token;
    /** @type {Map<string, Waiting>} */
    this.pending = new Map(); // id -> {message, resolve, reject, sent ...}
  }

  /** @type {Promise<typeof import("./unsent.js") | undefined> | undefined} see `held` */
  unsent;

  /** @param {WebSocket} socket */
  join(socket) {
    const [since, sinceHash] = this.store.last;
    /** @type {Command} */
    const join = {type: "join", token: this.token, campaign: this.campaign, since, table: true};
    if (since > 0 && sinceHash) join.since_hash = sinceHash;
    socket.send(JSON.stringify(join));
  }

  /** @param {WebSocket} socket @param {string} data */
  receive(socket, data) {
    /** @type {ServerMessage} */
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const store = this.store;
    switch (message.type) {
      case "welcome": {
        const again = this.welcomed();
        store.welcome(message);
        store.set({connection: again ? "back" : "live", problem: null});
        if (again) setTimeout(() => {
          if (store.state.connection === "back") store.set({connection: "live"});
        }, BACK_SHOWN_MS);
        this.resend();
        setTimeout(() => this.held(), IDLE_CHECK_MS); // ./unsent.js at hand: see held
        break;
      }
      case "snapshot":
        if (message.id) this.answer(message.id, message); // a `state_at` answer
        else store.snapshot(message);
        break;
      case "event":
        if (!store.event(message)) socket.close(4000, "gap"); // resume from what we have
        break;
      case "revealed": // private rolls, whole at the session's end, for the sealed lines
        store.revealed(message.events ?? []);
        break;
      case "table":
        store.table(message);
        for (const waiting of this.pending.values()) this.held(waiting); // caught up: see held
        break;
      case "view":
        store.view(message);
        break;
      case "views_at": // the odds of a past table (replay), after its snapshot
        store.dispatchEvent(new CustomEvent("views_at", {detail: message}));
        break;
      case "ack":
      case "history":
      case "report":
        this.answer(message.id, message);
        break;
      case "error":
        if (message.id) this.answer(message.id, null, message);
        else this.refusedJoin(message);
        break;
      default:
        break; // a newer server's message: not for this page
    }
  }

  /** @param {ErrorReply} message */
  refusedJoin(message) {
    if (FOR_GOOD.has(message.code)) {
      this.stopped = true;
      const problem = message.code === "diverged"
        ? `${message.message}; ${DIVERGED_ADVICE}` : message.message;
      this.store.set({connection: "closed", problem, refused: message.code});
      for (const waiting of this.pending.values()) waiting.reject(new CommandRefused(message));
      this.pending.clear();
    } else {
      this.store.set({problem: message.message});
    }
  }

  /** A command's reply, or its refusal (`error`): one refused `shutting_down` stays pending.
   * @param {string} id @param {ServerMessage | null} reply @param {ErrorReply} [error] */
  answer(id, reply, error) {
    const waiting = this.pending.get(id);
    if (!waiting || error?.code === "shutting_down") return; // not done: never shown as refused
    if (error?.code === "rate_limited" && error.retry_after && !waiting.retried) {
      waiting.retried = true; // the server said when: try once more then
      setTimeout(() => this.transmit(waiting), error.retry_after * 1000);
      return;
    }
    this.pending.delete(id);
    if (error) waiting.reject(new CommandRefused(error));
    else waiting.resolve(reply);
  }

  /** Send a command (or a history request); resolves with the answer, rejects with the
   * server's refusal (CommandRefused: code, message in plain words, path of the field).
   * `origin`: a person's command, from this control (see `held`).
   * @param {Command} fields @param {Element} [origin] @returns {Promise<any>} */
  request(fields, origin) {
    const message = {...fields, id: fields.id ?? newId()};
    return new Promise((resolve, reject) => {
      /** @type {Waiting} */
      const waiting = {message, resolve, reject, origin, table: this.store.state.table};
      this.pending.set(message.id, waiting);
      this.transmit(waiting);
    });
  }

  /** Write `waiting`'s command to the socket if joined; else it is held: sent again by resend()
   * once joined again, or, a person's never written, once caught up (`held`).
   * @param {Waiting} waiting */
  transmit(waiting) {
    if (this.joined) {
      /** @type {WebSocket} */ (this.socket).send(JSON.stringify(waiting.message));
      waiting.sent = true;
      this.link.due(() => this.pending.get(waiting.message.id) === waiting);
    } else this.held(waiting);
  }

  /** On a welcome: the commands held, but a person's never written, which waits for the
   * catch-up's `table` (`held`). One written before goes again with its id: the server answers
   * a repeated id with its first answer, so nothing is done twice and nothing lost. */
  resend() {
    for (const waiting of this.pending.values()) {
      if (waiting.sent || !waiting.origin) this.transmit(waiting);
    }
  }

  /** A person's command held unsent: ./unsent.js says so beside its control, and once the
   * page is joined and caught up (a `table` came) sends it, or asks first when the game
   * session changed. Fetched ahead (with no `waiting`: half a minute after a welcome; never in
   * the page's first load), and only while the browser is online: asked for once the page is
   * offline, it could not come (a fetch that failed is asked for again next time).
   * @param {Waiting} [waiting] */
  held(waiting) {
    if (waiting && (waiting.sent || !waiting.origin)) return; // not a person's, or it went
    if (navigator.onLine) this.unsent ??= import("./unsent.js").catch(() => (this.unsent = undefined));
    this.unsent?.then((module) => module?.hold(this, waiting));
  }

  /** Say "reconnecting…" (or "offline" while the browser says it is: nothing is tried then),
   * once: each attempt given up while it is said (a hung one, one refused) changes nothing
   * on the page, so a screen reader is not told it again and again.
   * @param {CloseEvent | null} event */
  dropped(event) {
    const store = this.store;
    const connection = navigator.onLine ? "reconnecting" : "offline";
    if (store.state.connection === connection) return;
    // 1008: removed from the campaign, or no join in time (the close's reason says which)
    store.set(event?.code === 1008 && this.everJoined
      ? {connection, problem: event.reason || null} : {connection});
  }
}
