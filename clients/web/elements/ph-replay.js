// <ph-replay>: a campaign (or one game session) replayed: the table as it stood after any
// event, from the server (`state_at`: the nearest stored snapshot plus the events after it,
// folded by the server's own projections), with the log up to there. The page re-decides
// nothing: every table shown is the server's answer for that seq.
//
// The timeline's marks and the events' times are read a history page at a time in the
// background (at the member's request rate); seeking never waits for them.
import {h, replace} from "../dom.js";
import {Store} from "../store.js";
import {TableConnection} from "../connection.js";
import {currentSession} from "../session.js";
import {linkProblem, linkToken} from "../damaged-link.js";
import {namesOf} from "../describe.js";
import {loadSystem} from "../systems/index.js";
import {markOf, sessionsOf} from "../replay-marks.js";
import {OLDER_EVENT} from "./ph-log.js";
import "./ph-timeline.js";
import "./ph-replay-links.js";
import "./ph-report-link.js";
import {COMMAND_EVENT} from "../actions.js";
/** @import {CommandRequest} from "../actions.js" */
/** @import {EventFrame, GameSystem, HistoryPage, Names, Snapshot, ViewsAt, Welcome} from "../messages.js" */
/** @import {SessionSpan} from "../replay-marks.js" */
/** @import {TablePart} from "../table-part.js" */
/** @import {PhLog} from "./ph-log.js" */
/** @import {PhReplayLinks} from "./ph-replay-links.js" */
/** @import {PhReportLink} from "./ph-report-link.js" */
/** @import {PhTimeline} from "./ph-timeline.js" */

const REPLAY_LINES = 12;   // log lines shown with a moment
const PAGE = 500;            // events per history page (the protocol's most)
const LONGEST_PAUSE = 5000;  // real time: a pause longer than this is cut to it

export class PhReplay extends HTMLElement {
  // set by connectedCallback() and layout(), before anything reads them
  /** @type {string} */ campaign;
  /** @type {boolean} */ linked; // opened with a replay link's token (replayToken)
  /** @type {Store} */ store;
  /** @type {TableConnection} */ connection;
  /** @type {Map<number, number>} */ times;
  /** @type {Array<{seq: number, kind: string, label: string}>} */ marks;
  /** @type {SessionSpan[]} */ sessions;
  /** @type {HTMLHeadingElement} */ heading;
  /** @type {HTMLSpanElement} */ status;
  /** @type {HTMLParagraphElement} */ problem;
  /** @type {HTMLParagraphElement} */ notice;
  /** @type {PhTimeline} */ timeline;
  /** @type {HTMLElement} */ panelSlot;
  /** @type {PhLog} */ log;
  /** @type {PhReportLink} */ report;
  // set as the replay goes
  /** @type {string | null} */ wanted; // the address's `seq`, as written there
  /** @type {string | null} */ chosenSession;
  /** @type {number | undefined} */ head;
  /** @type {number} */ first;
  /** @type {GameSystem | null} */ system;
  /** @type {TablePart | undefined} */ panel;
  /** @type {PhReplayLinks | undefined} */ links;
  /** @type {number | undefined} */ target;
  /** @type {number | undefined} */ shown;
  /** @type {boolean | undefined} */ inFlight;
  /** @type {Names} */ names;
  /** @type {EventFrame[]} */ frames;
  /** @type {boolean | undefined} */ sessionApplied;
  /** @type {boolean | undefined} */ playing;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ timer;
  /** @type {string} */ address = "";
  addressing = false;
  viewsShown = 0; // the views of the moment shown

  connectedCallback() {
    const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
    const campaign = fragment.get("campaign");
    const {token, linked, damaged} = campaign ? replayToken(campaign, fragment)
      : {token: null, linked: false, damaged: null};
    this.wanted = fragment.get("seq");
    this.chosenSession = fragment.get("session");
    // a link opened in this tab changes only the fragment: nothing loads, the page would stay
    // on the moment it was (and keep a replay link's token in the address bar)
    addEventListener("hashchange", () => location.reload());
    if (!campaign || !token || damaged) {
      replace(this, h("p", {class: "ph-problem", role: "alert"},
        damaged ? `This replay link is damaged: ${damaged}. Check that it was copied whole.`
        : campaign ? `This browser has no token for “${campaign}”: open your join link first.`
          : "No campaign to replay: open a replay link (…/replay#campaign=…)."));
      return;
    }
    this.campaign = campaign;
    this.linked = linked;
    this.times = new Map();   // seq -> ms since epoch
    this.marks = [];
    this.sessions = [];
    this.layout();
    this.store = new Store();
    this.connection = new TableConnection(this.store, {campaign, token});
    this.addEventListener(COMMAND_EVENT, (event) => {
      const {detail} = /** @type {CustomEvent<CommandRequest>} */ (event);
      detail.taken = true;
      this.connection.request(detail.command).then(detail.resolve, detail.reject);
    });
    this.store.addEventListener("change", (event) => this.changed(
      /** @type {CustomEvent<Set<string>>} */ (event).detail));
    this.store.addEventListener("views_at", (event) => this.viewsAt(
      /** @type {CustomEvent<ViewsAt>} */ (event).detail));
    this.connection.start();
  }

  layout() {
    this.heading = h("h1", {class: "ph-title"}, "Replay");
    this.status = h("span", {class: "ph-connection", role: "status", "data-state": "connecting"},
      "connecting…");
    this.problem = h("p", {class: "ph-problem", role: "alert", hidden: true});
    // what of the address could not be shown ("event 999 is past ..."), and what is instead
    this.notice = h("p", {class: "ph-address-notice", role: "alert", hidden: true});
    this.timeline = /** @type {PhTimeline} */ (h("ph-timeline"));
    this.panelSlot = h("section", {class: "ph-panel", "aria-label": "The table at this moment"});
    this.log = /** @type {PhLog} */ (h("ph-log"));
    this.cast = h("section", {class: "ph-cast", "aria-label": "Members and characters"});
    // a revealed roll's commitment older than the lines held is asked of the server (fairness.js)
    this.log.fair.ask = (command) => this.connection.request(command);
    replace(this,
      h("header", {class: "ph-header"}, this.heading, h("span", {class: "ph-who"}, "replay"),
        this.status, // shown once welcomed as a member: a revoked link's page never shows it
        this.report = /** @type {PhReportLink} */ (h("ph-report-link", {hidden: true})),
        h("a", {href: `/#campaign=${encodeURIComponent(this.campaign)}`},
          "back to the live table")),
      this.problem, this.notice, this.timeline,
      h("main", {class: "ph-main"}, this.panelSlot,
        h("div", {class: "ph-side"}, this.cast, this.log)));
    this.timeline.addEventListener("seek", (event) => this.seek(
      /** @type {CustomEvent<number>} */ (event).detail));
    this.timeline.addEventListener("play", () => this.togglePlay());
    this.timeline.addEventListener("speed", () => this.playing && this.schedule());
    this.timeline.addEventListener("session", () => this.chooseSession(
      this.timeline.session.value || null, true));
    this.timeline.addEventListener("share", () => this.share());
    this.log.addEventListener(OLDER_EVENT, (event) => this.older(
      /** @type {CustomEvent<{before: number}>} */ (event).detail.before));
  }

  /** The replay link's token this tab kept was refused (a bad copy, a revoked link): it is
   * forgotten, or it stuck to the tab, and the GM's own replay there was refused with it.
   * A member of the table is offered their own replay. */
  forgetLink() {
    sessionStorage.removeItem(replayKey(this.campaign));
    this.linked = false;
    const own = currentSession().campaign === this.campaign && currentSession().token;
    if (!own) return;
    const mine = h("button", {type: "button", class: "ph-quiet"}, "Open the replay with your own seat");
    mine.addEventListener("click", () => location.reload());
    this.problem.after(h("p", {class: "ph-address-notice"}, "This tab forgot the replay link. ", mine));
  }

  /** @param {Set<string>} parts */
  changed(parts) {
    const state = this.store.state;
    if (parts.has("connection")) {
      this.status.dataset.state = state.connection;
      this.status.textContent = state.connection === "reconnecting" ? "reconnecting…"
        : state.connection === "offline" ? "you are offline"
        : state.connection === "connecting" ? "connecting…"
          : state.connection === "closed" ? (state.refused ? "refused" : "closed") : "connected";
    }
    if (parts.has("problem")) {
      this.problem.hidden = !state.problem;
      this.problem.textContent = state.problem ?? "";
    }
    if (parts.has("connection") && state.connection === "closed" && this.linked
        && state.refused && state.refused !== "diverged") this.forgetLink();
    if (parts.has("welcome") && state.welcome && !this.head) this.welcomed(state.welcome);
    if (parts.has("table") && this.links && state.table) this.links.sessions(state.table, this.sessions);
  }

  /** @param {Welcome} welcome */
  async welcomed(welcome) {
    const head = welcome.head;
    this.head = head;
    this.first = welcome.role === "replay" ? welcome.replay_from : 1;
    this.heading.textContent = `${welcome.name}: replay`;
    document.title = `${welcome.name} · replay · poolhall`;
    this.system = await loadSystem(welcome.system); // only this campaign's system is fetched
    const panel = /** @type {TablePart} */ (this.system ? h(this.system.panel)
      : h("p", {}, `No page for ${welcome.system}.`));
    this.panel = panel;
    panel.me = {member: welcome.member, role: "spectator"}; // a replay has no controls
    panel.views = new Map();
    replace(this.panelSlot, panel);
    this.timeline.setRange(this.first, head);
    const link = welcome.role === "replay";
    // a link's events: a game session's (and the seed reveal its end wrote), or the campaign's
    // up to when it was shared; not "the whole campaign"
    if (link) this.timeline.whole = this.first > 1 ? "all this link shows" : "the campaign as shared";
    const [start, why] = startOf(this.wanted, this.first, head,
                                 link ? "this replay link" : "the campaign");
    this.say(why);
    this.seek(start);
    if (link) this.report.remove(); // a replay link reads the replay only
    else {
      this.report.session = this.chosenSession;
      this.report.hidden = false;
    }
    if (welcome.role === "gm") {
      this.links = /** @type {PhReplayLinks} */ (h("ph-replay-links"));
      this.links.connection = this.connection;
      /** @type {Element} */ (this.querySelector(".ph-side")).append(this.links);
    }
    this.readTimeline();
  }

  /** What of the address could not be shown, and what is instead (null: all of it was).
   * @param {string | null} words */
  say(words) {
    if (!words) return;
    this.notice.textContent = words;
    this.notice.hidden = false;
  }

  /** Show the table after event `seq`: the newest wish wins while an answer is awaited.
   * @param {number} seq */
  async seek(seq) {
    this.target = seq;
    this.timeline.show(seq, this.atOf(seq));
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      while (this.shown !== this.target) {
        const asked = this.target;
        const snapshot = await this.connection.request({type: "state_at", seq: asked,
                                                         views: true});
        this.render(snapshot);
        this.shown = asked;
      }
    } catch (error) {
      this.problem.hidden = false;
      this.problem.textContent = /** @type {Error} */ (error).message;
    } finally {
      this.inFlight = false;
    }
  }

  /** Who sat at the table at this moment, and the characters they played.
   * @param {Snapshot} table @param {ReturnType<typeof namesOf>} names */
  drawCast(table, names) {
    const members = table.members.filter((member) => member.active !== false);
    const playing = new Set(members.flatMap((member) => member.characters));
    const unplayed = table.characters.filter((c) => !playing.has(c.character));
    replace(this.cast, h("h2", {}, "Members and characters"),
      h("ul", {class: "ph-cast-members"}, members.map((member) => h("li", {},
        `${member.name} (${member.role})`,
        member.characters.length ? ` · ${member.characters.map(names.character).join(", ")}` : ""))),
      unplayed.length ? h("p", {class: "ph-muted"}, "Played by no one: ",
        unplayed.map((c) => c.name).join(", ")) : null);
  }

  /** @param {Snapshot} snapshot */
  render(snapshot) {
    const table = {...snapshot, connected: []};
    const names = namesOf(table);
    const panel = /** @type {TablePart} */ (this.panel); // seeks start once it is there
    // drawn once, with none of the last moment's odds (this moment's follow: views_at); set
    // one after the other, the table and the views drew the panel twice a seek
    if (this.system) panel.moment(table, new Map());
    this.viewsShown = 0;
    this.drawCast(table, names);
    // the last lines up to this moment: enough to read what led to it, few enough that a seek
    // draws at once (50 lines of dice cost a seek some 100 ms on a slow machine)
    this.names = names;
    this.frames = snapshot.recent.slice(-REPLAY_LINES);
    this.log.campaign = table.campaign; // a roll's dice are derived with its campaign's id
    this.log.seedsNow = snapshot.fair?.client_seeds ?? {}; // for a roll's client seeds
    this.log.update(this.frames, names, this.system, (this.frames[0]?.seq ?? 1) <= this.first);
    this.timeline.show(snapshot.seq, this.atOf(snapshot.seq) ?? snapshot.recent.at(-1)?.at);
    this.writeAddress(snapshot.seq);
  }

  /** The address names the moment shown (and the game session chosen): a step the page could
   * not show ("seq=999") is put right there too.
   * @param {number} seq */
  writeAddress(seq) {
    const params = new URLSearchParams({campaign: this.campaign, seq: String(seq)});
    if (this.chosenSession) params.set("session", this.chosenSession);
    this.address = `/replay#${params}`;
    if (this.addressing) return;
    // the address names the moment, written once the moment is painted (replaceState cost a
    // seek some 6 ms before it drew); seeks in a row write the last one once
    this.addressing = true;
    requestAnimationFrame(() => setTimeout(() => {
      this.addressing = false;
      history.replaceState(null, "", this.address);
    }));
  }

  /** The log before the moment's first line, a page at a time ("Load older"): the log up to
   * the moment shown, as far back as one cares to read.
   * @param {number} before */
  async older(before) {
    const moment = this.shown;
    try {
      /** @type {HistoryPage} */
      const page = await this.connection.request({type: "history", before, limit: 100});
      if (this.shown !== moment) return; // the table moved on meanwhile
      this.frames = [...page.events.filter((frame) => frame.seq < before), ...this.frames];
      this.log.update(this.frames, this.names, this.system,
                      (this.frames[0]?.seq ?? 1) <= this.first || page.events.length === 0);
    } catch {
      this.log.olderFailed();
    }
  }

  /** The odds (and other views) of the table shown, once the server computed them.
   * @param {ViewsAt} message */
  viewsAt(message) {
    if (message.seq !== this.shown || !this.panel) return; // a moment already left
    if (message.views.length === 0 && this.viewsShown === 0) return; // none, none shown: as drawn
    this.viewsShown = message.views.length;
    this.panel.views = new Map(message.views.map((view) => [view.about, view.data]));
  }

  /** @param {number} seq */
  atOf(seq) {
    const ms = this.times.get(seq);
    return ms === undefined ? null : new Date(ms).toISOString();
  }

  /** Read every event's time and marks, a history page at a time, oldest first. */
  async readTimeline() {
    const head = /** @type {number} */ (this.head); // read once welcomed
    for (let from = this.first; from <= head; from += PAGE) {
      while (this.inFlight) await new Promise((resolve) => setTimeout(resolve, 20)); // seeks first
      /** @type {HistoryPage} */
      let page;
      try {
        // [from, before): the last page stops at the head; asked past it, the server answers
        // the head's latest PAGE events, and the pages overlapped (sessions listed twice)
        const before = Math.min(from + PAGE, head + 1);
        page = await this.connection.request({type: "history", before, limit: before - from});
      } catch (error) {
        this.timeline.progress.textContent = `timeline incomplete: ${/** @type {Error} */ (error).message}`;
        return;
      }
      /** @type {EventFrame[]} */
      const seeds = [];
      const fresh = page.events.filter((frame) => frame.seq >= from); // each event once
      for (const frame of fresh) {
        this.times.set(frame.seq, Date.parse(frame.at));
        const mark = markOf(frame);
        if (mark) this.marks.push({seq: frame.seq, ...mark});
        if (SEED_EVENTS.has(frame.event.type)) seeds.push(frame);
      }
      // a roll's check needs its epoch's seed, revealed at its session's end: known from
      // here, a roll is checked at any moment, not only once the reveal is among the lines
      if (seeds.length) this.log.learnSeeds(seeds);
      sessionsOf(fresh, this.sessions);
      this.timeline.setMarks(this.marks);
      this.timeline.setSessions(this.sessions, this.chosenSession);
      if (this.links && this.store.state.table) this.links.sessions(this.store.state.table, this.sessions);
      const read = Math.min(head, from + PAGE - 1);
      this.timeline.progress.textContent = read < head
        ? `reading the timeline: ${read.toLocaleString()} of ${head.toLocaleString()} events`
        : "";
      if (this.chosenSession && !this.sessionApplied) this.chooseSession(this.chosenSession, false);
    }
    if (this.chosenSession && !this.sessionApplied) { // every event read: it is not there
      const have = this.sessions.map((one) => one.session).join(", ") || "none";
      this.say(`There is no game session “${this.chosenSession}” ${this.first > 1
        ? "in this replay link" : "in this campaign"} (its sessions: ${have}): showing all of it.`);
      this.chooseSession(null, false);
      if (this.shown !== undefined) this.writeAddress(this.shown); // the address without it
    }
  }

  /** @param {string | null} session @param {boolean} jump */
  chooseSession(session, jump) {
    const found = this.sessions.find((one) => String(one.session) === String(session));
    // not read yet: applied when its start is read (or said to be missing once all is read)
    if (!found && session) return;
    this.chosenSession = found ? String(found.session) : null;
    if (this.report) this.report.session = this.chosenSession;
    this.sessionApplied = true;
    const head = /** @type {number} */ (this.head); // sessions are read once welcomed
    const [from, to] = found ? [found.from, found.to ?? head] : [this.first, head];
    this.timeline.setRange(from, to);
    const target = /** @type {number} */ (this.target); // undefined compares false: as before
    if (!jump && (target < from || target > to) && String(target) === this.wanted) {
      this.say(`Event ${target} is not in game session ${found?.session} (events ${from} to ${to}): showing #${from}.`);
    }
    if (jump || target < from || target > to) this.seek(from);
  }

  togglePlay() {
    this.playing = !this.playing;
    this.timeline.playing(this.playing);
    if (this.playing) this.schedule();
    else clearTimeout(this.timer);
  }

  schedule() {
    clearTimeout(this.timer);
    const here = this.target ?? this.timeline.from;
    if (here >= this.timeline.to) {
      this.togglePlay();
      return;
    }
    const speed = this.timeline.speedValue;
    let wait = 1000 / Number(speed);
    if (speed === "real") {
      const now = this.times.get(here);
      const next = this.times.get(here + 1);
      wait = now === undefined || next === undefined ? 1000
        : Math.min(Math.max(0, next - now), LONGEST_PAUSE);
    }
    this.timer = setTimeout(() => {
      this.seek(here + 1);
      if (this.playing) this.schedule();
    }, wait);
  }

  async share() {
    const params = new URLSearchParams({campaign: this.campaign, seq: String(this.target)});
    if (this.chosenSession) params.set("session", this.chosenSession); // as the address has it
    const link = `${location.origin}/replay#${params}`;
    try {
      await navigator.clipboard.writeText(link);
      this.timeline.shared.textContent = `copied: ${link}`;
    } catch {
      this.timeline.shared.textContent = link; // no clipboard (plain http on a LAN): select it
    }
  }
}

/** The events a roll's check reads beyond the lines shown (its epoch's commitment and seed). */
const SEED_EVENTS = new Set(["seed_committed", "seed_revealed"]);

/** The moment a replay opens at, from its address's `seq` (the last event when it has none),
 * and, when it is not the one asked for, why, in words (a step past the end, or no step at
 * all: "1.5", "abc"): the page said nothing and showed another moment.
 * @param {string | null} text @param {number} first @param {number} last @param {string} what
 * @returns {[number, string | null]} */
export function startOf(text, first, last, what) {
  if (text === null || text === "") return [last, null];
  if (!/^\d+$/.test(text)) {
    return [last, `The address's seq “${text}” is not an event's number (a whole number from ${first} to ${last}): showing the last event, #${last}.`];
  }
  const seq = Number(text);
  if (seq > last) return [last, `Event ${seq} is past ${what}'s last event #${last}: showing #${last}.`];
  if (seq < first) return [first, `Event ${seq} is before ${what}'s first event #${first}: showing #${first}.`];
  return [seq, null];
}

/** Where this tab keeps the replay link's token for `campaign`. @param {string} campaign */
function replayKey(campaign) {
  return `poolhall.replay.${campaign}`;
}

/** The token this replay page opens with: a replay link's (its fragment's `token`, kept for this
 * tab only and cleared from the address bar; `linked`), else the member's own from their join
 * link. A refused replay link's is forgotten (PhReplay.forgetLink), and a damaged one
 * (session.js linkProblem) is not kept: `damaged` says why.
 * @param {string} campaign @param {URLSearchParams} fragment
 * @returns {{token: string | null, linked: boolean, damaged: string | null}} */
function replayToken(campaign, fragment) {
  const key = replayKey(campaign);
  const fromLink = fragment.get("token");
  if (fromLink) {
    const token = linkToken(fromLink);
    const damaged = linkProblem(campaign, token);
    fragment.delete("token");
    history.replaceState(null, "", `/replay#${fragment}`);
    if (damaged) return {token: null, linked: false, damaged};
    sessionStorage.setItem(key, token);
  }
  const kept = sessionStorage.getItem(key);
  if (kept) return {token: kept, linked: true, damaged: null};
  return {token: currentSession().campaign === campaign ? currentSession().token : null,
          linked: false, damaged: null};
}

customElements.define("ph-replay", PhReplay);
