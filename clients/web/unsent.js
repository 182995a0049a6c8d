// A person's command the page holds unsent (connection.js `hold`), said beside the form it
// came from. A roll pressed offline used to wait without a word (a greyed Roll button and
// "reconnecting…"), then went with the next join, whatever had happened meanwhile: pressed in
// game session 1, it was recorded minutes later in session 2. Now:
//
// - while the page is offline, or its connection is lost, the notice says the command is not
//   sent yet, why, and that it goes when the connection is back; Cancel drops it (it was
//   never written to a socket, so the server has not seen it);
// - joined again, a command made before the game session started or ended is not sent
//   (connection.js `flush`, `stale`): the notice says so and offers to send it now, or to drop
//   it.
//
// A command that was written to a socket is never here: the server may have done it, so the
// page sends it again with its id, and the server answers with its first answer.
//
// Not part of the page's first load: connection.js (`held`) fetches it half a minute after a
// welcome, or with the first command held, and only while the browser is online (a module
// first asked for once the page is offline could not be fetched).
import {h} from "./dom.js";
/** @import {TableConnection, Waiting} from "./connection.js" */
/** @import {TableNow} from "./messages.js" */

/** The notices of the commands held, each said again on every change of its page's store.
 * @type {Map<Waiting, Notice>} */
const notices = new Map();
/** The connections whose store is listened to (one per page). @type {WeakSet<TableConnection>} */
const heard = new WeakSet();

/** `waiting`, a person's command never written to a socket, is held (connection.js `held`):
 * not joined, say so; joined and caught up (a `table` came since it was made), send it, unless
 * it was made in another game session: then ask.
 * @param {TableConnection} connection @param {Waiting} [waiting] none: fetched ahead */
export function hold(connection, waiting) {
  if (!waiting || waiting.sent) return; // fetched ahead; or sent by an earlier call
  const store = connection.store;
  if (!heard.has(connection)) {
    heard.add(connection);
    store.addEventListener("change", () => {
      for (const notice of notices.values()) if (notice.connection === connection) notice.update();
    });
  }
  const table = store.state.table;
  if (connection.joined && table !== waiting.table && !waiting.stale) {
    waiting.stale = Boolean(waiting.table && table && sessionOf(waiting.table) !== sessionOf(table));
    if (!waiting.stale) connection.transmit(waiting);
  }
  let notice = notices.get(waiting);
  if (!notice && !waiting.sent) notices.set(waiting, notice = new Notice(connection, waiting));
  notice?.update();
}

/** The game session a table is in ("3 true": number, running). @param {TableNow} table */
const sessionOf = (table) => `${table.session} ${table.in_session}`;

/** A command as the notice names it: "your roll" for every kind of roll, else the command's
 * own name ("your action “set difficulty”"). @param {Waiting} waiting */
function named(waiting) {
  const type = waiting.message.type;
  return type.includes("roll") ? "your roll" : `your action “${type.replaceAll("_", " ")}”`;
}

/** @param {string} words */
const capital = (words) => words[0].toUpperCase() + words.slice(1);

class Notice {
  /** @param {TableConnection} connection @param {Waiting} waiting */
  constructor(connection, waiting) {
    this.connection = connection;
    this.waiting = waiting;
    /** @type {string} what the notice offers now: "" (nothing shown), "wait" or "stale" */
    this.kind = "";
    this.words = h("span");
    this.buttons = h("span");
    this.element = h("p", {class: "ph-problem ph-unsent", role: "status"}, this.words, " ",
                     this.buttons);
    this.element.style.flexBasis = "100%"; // a line of its own in a form laid out in a row
    this.element.style.margin = ".3rem 0";
    // answered or refused (cancelled, the join refused for good): the notice goes with it
    const {resolve, reject} = waiting;
    waiting.resolve = (reply) => { this.remove(); resolve(reply); };
    waiting.reject = (error) => { this.remove(); reject(error); };
  }

  /** Say what is true now; gone once the command is written to a socket or settled. */
  update() {
    const {waiting, connection} = this;
    const {connection: state, table} = connection.store.state;
    if (waiting.sent || !connection.pending.has(waiting.message.id)) return this.remove();
    const what = named(waiting);
    if (waiting.stale) {
      const now = table ? `: game session ${table.session} ${table.in_session ? "started" : "ended"}` : "";
      this.say("stale", `${capital(what)} was not sent: the game session changed while it waited${now}.`
        + " Send it now, or drop it?", [["Send it now", () => this.send()],
                                         ["Drop it", () => this.drop("dropped")]]);
    } else if (state === "offline" || state === "reconnecting") {
      const why = state === "offline" ? "You are offline" : "The connection to the server is lost";
      this.say("wait", `${why}: ${what} is not sent yet; it will be sent when the connection is`
        + " back.", [["Cancel", () => this.drop("cancelled")]]);
    } else {
      this.say("", "", []); // joined, catching up: it goes in a moment
    }
  }

  /** Show `words` and, when the offer changed, its buttons (kept otherwise: the focus stays).
   * @param {string} kind @param {string} words @param {[string, () => void][]} offers */
  say(kind, words, offers) {
    if (kind !== this.kind) {
      this.kind = kind;
      this.buttons.replaceChildren(...offers.map(([label, act], i) => h("button", {
        type: "button", class: i ? "ph-quiet ph-small" : "ph-small", onclick: act}, label)));
    }
    if (this.words.textContent !== words) this.words.textContent = words;
    if (!kind) return this.element.remove();
    if (this.element.isConnected) return;
    // beside the control that made it (in its form); else, its form gone meanwhile (a check
    // closed), under the page's header
    const origin = this.waiting.origin;
    const holder = origin?.isConnected
      ? origin.closest("form, [data-ph-errors]") ?? origin.parentElement : null;
    if (holder) holder.append(this.element);
    else document.querySelector(".ph-problem")?.after(this.element);
  }

  /** "Send it now": the command is of this game session from now on. */
  send() {
    const {waiting, connection} = this;
    waiting.stale = false;
    waiting.table = connection.store.state.table;
    connection.transmit(waiting);
    this.update();
  }

  /** Cancel or Drop: never sent, it is forgotten, and its form says so (its refusal's place).
   * @param {string} how */
  drop(how) {
    const {waiting, connection} = this;
    if (waiting.sent) return this.update(); // it went meanwhile: too late to take it back
    connection.pending.delete(waiting.message.id);
    waiting.reject(new Error(`${capital(named(waiting))} was not sent (${how}).`));
  }

  remove() {
    notices.delete(this.waiting);
    this.element.remove();
  }
}
