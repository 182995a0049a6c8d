// One WebSocket to the server this page came from: join, resume, commands and their answers.
//
// A resume sends the last event the page has (`since`, `since_hash`): the server sends exactly
// the events missed (or a snapshot if too far behind), so the log shows no gap and no
// duplicate. Commands carry an id; one still unanswered when the connection drops is sent
// again, with the same id, after the resume: the server answers a retry with its first answer,
// so a command is never applied twice.
//
// A browser that says it went offline (a phone leaving Wi-Fi) is believed at once: the socket
// is closed, the page says "you are offline" (not "reconnecting…": nothing is tried), and no
// reconnect is tried until it says it is online again (an open WebSocket would otherwise look
// alive for minutes). Commands made meanwhile wait in `pending`, never written to a socket, and
// a person's says so beside its form, with Cancel (`held`: ./unsent.js). Joined again, such a
// command waits for the catch-up's `table`, and one made before the game session started or
// ended is not sent in a session its maker never saw (a roll pressed offline in session 1 was
// recorded minutes later in session 2): the page asks whether to send it. A command that was
// written to a socket and not answered is another matter: the server may have done it, so it
// is sent again, same id, as soon as the page is welcomed (`resend`).
//
// A connection can also die without a word: a phone that slept and woke on another network, a
// NAT mapping dropped. Its socket then stays "open" in the browser for minutes, and the
// server's pings, which would notice, are not seen by a page, which cannot send its own. So a
// page checks the link itself (`LinkCheck`): when a request goes unanswered, when the page is
// shown again after being hidden, and when a shown page heard nothing for half a minute, it
// asks the server for an empty history page (the cheapest request answered with its id) and,
// if nothing at all comes back in a few seconds, gives the socket up and joins again: on the
// table's page the resume and the resent commands then catch it up with no gap and nothing
// applied twice.
//
// A new connection can hang too (a captive portal that takes the connection and never answers,
// a path that died between the handshake and the welcome): the browser gives its handshake up
// only after minutes, and a welcome that never comes not at all. So an attempt not welcomed
// within JOIN_DUE_MS is given up and the next one tried, after the usual delay.
//
// Opening again (the delays, offline and online) and the link's check are `Reconnecting`'s,
// which the owner's page (owner.js) builds on too.

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

const RETRY_DELAYS = [250, 500, 1000, 2000, 4000, 8000];
/** A command unanswered this long makes the page check the link. The server answers a command
 * in milliseconds and a busy one in well under a second; past 5 s a person has been looking at
 * a disabled Roll button for long enough that the page should find out why. */
export const ANSWER_DUE_MS = 5000;
/** After asking, how long the page waits for any frame at all before it gives the socket up.
 * The answer is an empty page read from nothing (no database, no campaign queue): a live link
 * brings it back in one round trip, which is under a second even on a slow mobile network;
 * 4 s leaves room for a phone's radio waking up, while a dead link is found 9 s after a
 * command at most (ANSWER_DUE_MS + this). */
export const SILENCE_MS = 4000;
/** A page that is shown and heard nothing (no event, no answer) for this long checks the link
 * once; it looks every quarter of it, so a link that died without a word is given up 30 to
 * 41.5 s after the last frame (this, a quarter of it, SILENCE_MS), and a table left open on a
 * screen does not say "connected" for long while it misses the rolls (two minutes did: up to
 * 2.5 min). The browser answers the server's pings (every 20 s) without telling the page, so a
 * quiet table hears nothing else: an idle shown page sends one empty history page, answered
 * without a read, every 30 to 37.5 s (10,000 such pages: about 300 a second, measured in
 * docs/explanation/load-and-limits.md). A hidden page sends none: it checks when shown. */
export const IDLE_CHECK_MS = 30_000;
/** An attempt to connect that has not been welcomed this long after it started is given up
 * and the next one tried: a handshake and a join take a few round trips (well under a second,
 * a few seconds on a poor mobile link), and the server itself gives a new connection 10 s to
 * join (`--join-timeout`). Without it a hung attempt waited for Chromium's 240 s handshake
 * limit, or for ever when the welcome was lost, with a roll queued meanwhile never sent. */
export const JOIN_DUE_MS = 10_000;
/** How long "back" is shown after a join again, before "connected". */
export const BACK_SHOWN_MS = 2500;
/** Join refusals that another try would get again: the page stops trying. (`invalid`: a
 * token or a campaign the join may not carry, from a damaged link; tried again every 10 s,
 * its failed joins got the next member at the same address refused `rate_limited`.) */
export const FOR_GOOD = new Set(["unauthorized", "forbidden", "not_found", "diverged", "invalid"]);
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

/**
 * One WebSocket to the server that opens again by itself: after a close, with a growing,
 * jittered delay (RETRY_DELAYS); at once when the browser says it is online again; never while
 * it says it is offline; when an attempt is not welcomed within JOIN_DUE_MS; and when its
 * `link` check finds it silent (a subclass calls `link.due(waiting)` for each request it
 * sends). What is said on it is the subclass's:
 * `join(socket)` once it opens, `receive(socket, data)` for each frame of the current socket,
 * `dropped(event)` when that socket closed (`null`: the browser went offline), and
 * `welcomed()` on each `welcome`.
 */
export class Reconnecting {
  /** @param {string} url */
  constructor(url) {
    this.url = url;
    this.attempt = 0;
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retry = undefined;
    this.offline = () => this.wentOffline();
    this.online = () => this.cameOnline();
    this.stopped = false;
    this.everJoined = false;
    /** @type {WebSocket | null} the socket the last `welcome` came on */
    this.joinedOn = null;
    this.link = new LinkCheck((shown) => this.probe(shown), () => this.abandon());
  }

  start() {
    this.link.start();
    window.addEventListener("offline", this.offline);
    window.addEventListener("online", this.online);
    this.open();
  }

  stop() {
    this.link.stop();
    this.stopped = true;
    clearTimeout(this.retry);
    window.removeEventListener("offline", this.offline);
    window.removeEventListener("online", this.online);
    this.socket?.close(1000);
  }

  wentOffline() {
    if (this.stopped) return;
    this.link.forget();
    this.dropped(null);
    this.socket?.close(1000, "offline");
  }

  cameOnline() {
    if (this.stopped || this.socket?.readyState === WebSocket.OPEN) return;
    clearTimeout(this.retry);
    this.attempt = 0;
    this.open();
  }

  open() {
    if (this.stopped) return;
    this.socket?.close(1000);
    const socket = new WebSocket(this.url);
    this.socket = socket;
    setTimeout(() => { // not welcomed in time: give it up (JOIN_DUE_MS)
      if (socket === this.socket && this.joinedOn !== socket) this.abandon();
    }, JOIN_DUE_MS);
    socket.addEventListener("open", () => this.join(socket));
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.link.heard();
      this.receive(socket, event.data);
    });
    socket.addEventListener("close", (event) => this.closed(socket, event));
  }

  /** Send the link's check, an empty history page (nothing before event 1), if joined: a
   * campaign's session reads it from nothing, and the owner's (no campaign) refuses it in the
   * dispatch itself, unread (cheaper than its one other read, the list of campaigns); both
   * answer at once with its id, and any frame is proof enough. Not joined, a page just shown
   * again (`shown`) opens at once instead of waiting out its retry delay (someone looks at it
   * now). @param {boolean} shown */
  probe(shown) {
    if (!this.joined) {
      const socket = this.socket;
      if (shown && navigator.onLine && (!socket || socket.readyState >= WebSocket.CLOSING)) {
        this.cameOnline();
      }
      return false;
    }
    /** @type {Command} */
    const check = {type: "history", id: `link-${newId()}`, before: 1, limit: 1};
    /** @type {WebSocket} */ (this.socket).send(JSON.stringify(check));
    return true;
  }

  /** The join to send on a socket just opened. @param {WebSocket} socket */
  join(socket) {}

  /** A frame of the current socket. @param {WebSocket} socket @param {string} data */
  receive(socket, data) {}

  /** The connection is gone (`event`: the socket's close; null: the browser went offline, or
   * the page gave up a socket that no longer answered);
   * a new one is opened by itself after this returns, unless stopped.
   * @param {CloseEvent | null} event */
  dropped(event) {}

  /** Call on each `welcome`: true when it is a join again (after a drop), not the first. */
  welcomed() {
    const again = this.everJoined;
    this.attempt = 0;
    this.everJoined = true;
    this.joinedOn = this.socket;
    return again;
  }

  /** True while joined: the current socket is open and was welcomed. */
  get joined() {
    return this.joinedOn === this.socket && this.socket?.readyState === WebSocket.OPEN;
  }

  /** @param {WebSocket} socket @param {CloseEvent} event */
  closed(socket, event) {
    if (socket !== this.socket || this.stopped) return;
    this.reopen(event);
  }

  /** Give the current socket up as dead without waiting for its close: on a link that went
   * silent the browser's closing handshake waits for an answer that never comes (up to a
   * minute). Its frames and its close, if they ever arrive, are no longer this page's. */
  abandon() {
    const socket = this.socket;
    if (!socket || this.stopped) return;
    this.socket = null;
    socket.close(4001, "no answer");
    this.reopen(null);
  }

  /** The current socket is gone (its close, or null: given up): say so and open again, after
   * a delay, unless the browser is offline. @param {CloseEvent | null} event */
  reopen(event) {
    this.link.forget();
    this.dropped(event);
    if (this.stopped || !navigator.onLine) return; // cameOnline() opens again
    const delay = RETRY_DELAYS[Math.min(this.attempt, RETRY_DELAYS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.open(), delay * (0.75 + Math.random() / 2));
  }
}

/**
 * Whether the joined socket still answers (see the top of this file). `ask()` sends the cheap
 * request on the current socket (false: no socket to ask on); `lost()` gives the socket up.
 * Any frame received (`heard()`) shows the link alive, so a page receiving a long catch-up is
 * never cut off for an answer that waits behind it.
 */
export class LinkCheck {
  /** @param {(shown: boolean) => boolean} ask @param {() => void} lost */
  constructor(ask, lost) {
    this.ask = ask;
    this.lost = lost;
    /** @type {ReturnType<typeof setTimeout> | undefined} the give-up time of the check out */
    this.deadline = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.idle = undefined;
    this.lastHeard = Date.now();
    this.shown = () => { if (document.visibilityState === "visible") this.check(true); };
    // a page put back from the back-forward cache (not its first load, which has just joined)
    this.restored = (/** @type {PageTransitionEvent} */ event) => {
      if (event.persisted) this.check(true);
    };
  }

  /** Watch for the page being shown again and for long silences. */
  start() {
    document.addEventListener("visibilitychange", this.shown);
    window.addEventListener("pageshow", this.restored);
    this.idle = setInterval(() => {
      if (document.visibilityState === "visible" && Date.now() - this.lastHeard >= IDLE_CHECK_MS) {
        this.check();
      }
    }, IDLE_CHECK_MS / 4);
  }

  stop() {
    document.removeEventListener("visibilitychange", this.shown);
    window.removeEventListener("pageshow", this.restored);
    clearInterval(this.idle);
    this.forget();
  }

  /** A frame came: the link is alive. */
  heard() {
    this.lastHeard = Date.now();
    this.forget();
  }

  /** The socket is gone anyway: no check is out any more. */
  forget() {
    clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  /** Ask, unless a check is already out, and give the socket up if nothing comes back.
   * @param {boolean} [shown] the page was just shown again */
  check(shown = false) {
    if (this.deadline !== undefined || !this.ask(shown)) return;
    this.deadline = setTimeout(() => {
      this.deadline = undefined;
      this.lost();
    }, SILENCE_MS);
  }

  /** Check the link if `waiting()` still holds ANSWER_DUE_MS from now (a command unanswered).
   * @param {() => boolean} waiting */
  due(waiting) {
    setTimeout(() => { if (waiting()) this.check(); }, ANSWER_DUE_MS);
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
        if (message.id) this.answer(message.id, message, null); // a `state_at` answer
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
        this.answer(message.id, message, null);
        break;
      case "error":
        if (message.id) {
          this.answer(message.id, null, message);
        } else {
          this.refusedJoin(message);
        }
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

  /** @param {string} id @param {ServerMessage | null} reply @param {ErrorReply | null} error */
  answer(id, reply, error) {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    if (error && error.code === "rate_limited" && error.retry_after && !waiting.retried) {
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
    if (event?.code === 1008 && this.everJoined) {
      // removed from the campaign, or no join in time
      store.set({connection, problem: event.reason || null});
    } else {
      store.set({connection});
    }
  }
}

export function defaultUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
}

export function newId() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`.slice(0, 60);
}
