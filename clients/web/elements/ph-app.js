// <ph-app>: the page. It owns the one store and the one connection, lays the table out, hands
// each element its part of the state (as properties), and is the one place commands are sent
// from (elements raise `ph-command`; see actions.js).
//
// What only some tables show is fetched once the welcome says which table this is, all at
// once, before the table is drawn (so nothing on screen waits for its code): the campaign's
// game system (./systems/index.js; <ph-conditions> comes with the systems that have
// conditions), and for the GM the GM's tools and the system's GM-only parts (its character
// form ...). A player's page never fetches them.
import {afterPaint, h, replace} from "../dom.js";
import {COMMAND_EVENT, ROLLED_EVENT, clearWhenChanged} from "../actions.js";
import {catchLostFocus} from "../lost-focus.js";
import {askFirst, escapeCancels} from "../confirm.js";
import {Store} from "../store.js";
import {TableConnection} from "../connection.js";
import {currentSession, followJoinLinks, forget, noteSeat, openedAsReplayLink} from "../session.js";
import {namesOf} from "../describe.js";
import {loadSystem} from "../systems/index.js";
import {OLDER_EVENT} from "./ph-log.js";
import "./ph-members.js";
import "./ph-roll.js";
import "./ph-seed.js";
/** @import {EventFrame, GameSystem, HistoryPage, Me, Names, TableNow, Welcome} from "../messages.js" */
/** @import {CommandRequest} from "../actions.js" */
/** @import {PhCharacters} from "./ph-characters.js" */
/** @import {PhConditions} from "./ph-conditions.js" */
/** @import {PhInvite} from "./ph-invite.js" */
/** @import {PhLog} from "./ph-log.js" */
/** @import {PhMembers} from "./ph-members.js" */
/** @import {PhRoll} from "./ph-roll.js" */
/** @import {PhSeed} from "./ph-seed.js" */
/** @import {TablePart} from "../table-part.js" */

/** @type {Record<string, string>} */
const CONNECTION_WORDS = {
  connecting: "connecting…", live: "connected", reconnecting: "reconnecting…", back: "back",
  closed: "disconnected", offline: "you are offline",
};

/** Join refusals after which this browser's token opens nothing here: the table is replaced
 * (closed-notice.js; a link's token over a seat: seat-question.js, which keeps the seat).
 * ("diverged", also for good, keeps the page: its log is still worth reading.) */
const NO_SEAT = new Set(["unauthorized", "forbidden", "not_found", "invalid"]);

/** The GM's tools (<ph-sessions>, <ph-invite>, <ph-characters>), fetched for the GM only. */
function loadGmTools() {
  return Promise.all([import("./ph-sessions.js"), import("./ph-invite.js"),
                      import("./ph-characters.js")]);
}

/** A phone's width, as table.css has it: its views, one at a time, and their bar. */
const PHONE = matchMedia("(max-width: 700px)");
const LIVE_MARK = "poolhall:live";
const MOTION_KEY = "poolhall.motion";
const HISTORY_PAGE = 500; // events per `history` request (the most the server sends)
const REVEALED_WAIT_MS = 3000; // after a seed is revealed, the server's `revealed` comes first

export class PhApp extends HTMLElement {
  // set by start() and layout(), before anything reads them
  /** @type {Store} */ store;
  /** @type {TableConnection} */ connection;
  /** @type {HTMLElement} */ header;
  /** @type {HTMLElement} */ pageEnd;
  /** @type {HTMLHeadingElement} */ heading;
  /** @type {HTMLSpanElement} */ who;
  /** @type {HTMLSpanElement} */ status;
  /** @type {HTMLParagraphElement} */ problem;
  /** @type {HTMLButtonElement} */ leave;
  /** @type {HTMLElement} */ leaving;
  /** @type {HTMLElement} */ panelSlot;
  /** @type {HTMLButtonElement} */ motion;
  /** @type {PhMembers} */ members;
  /** @type {PhConditions} */ conditions;
  /** @type {PhLog} */ log;
  /** @type {PhRoll} */ roll;
  /** @type {PhSeed} */ seed;
  /** @type {HTMLElement} */ tools;
  /** @type {HTMLElement} */ tabs;
  // set as the table comes
  /** @type {Me | undefined} */ me;
  /** @type {string | undefined} */ systemId;
  /** @type {boolean | undefined} */ systemReady;
  /** @type {GameSystem | null | undefined} */ system;
  /** @type {TablePart | undefined} */ panel;
  /** @type {TablePart | undefined} */ sheet;
  /** @type {Names | undefined} */ names;
  /** @type {boolean | undefined} */ tableChanged;
  /** @type {boolean | undefined} */ viewsChanged;
  /** @type {boolean | undefined} */ shown;
  /** @type {boolean | undefined} */ drawing;
  /** @type {(() => void)[]} */ afterDraw = [];
  /** @type {number[] | undefined} the latest free roll's events, until its line is shown */
  rolledNow = undefined;
  /** @type {number | undefined} */ revealSeen;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ sealedCheck;
  /** @type {boolean | undefined} a link's token, not yet welcomed (session.js): see settleSeat */
  pending;
  /** @type {Promise<typeof import("../seat-question.js")> | undefined} */ seatQuestion;
  /** @type {HTMLElement | undefined} a player's "You play no character yet" */ noCharacter;
  /** @type {PhInvite | undefined} the GM's invite form (and its links) */ invite;

  connectedCallback() {
    const {campaign, token, pending} = currentSession();
    this.pending = pending;
    followJoinLinks(campaign);
    if (!campaign || !token) { // no table to open: the landing page (its own module)
      import("../landing.js").then(({landing}) => landing(this, campaign), () => replace(this,
        h("p", {class: "ph-error"}, "This page could not load; reload.")));
      return;
    }
    this.start(campaign, token);
  }

  /** @param {string} campaign @param {string} token */
  start(campaign, token) {
    this.store = new Store();
    this.connection = new TableConnection(this.store, {campaign, token});
    this.addEventListener(COMMAND_EVENT, (event) => {
      const {detail} = /** @type {CustomEvent<CommandRequest>} */ (event);
      detail.taken = true;
      // held unsent, it is said beside the form it came from (connection.js `held`)
      this.connection.request(detail.command, /** @type {Element} */ (event.target)).then(
        (reply) => this.whenDrawn(() => detail.resolve(reply)),
        (error) => this.whenDrawn(() => detail.reject(error)));
    });
    this.addEventListener(ROLLED_EVENT, (event) => {
      this.rolledNow = /** @type {CustomEvent<number[]>} */ (event).detail;
      this.whenDrawn(() => this.showRolled());
    });
    this.addEventListener(OLDER_EVENT, (event) => this.loadOlder(
      /** @type {CustomEvent<{before: number}>} */ (event).detail.before));
    this.layout();
    catchLostFocus(this); // a control that went away (a check rolled) hands the focus nearby
    escapeCancels(this);  // Escape in a confirm step is its Cancel
    this.store.addEventListener("change", (event) => this.render(
      /** @type {CustomEvent<Set<string>>} */ (event).detail));
    this.connection.start();
  }

  layout() {
    this.heading = h("h1", {class: "ph-title"}, "poolhall");
    this.who = h("span", {class: "ph-who"});
    this.status = h("span", {class: "ph-connection", role: "status", "aria-live": "polite",
                             "data-state": "connecting"}, CONNECTION_WORDS.connecting);
    this.problem = h("p", {class: "ph-problem", role: "alert", hidden: true});
    this.leave = h("button", {type: "button", class: "ph-quiet"}, "Leave this table");
    this.leaving = this.leaveConfirm();
    this.panelSlot = h("section", {class: "ph-panel", "aria-label": "The table"});
    this.motion = h("button", {type: "button", class: "ph-quiet ph-motion", "aria-pressed": "true",
                               onclick: () => this.setMotion(this.dataset.motion === "off")},
      "Dice roll animation");
    this.setMotion(localStorage.getItem(MOTION_KEY) !== "off");
    this.members = /** @type {PhMembers} */ (h("ph-members"));
    this.conditions = /** @type {PhConditions} */ (h("ph-conditions"));
    this.log = /** @type {PhLog} */ (h("ph-log"));
    // a revealed roll's commitment older than the lines held is asked of the server (fairness.js)
    this.log.fair.ask = (command) => this.connection.request(command);
    this.roll = /** @type {PhRoll} */ (h("ph-roll"));
    this.seed = /** @type {PhSeed} */ (h("ph-seed")); // the member's own seed, mixed into every roll (fairness)
    this.tools = h("section", {class: "ph-tools", "aria-label": "Tools"});
    // the replay and each session's report open in a tab of their own, with this browser's token
    this.afterGame = h("a", {href: "/replay", target: "_blank", rel: "noopener"},
      "Replay and post-game reports");
    this.header = h("header", {class: "ph-header"}, this.heading, this.who, this.status);
    this.pageEnd = h("div", {class: "ph-page-end"}); // the Sheet view's end: see showView
    // On a phone (table.css, narrow screens) one of three views shows at a time, one tap apart
    // on a bar at the bottom of the screen, where a thumb reaches; the roll form stays just
    // above it in the table's and the log's views (the log's also has "Your seed", whose
    // rolls the log's marks check). Wider screens show everything and no bar.
    this.tabs = h("nav", {class: "ph-phone-tabs", "aria-label": "Views"},
      [["table", "Table"], ["log", "Log"], ["sheet", "Sheet"]].map(([view, words]) =>
        h("button", {type: "button", class: "ph-quiet", "data-view": view,
                     onclick: () => this.showView(view)}, words)));
    replace(this, this.header, this.problem,
      h("main", {class: "ph-main"}, this.panelSlot,
        h("div", {class: "ph-side"}, this.log, this.roll, this.seed, this.conditions, this.members,
          h("p", {class: "ph-after-game"}, this.afterGame), this.tools, this.pageEnd)),
      this.tabs);
    this.showView("table");
    // a tablet turned to landscape (or a window widened) shows every part and no bar: the
    // page's two buttons go back to the header, and to the Sheet view's end when it narrows
    PHONE.addEventListener("change", () => this.showView(this.dataset.view ?? "table"));
  }

  /** "Leave this table" -> "Leave this table? ..." [Yes, leave] [Stay]: leaving forgets the
   * member's token in this browser, and their join link, shown once, is the only way back.
   * The GM's join links never copied (../invite-links.js) are named in the question itself:
   * the browser's own "Leave site?" about them came only once the seat was forgotten and the
   * connection stopped, and its Cancel kept a dead page that said "connected" (rolls never
   * sent) and no seat on the next reload. Yes, once the question named them, leaves without
   * that second question; a link issued while it was open is named first. */
  leaveConfirm() {
    const yes = h("button", {type: "button", class: "ph-danger ph-small"}, "Yes, leave");
    const lost = h("strong", {role: "status"}); // the links never copied, if any
    // (set before askFirst moves the focus to Yes, which the question describes)
    this.leave.onclick = () => { lost.textContent = this.invite?.links?.uncopied() ?? ""; };
    const [confirm] = askFirst(this.leave, ["Leave this table? This browser forgets your seat: you"
      + " need your join link to come back.", lost], yes, "Stay");
    yes.addEventListener("click", () => {
      if (this.invite?.links?.leaving() === false) return this.leave.click(); // asked again
      forget(this.connection.campaign);
      this.connection.stop();
      location.hash = "";
      location.reload();
    });
    return confirm;
  }

  /** The dice's short roll animation on or off (kept in this browser); the platform's
   * prefers-reduced-motion turns it off whatever this says (table.css). */
  /** @param {boolean} on */
  setMotion(on) {
    this.dataset.motion = on ? "on" : "off";
    this.motion.setAttribute("aria-pressed", String(on));
    try {
      localStorage.setItem(MOTION_KEY, on ? "on" : "off");
    } catch {
      // storage refused (a private window): the choice lasts for this page
    }
  }

  /** The phone's view: "table", "log" or "sheet" (every part shows on a wide screen). */
  /** @param {string} view */
  showView(view) {
    this.dataset.view = view;
    // the page's own buttons (and Leave's question) are the header's, but the Sheet view's are
    // at its end, below its parts: in its header they made it 370 px of an 844 px phone at 200%
    // text (table.css keeps the header to the table's name, the role and the connection there).
    // Only on a phone: a wider screen has no views (see PHONE), and the buttons in the side
    // column's end stayed there when a tablet in the Sheet view was turned to landscape
    (view === "sheet" && PHONE.matches ? this.pageEnd : this.header)
      .append(this.motion, this.leave, this.leaving);
    for (const button of this.tabs.querySelectorAll("button")) {
      button.setAttribute("aria-pressed", String(button.dataset.view === view));
    }
  }

  /** @param {Set<string>} changed */
  render(changed) {
    const state = this.store.state;
    if (changed.has("connection") || changed.has("problem")) {
      this.status.textContent = CONNECTION_WORDS[state.connection] ?? state.connection;
      this.status.dataset.state = state.connection;
      this.problem.hidden = !state.problem;
      this.problem.textContent = state.problem ?? "";
      if (state.connection === "closed" && NO_SEAT.has(state.refused ?? "")) {
        const words = state.problem ?? "this link does not open the table";
        if (this.pending) this.settleSeat(words);
        else this.closedToMe(words);
      }
    }
    if (this.dataset.closed !== undefined) return; // nothing of the table is drawn any more
    if (this.pending) {
      if (state.welcome) this.settleSeat();
      return;
    }
    if (changed.has("welcome") && state.welcome) this.welcomed(state.welcome);
    if (changed.has("revealedNow")) this.log.replaced(state.revealedNow);
    if (!this.systemReady) return; // the table waits for its game system's module
    if (changed.has("table") && state.table) {
      this.names = namesOf(state.table);
      this.tableChanged = true;
    }
    if (changed.has("views")) this.viewsChanged = true;
    if ((changed.has("log") || changed.has("table") || changed.has("revealedNow")) && this.names) {
      this.log.campaign = state.table?.campaign ?? this.log.campaign;
      this.afterGame.href = `/replay#campaign=${encodeURIComponent(this.log.campaign)}`;
      this.log.seedsNow = state.table?.fair?.client_seeds ?? this.log.seedsNow;
      this.log.update(state.log, this.names, this.system, state.olderExhausted);
      this.showRolled();
      if (this.log.fair.lastReveal !== this.revealSeen) { // a seed revealed: see sealedLeft
        this.revealSeen = this.log.fair.lastReveal;
        clearTimeout(this.sealedCheck);
        this.sealedCheck = setTimeout(() => this.sealedLeft(), REVEALED_WAIT_MS);
      }
    }
    if (!this.shown) {
      this.drawTable(); // the first table at once
      if (state.table && state.connection === "live") {
        this.shown = true;
        performance.mark(LIVE_MARK); // the table is on screen and usable (the bench's figure)
      }
    } else if ((this.tableChanged || this.viewsChanged) && !this.drawing) {
      // a `table` message follows every event: the event's log line is painted first, the
      // panels (members, the system's panel, the forms) in the frame after (at most one
      // redraw of them per frame however many messages came)
      this.drawing = true;
      afterPaint(() => {
        this.drawing = false;
        this.drawTable();
        for (const task of this.afterDraw.splice(0)) task();
      });
    }
  }

  /** Run `task` (a command's answer, handed to its form) once the table that came before the
   * answer is drawn: the server sends an event's `table` before answering the next command, so
   * a refusal is shown after the table it is about, and a part clearing the errors of a table
   * that changed (actions.js clearWhenChanged) never clears the refusal of that very change
   * (a lost race: the winner's `table`, then the loser's refusal).
   * @param {() => void} task */
  /** Show the member's latest free roll under the roll form (`rolledNow`: its command's
   * events), once the log holds its line: an ack can come before the log is drawn (the game
   * system's module still loading), and the roll is then shown by the draw that adds it. */
  showRolled() {
    if (!this.rolledNow || !this.roll.isConnected) return;
    const line = this.log.copyOf(this.rolledNow);
    if (!line) return;
    this.rolledNow = undefined;
    this.roll.showRolled(line);
  }

  whenDrawn(task) {
    if (this.drawing) this.afterDraw.push(task);
    else task();
  }

  /** This tab opened a link over another seat of this browser (session.js `pending`): the
   * table waits while seat-question.js, fetched only then, settles it with the server's
   * welcome or refusal (`refused`: its words). */
  /** @param {string} [refused] */
  settleSeat(refused) {
    this.seatQuestion ??= import("../seat-question.js");
    this.seatQuestion.then(({settle}) => settle(this, refused), () => this.closedToMe(
      "this page could not load; reload"));
  }

  /** The table no longer opens to this member (removed by the GM): nothing of it is drawn any
   * more, and ../closed-notice.js, fetched only then, puts a notice in its place.
   * @param {string} words the server's refusal */
  closedToMe(words) {
    this.dataset.closed = "";
    import("../closed-notice.js").then(({closeTable}) => closeTable(this, words));
  }

  /** Hand the latest table and views to every part that shows them. */
  drawTable() {
    const state = this.store.state;
    if (this.tableChanged && state.table) {
      this.tableChanged = false;
      // a game session started or ended: every error shown under a form (its own part's key
      // aside) is about the table before it ("no game session is running", a roll refused
      // while the dice waited for it, a bad expression): it goes, in every part at once
      clearWhenChanged(this, `${state.table.session} ${state.table.in_session}`);
      this.members.update(state.table);
      if (this.conditions.isConnected) this.conditions.update(state.table, this.me, state.views);
      if (this.panel) this.panel.table = state.table;
      if (this.sheet) this.sheet.table = state.table;
      if (this.roll.isConnected) this.roll.update(this.mine(state.table));
      if (this.noCharacter) this.noCharacter.hidden = this.mine(state.table).length > 0;
      if (this.seed.isConnected) this.seed.table = state.table;
      for (const tool of this.tools.children) /** @type {TablePart} */ (tool).table = state.table;
    }
    if (this.viewsChanged && this.panel) {
      this.viewsChanged = false;
      this.panel.views = state.views;
      if (state.table && this.conditions.isConnected) {
        this.conditions.update(state.table, this.me, state.views);
      }
    }
  }

  /** @param {Welcome} welcome */
  welcomed(welcome) {
    if (welcome.role === "replay") { // a replay link opened as a join link: it reads a replay
      this.connection.stop();
      location.replace(openedAsReplayLink(this.connection.campaign, this.connection.token));
      return;
    }
    this.me = {member: welcome.member, role: welcome.role};
    this.dataset.role = welcome.role;
    this.heading.textContent = welcome.name;
    document.title = `${welcome.name} · poolhall`;
    this.who.textContent = `${welcome.system} · you are ${welcome.role}`;
    // the landing page lists the table by its title; a link for another member names this seat
    noteSeat(this.connection.campaign, {title: welcome.name, member: welcome.member, role: welcome.role,
                                        closed: false});
    // the replay's link names the campaign from the welcome on: clicked before the table and
    // its game system's module came, it opened a replay of no campaign
    this.afterGame.href = `/replay#campaign=${encodeURIComponent(welcome.campaign)}`;
    if (this.systemId === welcome.system) return;
    this.systemId = welcome.system;
    this.systemReady = false;
    const gm = welcome.role === "gm";
    Promise.all([loadSystem(welcome.system, {gm}), gm ? loadGmTools() : null]).then(
      ([system]) => this.systemLoaded(welcome, system), () => {
      this.problem.hidden = false;
      this.problem.textContent = `The page for ${welcome.system} tables could not load; reload.`;
    });
  }

  /** The campaign's game system's module is here (only its own is fetched): the table. */
  /** @param {Welcome} welcome @param {GameSystem | null} system */
  systemLoaded(welcome, system) {
    const me = /** @type {Me} */ (this.me); // set by welcomed()
    this.system = system;
    this.panel = /** @type {TablePart} */ (system ? h(system.panel) : h("p", {}, `No page for ${welcome.system}.`));
    this.panel.me = me;
    this.members.me = me;
    this.log.me = me;
    this.seed.me = me;
    this.log.member = me.member;
    // a player who plays no character (none given yet, or retired) saw the system's forms
    // ("Open a check") vanish without a word: a sentence stands where they would be
    if (welcome.role === "player") this.noCharacter = h("p", {class: "ph-no-character", hidden: true},
      "You play no character here yet: the GM gives you one with Characters, beside your name under"
      + " At the table.");
    replace(this.panelSlot, this.noCharacter ?? null, this.panel);
    // defined by the systems whose characters have conditions (none for d12)
    if (!customElements.get("ph-conditions")) this.conditions.remove();
    if (welcome.role === "spectator") { // a spectator rolls nothing: no roll form, no seed
      this.roll.remove();
      this.seed.remove();
    } else this.roll.me = me;
    if (welcome.role === "gm") this.addGmTools();
    this.systemReady = true;
    this.render(new Set(["table", "log", "views"]));
  }

  /** The characters this member acts for (every one for the GM). */
  /** @param {TableNow} table */
  mine(table) {
    if (this.me?.role === "gm") return table.characters;
    const own = new Set(table.members.find((m) => m.member === this.me?.member)?.characters ?? []);
    return table.characters.filter((c) => own.has(c.character));
  }

  /** A page of the events before `before`, put above the log's first line. */
  /** @param {number} before */
  loadOlder(before) {
    this.connection.request({type: "history", before, limit: HISTORY_PAGE})
      .then((/** @type {HistoryPage} */ page) => this.store.older(page.events), () => this.log.olderFailed());
  }

  /** Sealed lines still in the log a while after a seed was revealed after them: the page
   * was away when the server sent them whole (`revealed` goes to the members connected then),
   * so it reads them again from a history page (whole now) and puts them in place. */
  sealedLeft() {
    const reveal = this.log.fair.lastReveal;
    const sealed = this.store.sealed().filter((seq) => seq < reveal);
    if (!sealed.length) return;
    const last = sealed[sealed.length - 1];
    this.connection.request({type: "history", before: last + 1,
                             limit: Math.min(HISTORY_PAGE, last - sealed[0] + 1)})
      .then((/** @type {HistoryPage} */ page) => this.store.revealed(page.events), () => {});
  }

  addGmTools() {
    const invite = this.invite = /** @type {PhInvite} */ (h("ph-invite"));
    invite.campaign = this.connection.campaign;
    this.tools.append(h("ph-sessions"), invite);
    if (this.system?.sheet) {
      this.sheet = /** @type {TablePart} */ (h(this.system.sheet));
      this.tools.append(this.sheet);
    }
    const characters = /** @type {PhCharacters} */ (h("ph-characters"));
    characters.campaign = this.connection.campaign;
    this.tools.append(characters);
  }
}

customElements.define("ph-app", PhApp);
