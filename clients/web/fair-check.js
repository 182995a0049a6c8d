// The page checks the dice for itself: each roll of an epoch whose seed was revealed is
// recomputed here (fetched by ./fairness.js the first time a seed is revealed, and by the
// "how" panel), with the browser's Web Crypto (HMAC-SHA256, SHA-256), from the seed, the
// campaign, the epoch, the client seeds digest and the nonce the log recorded — no library.
// The one thing asked of the server is an epoch's commitment when its `seed_committed` is
// older than the lines the page holds (`commitmentAt`). The algorithm is
// docs/explanation/fairness.md's, the same as events/fair.py and the reference verifier; the
// order of each event's dice is projections/fair_draws.py's.
//
// Web Crypto's `crypto.subtle` exists only in a secure context (https, or http on localhost /
// 127.0.0.1): on a LAN address over plain http every roll says it cannot be checked here.

/** @import {EventFrame, FairStamp, GameEvent} from "./messages.js" */
/** @import {Ask, Check} from "./fairness.js" */

/**
 * The members' seeds in force at a roll (seedsInForce).
 * @typedef {{seeds: Map<string, string>, unknown: string[], digest: string | null, matches: boolean | null}} SeedsAt
 */

const DOMAIN = new TextEncoder().encode("poolhall-roll-v1");
/** @type {Record<string, number>} */
const NARRATIVE_SIDES = {boost: 6, setback: 6, ability: 8, difficulty: 8,
                         proficiency: 12, challenge: 12, force: 12};

/** A die drawn, its faces and sides as the events record them. @typedef {{sides: number, faces: number[]}} Term */

// The narrative dice's faces (projections/narrative_faces.py, from shared/rules/README.md):
// face n (1-based) of a kind is FACES[kind][n - 1], one letter a symbol, SYMBOLS below
/** @type {Record<string, string[]>} */
const FACES = {
  ability: ["", "S", "S", "SS", "A", "A", "SA", "AA"],
  proficiency: ["", "S", "S", "SS", "SS", "A", "SA", "SA", "SA", "AA", "AA", "R"],
  difficulty: ["", "F", "FF", "T", "T", "T", "TT", "FT"],
  challenge: ["", "F", "F", "FF", "FF", "T", "T", "FT", "FT", "TT", "TT", "D"],
  boost: ["", "", "S", "SA", "AA", "A"],
  setback: ["", "", "F", "F", "T", "T"],
  force: ["K", "K", "K", "K", "K", "K", "KK", "L", "L", "LL", "LL", "LL"],
};
/** @type {Record<string, string>} */
const SYMBOLS = {S: "success", A: "advantage", R: "triumph", F: "failure", T: "threat",
                 D: "despair", K: "dark", L: "light"};

/** The symbols on `face` of a narrative die of `kind`, as events record them.
 * @param {string} kind @param {number} face @returns {string[]} */
const faceSymbols = (kind, face) => [...(FACES[kind]?.[face - 1] ?? "?")].map((l) => SYMBOLS[l] ?? l);

/** What is wrong with what `event` says its own dice came to, or null: the number the table
 * acted on (a free roll's total, a narrative roll's symbols and result, Force and destiny
 * pips, an SR3 test's successes, a d12 test's margin) is not a face, and whoever rewrote the
 * log could leave every face right and change it. The same checks as `poolhall verify`
 * (projections/fair_results.py); a Karma reroll's successes and an initiative score count
 * more than their own dice (an earlier event, a sheet), so only their faces are checked.
 * @param {GameEvent} event @returns {string | null} */
export function resultProblem(event) {
  const sum = (/** @type {number[]} */ list) => list.reduce((a, b) => a + b, 0);
  switch (event.type) {
    case "dice_rolled": {
      const total = event.terms.reduce((/** @type {number} */ all, /** @type {Term & {sign?: number}} */ t) =>
        all + (t.sign ?? 1) * sum(t.faces), event.constant ?? 0);
      return total === event.total ? null : `its total is ${event.total}; its faces make ${total}`;
    }
    case "check_rolled": case "pool_rolled": case "force_dice_rolled": case "destiny_pool_rolled": {
      /** @type {Record<string, number>} */
      const counts = {};
      for (const die of /** @type {Array<{kind?: string, face: number, symbols: string[]}>} */ (event.dice)) {
        const kind = event.type === "destiny_pool_rolled" ? "force" : /** @type {string} */ (die.kind);
        const symbols = faceSymbols(kind, die.face);
        if (symbols.join() !== die.symbols.join()) {
          return `a ${kind} die showing face ${die.face} records ${die.symbols.join(", ") || "no symbol"}; `
            + `that face is ${symbols.join(", ") || "blank"}`;
        }
        for (const symbol of symbols) counts[symbol] = (counts[symbol] ?? 0) + 1;
      }
      const n = (/** @type {string} */ name) => counts[name] ?? 0;
      if (!event.result) {
        return event.light === n("light") && event.dark === n("dark") ? null
          : `it records ${event.light} light and ${event.dark} dark; its dice show ${n("light")} and ${n("dark")}`;
      }
      const successes = n("success") + n("triumph") - n("failure") - n("despair");
      const result = {successes, advantages: n("advantage") - n("threat"), triumphs: n("triumph"),
                      despairs: n("despair"), light: n("light"), dark: n("dark"), succeeded: successes > 0};
      return Object.entries(result).every(([name, value]) => event.result[name] === value) ? null
        : "its result is not what its dice come to (successes, advantage, triumphs)";
    }
    case "pool_test_rolled": {
      const totals = event.dice.map((/** @type {{faces: number[]}} */ d) => sum(d.faces));
      const successes = event.tn == null ? null
        : totals.filter((/** @type {number} */ t) => t >= event.tn).length;
      const highest = Math.max(...totals);
      const disastrous = totals.every((/** @type {number} */ t) => t === 1);
      return successes === (event.successes ?? null) && highest === event.highest
        && disastrous === event.disastrous ? null
        : `it records ${event.successes} successes, highest ${event.highest}; its dice make `
          + `${successes} successes, highest ${highest}${disastrous ? ", disastrous" : ""}`;
    }
    case "threshold_dice_rolled": {
      const values = event.faces.map((/** @type {number} */ f) =>
        f === 12 ? 2 : f === 1 ? -2 : f > event.dt ? 1 : -1);
      const successes = sum(values.filter((/** @type {number} */ v) => v > 0));
      const failures = -sum(values.filter((/** @type {number} */ v) => v < 0));
      const margin = successes - failures;
      return values.join() === event.values.join() && successes === event.successes
        && failures === event.failures && margin === event.margin && (margin > 0) === event.succeeded
        ? null : `it records a margin of ${event.margin}; its faces against DT ${event.dt} make `
          + `${successes} successes and ${failures} failures, a margin of ${margin}`;
    }
    default: return null;
  }
}

const SOURCES = ["base", "combat", "control", "hacking", "spell", "astral_combat", "task", "astral", "karma"];

/** What is wrong with the number of dice `event` holds by its own request, or with an SR3
 * chain's shape, or null. Faces are read from the stream die after die: a roll recorded with
 * its last dice left out, or a Rule-of-Six chain cut in two, holds the stream's faces in
 * order and every face checks. The same checks as `poolhall verify` makes from the event
 * alone (projections/fair_counts.py, fair_draws.py `chain_problem`); those that need earlier
 * events (a d12 test's pool, the failed dice a Karma reroll rerolls, initiative dice, the
 * destiny pool's players) are not made here.
 * @param {GameEvent} event @returns {string | null} */
export function countProblem(event) {
  /** @type {number[][]} */
  let chains = [];
  switch (event.type) {
    case "dice_rolled": {
      const asked = [];
      let constant = 0;
      let sign = 1;
      for (const token of event.expression.replace(/\s/g, "").match(/[+-]|[^+-]+/g) ?? []) {
        const dice = /^([0-9]*)[dD]([0-9]+)$/.exec(token);
        if (token === "+" || token === "-") sign = token === "+" ? 1 : -1;
        else if (dice) asked.push(`${dice[2]}/${sign}/${dice[1] || 1}`);
        else constant += sign * Number(token);
      }
      const drawn = event.terms.map((/** @type {Term & {sign?: number}} */ t) =>
        `${t.sides}/${t.sign ?? 1}/${t.faces.length}`);
      return asked.join() === drawn.join() && constant === (event.constant ?? 0) ? null
        : `its dice are not those its expression ${event.expression} asks for: dice left out`;
    }
    case "check_rolled": case "pool_rolled":
      for (const kind of Object.keys(NARRATIVE_SIDES)) {
        const held = event.dice.filter((/** @type {{kind: string}} */ d) => d.kind === kind).length;
        if (held !== (event.pool[kind] ?? 0)) {
          return `it holds ${held} ${kind} dice; its pool has ${event.pool[kind] ?? 0}: dice left out`;
        }
      }
      return null;
    case "pool_test_rolled": {
      const sources = event.dice.map((/** @type {{source: string}} */ d) => SOURCES.indexOf(d.source));
      const karma = sources.filter((/** @type {number} */ s) => s === 8).length;
      const cost = /^(damage|spell)_resistance$/.test(event.kind) ? karma : karma * (karma + 1) / 2;
      if (sources.some((/** @type {number} */ s, /** @type {number} */ i) => i && s < sources[i - 1])
          || sources.filter((/** @type {number} */ s) => s === 0).length !== event.base_dice
          || cost !== (event.karma_spent ?? 0)) {
        return "its dice are not its base dice, then its pools', then the Karma dice it paid: dice left out";
      }
      chains = event.dice.map((/** @type {{faces: number[]}} */ d) => d.faces);
      break;
    }
    case "pool_test_rerolled":
      if (event.faces.length !== event.indices.length) return "it holds another number of dice than it rerolls";
      chains = event.faces;
      break;
    default: return null;
  }
  for (const chain of chains) {
    if (chain.slice(0, -1).some((f) => f !== 6)) return "a die rerolled after a face that was not a 6";
    if (chain.at(-1) === 6 && chain.length < 30) return "a 6 was not rerolled: the Rule of Six rerolls every 6";
  }
  return null;
}

/** What is wrong with the number of dice the roll `frame` holds by what earlier lines the
 * page holds asked for (`frames`, in a row), or null: a d12 test's pool as its last line
 * before the roll set it (started, failures removed, refresh dice added), the failed dice a
 * Karma reroll rerolls (its test's roll among the lines), a character's initiative dice (their
 * sheet's line among them), one destiny die per player (when the lines begin at the log's
 * first). What the lines do not hold is not checked here: `poolhall verify` checks it all.
 * @param {EventFrame} frame @param {EventFrame[]} frames @returns {string | null} */
export function drawnProblem({seq, event}, frames) {
  const before = frames.filter((f) => f.seq < seq);
  const last = (/** @type {(e: GameEvent) => boolean} */ test) =>
    before.findLast((f) => test(f.event))?.event;
  if (event.type === "threshold_dice_rolled") {
    const set = last((e) => e.test === event.test
      && /^(threshold_test_started|failed_dice_removed|refresh_dice_added)$/.test(e.type));
    return !set || set.pool === event.faces.length ? null
      : `it holds ${event.faces.length} dice; the test's pool is ${set.pool}: dice left out`;
  }
  if (event.type === "initiative_scores_rolled") {
    for (const roll of event.rolls) {
      const sheet = last((e) => e.character === roll.character && e.stats
        && /^character_(created|updated)$/.test(e.type));
      const dice = sheet?.stats.initiative_dice ?? 1; // a default the payload may leave out
      if (sheet && dice !== roll.faces.length) {
        return `${roll.character}'s initiative holds ${roll.faces.length} dice; their sheet gives `
          + `${dice}: dice left out`;
      }
    }
  }
  if (event.type === "pool_test_rerolled") {
    const rolled = before.findIndex((f) => f.event.type === "pool_test_rolled" && f.event.test === event.test);
    if (rolled < 0) return null;
    const {tn, dice} = before[rolled].event;
    const totals = dice.map((/** @type {{faces: number[]}} */ d) => d.faces.reduce((a, b) => a + b, 0));
    for (const {event: e} of before.slice(rolled)) {
      if (e.type !== "pool_test_rerolled" || e.test !== event.test) continue;
      e.indices.forEach((/** @type {number} */ i, /** @type {number} */ n) => {
        totals[i] = e.faces[n].reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0);
      });
    }
    const failed = totals.flatMap((/** @type {number} */ t, /** @type {number} */ i) => tn == null || t < tn ? [i] : []);
    return failed.join() === event.indices.join() ? null
      : `it rerolls dice ${event.indices.join(", ")}; the test's failed dice are ${failed.join(", ")}`;
  }
  if (event.type === "destiny_pool_rolled" && (frames[0]?.seq ?? 2) <= 1) {
    /** @type {Set<string>} */
    const players = new Set();
    for (const {event: e} of before) {
      if (e.type === "member_invited" && e.role === "player") players.add(e.member);
      if (e.type === "member_removed") players.delete(e.member);
    }
    const rolled = event.dice.map((/** @type {{member: string}} */ d) => d.member).sort();
    return rolled.join() === [...players].sort().join() ? null
      : `${rolled.length} players rolled the destiny pool; ${players.size} are at the table: dice left out`;
  }
  return null;
}

/** `[sides, face]` of each die an event drew, in the order drawn; null: it drew none.
 * @param {GameEvent} event @returns {Array<[number, number]> | null} */
export function drawsOf(event) {
  switch (event.type) {
    case "dice_rolled":
      return event.terms.flatMap((/** @type {Term} */ t) => t.faces.map((f) => [t.sides, f]));
    case "check_rolled": case "pool_rolled": case "force_dice_rolled":
      return event.dice.map((/** @type {{kind: string, face: number}} */ d) => [NARRATIVE_SIDES[d.kind], d.face]);
    case "destiny_pool_rolled": return event.dice.map((/** @type {{face: number}} */ d) => [12, d.face]);
    case "pool_test_rolled":
      return event.dice.flatMap((/** @type {{faces: number[]}} */ d) => d.faces.map((f) => [6, f]));
    case "pool_test_rerolled":
      return event.faces.flatMap((/** @type {number[]} */ chain) => chain.map((f) => [6, f]));
    case "initiative_scores_rolled":
      return event.rolls.flatMap((/** @type {{faces: number[]}} */ r) => r.faces.map((f) => [6, f]));
    case "threshold_dice_rolled": return event.faces.map((/** @type {number} */ f) => [12, f]);
    default: return null;
  }
}

const hex = (/** @type {ArrayBuffer | number[]} */ bytes) => [...new Uint8Array(bytes)]
  .map((b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (/** @type {string} */ text) => new Uint8Array(
  /** @type {RegExpMatchArray} */ (text.match(/../g)).map((pair) => parseInt(pair, 16)));

/** Whether this page can check (Web Crypto is there only in a secure context). */
export function canCheck() {
  return Boolean(globalThis.isSecureContext && globalThis.crypto?.subtle);
}

/**
 * The client seeds digest (events/fair.py `client_seeds_digest`): SHA-256 over the seeds in
 * force (`Map` member -> seed), sorted by member id, each pair written `u16 len(member) |
 * member | u16 len(seed) | seed` (UTF-8, big-endian byte counts); hex. Needs Web Crypto.
 * @param {Map<string, string>} seeds
 */
export async function clientSeedsDigest(seeds) {
  const encoder = new TextEncoder();
  const parts = [];
  // member ids are slugs (ASCII): sorting by UTF-16 units is Python's sort by code points
  for (const member of [...seeds.keys()].sort()) {
    for (const text of [member, /** @type {string} */ (seeds.get(member))]) {
      const data = encoder.encode(text);
      parts.push(new Uint8Array([data.length >> 8, data.length & 0xff]), data);
    }
  }
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

/** The HMAC message of a roll without its block counter.
 * @param {string} campaign @param {number} epoch @param {Uint8Array} digest @param {number} nonce */
function rollMessage(campaign, epoch, digest, nonce) {
  const name = new TextEncoder().encode(campaign);
  const out = new Uint8Array(16 + 2 + name.length + 4 + 32 + 8 + 4);
  const view = new DataView(out.buffer);
  out.set(DOMAIN, 0);
  view.setUint16(16, name.length);
  out.set(name, 18);
  let at = 18 + name.length;
  view.setUint32(at, epoch);
  out.set(digest, at + 4);
  view.setBigUint64(at + 36, BigInt(nonce));
  return out; // the last 4 bytes: the counter, set per block
}

/** The faces of dice of `sides` for one roll, and the stream's bytes read (for "how").
 * @param {string} seedHex @param {string} campaign @param {number} epoch @param {string} digestHex
 * @param {number} nonce @param {number[]} sides */
export async function deriveFaces(seedHex, campaign, epoch, digestHex, nonce, sides) {
  const key = await crypto.subtle.importKey("raw", fromHex(seedHex),
                                            {name: "HMAC", hash: "SHA-256"}, false, ["sign"]);
  const message = rollMessage(campaign, epoch, fromHex(digestHex), nonce);
  const counterAt = message.length - 4;
  let block = new Uint8Array(0);
  let at = 0;
  let counter = 0;
  /** @type {number[]} */
  const used = [];
  /** @type {number[]} */
  const faces = [];
  for (const n of sides) {
    const limit = 256 - (256 % n);
    for (;;) {
      if (at >= block.length) {
        new DataView(message.buffer).setUint32(counterAt, counter);
        block = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
        at = 0;
        counter += 1;
      }
      const byte = block[at];
      at += 1;
      used.push(byte);
      if (byte < limit) {
        faces.push((byte % n) + 1);
        break;
      }
    }
  }
  return {faces, bytes: hex(used)};
}

/**
 * The members' seeds in force when the roll `frame` was made, and whether they give the
 * digest its stamp names: `{seeds: Map member -> seed, unknown: [member], digest, matches}`.
 *
 * `frames`: the log's lines the page holds, in a row (no gap) and holding `frame`; `now`: the
 * seeds in force after the last of them (the `table` message's `fair.client_seeds`), for
 * seeds set before the first. A member's seed at the roll is the last one they set before it
 * among those lines; if they set none there: none at all when the lines begin at the log's
 * first event, else the one in force now if they set none since either, else unknown (set
 * before the lines held, changed after the roll). `digest` (hex) and `matches` are null when
 * a seed is unknown or Web Crypto is missing.
 * @param {EventFrame} frame @param {EventFrame[]} frames @param {Record<string, string>} [now]
 * @returns {Promise<SeedsAt>}
 */
export async function seedsInForce(frame, frames, now = {}) {
  const whole = (frames[0]?.seq ?? 1) <= 1;
  /** @type {Map<string, Array<[number, string]>>} */
  const sets = new Map(); // member -> [[seq, seed], ...] in log order
  for (const {seq, event} of frames) {
    if (event.type !== "client_seed_set") continue;
    if (!sets.has(event.member)) sets.set(event.member, []);
    /** @type {Array<[number, string]>} */ (sets.get(event.member)).push([seq, event.seed]);
  }
  /** @type {Map<string, string>} */
  const seeds = new Map();
  /** @type {string[]} */
  const unknown = [];
  for (const member of new Set([...Object.keys(now ?? {}), ...sets.keys()])) {
    const own = sets.get(member) ?? [];
    const before = own.filter(([seq]) => seq < frame.seq).at(-1);
    if (before) seeds.set(member, before[1]);
    else if (whole) continue;
    else if (own.length === 0) seeds.set(member, now[member]);
    else unknown.push(member);
  }
  const digest = unknown.length === 0 && canCheck() ? await clientSeedsDigest(seeds) : null;
  const matches = digest === null ? null
    : digest === /** @type {FairStamp} */ (frame.event.fair).seeds; // a roll's frame
  return {seeds, unknown, digest, matches};
}

/** The commitment of `epoch` as the server's log has it: the `fair` of the table as it stood
 * after event `seq`, a roll of that epoch (`state_at`: one request, however far back its
 * `seed_committed` is); null if that table is of another epoch or names no commitment.
 * @param {Ask} ask @param {number} seq @param {number} epoch @returns {Promise<string | null>} */
export async function commitmentAt(ask, seq, epoch) {
  const snapshot = await ask({type: "state_at", seq});
  const fair = snapshot?.fair;
  const commitment = fair?.epoch === epoch ? fair.commitment : null;
  return typeof commitment === "string" && /^[0-9a-f]{64}$/.test(commitment) ? commitment : null;
}

/** Why the roll at `seq` was not made while its `epoch` was open, by the log's lines the page
 * holds (`frames`: their seed_committed, seed_revealed and seed_lost), or null. A roll proves
 * something only between its epoch's commitment (before it, the seed could be chosen to give
 * the faces wanted) and its reveal (after it, anyone knows the seed): `poolhall verify` says
 * the same. An epoch's lines older than those held are the server's word (commitmentAt).
 * @param {number} seq @param {number} epoch @param {EventFrame[]} frames
 * @returns {string | null} */
export function outsideItsEpoch(seq, epoch, frames) {
  const why = (/** @type {string} */ words) => `not made while its epoch was open: ${words}`;
  /** @type {[number, string, number] | undefined} */
  let last; // the last seed_* line before the roll
  for (const {seq: at, event} of frames) {
    if (!event.type.startsWith("seed_")) continue;
    const [type, of] = [event.type, event.epoch];
    const mark = /** @type {[number, string, number]} */ ([at, type, of]);
    if (of === epoch && type === "seed_committed" && at > seq) {
      return why(`a roll of epoch ${epoch} made before its commitment`);
    }
    if (of === epoch && type !== "seed_committed" && at < seq) {
      return why(`a roll of epoch ${epoch} made after its seed was ${
        type === "seed_lost" ? "lost" : "revealed"}`);
    }
    if (at < seq && (!last || at > last[0])) last = mark;
  }
  if (last && last[1] === "seed_committed" && last[2] !== epoch) {
    return why(`a roll of epoch ${epoch} made while epoch ${last[2]} was open`);
  }
  if (last && last[1] !== "seed_committed") {
    return why(`a roll of epoch ${epoch} made after epoch ${last[2]} ended, before another began`);
  }
  return null;
}

/** The rolls of `epoch` among the log's lines the page holds (`frames`, in a row), in log
 * order, up to its end: each one's nonce and seqs (the events of one command sharing a nonce
 * are one roll), whether the epoch's `seed_committed` is among them (then every roll of the epoch is), and
 * its `seed_revealed` or `seed_lost` lines.
 * @param {number} epoch @param {EventFrame[]} frames */
export function epochRolls(epoch, frames) {
  /** @type {Array<{nonce: number, command: string, seqs: number[]}>} */
  const rolls = [];
  let committed = false;
  /** @type {GameEvent[]} */
  const ends = [];
  for (const {seq, command, event} of frames) {
    if (event.epoch === epoch && event.type === "seed_committed") committed = true;
    else if (event.epoch === epoch && /^seed_[rl]/.test(event.type)) ends.push(event);
    // a roll after its epoch ended is not one of its rolls (outsideItsEpoch says so)
    if (event.fair?.epoch !== epoch || event.type.startsWith("seed_") || ends.length) continue;
    const last = rolls.at(-1);
    if (last && last.nonce === event.fair.nonce && last.command === command) last.seqs.push(seq);
    else rolls.push({nonce: event.fair.nonce, command, seqs: [seq]});
  }
  return {rolls, committed, ends};
}

/** Why the roll at `seq` is not in its place among its epoch's rolls, by the lines the page
 * holds, or null. Nonces run 0, 1, 2 ... with no gap: a nonce skipped is a roll dealt and
 * hidden (a server rerolling until it likes the dice), a nonce used twice a roll dealt again.
 * The nonce before the first roll the page holds is known only when the epoch's commitment
 * is among the lines (0 comes first); else that roll is taken as it is, never a false ✗.
 * @param {number} seq @param {number} epoch @param {EventFrame[]} frames
 * @returns {string | null} */
export function nonceProblem(seq, epoch, frames) {
  const {rolls, committed} = epochRolls(epoch, frames);
  const at = rolls.findIndex((roll) => roll.seqs.includes(seq));
  if (at < 0) return null;
  const {nonce} = rolls[at];
  if (rolls.some((roll, i) => i !== at && roll.nonce === nonce)) {
    return `nonce ${nonce} used twice in epoch ${epoch}: a roll was dealt again`;
  }
  const next = at > 0 ? rolls[at - 1].nonce + 1 : committed ? 0 : nonce;
  return nonce === next ? null
    : `nonce ${nonce} where ${next} comes next in epoch ${epoch}: a roll is missing`;
}

/** What the epoch's end says against its rolls, by the lines held, or null: a seed said lost
 * and revealed later (after its epoch ended: verify reports it too), or a reveal counting
 * another number of rolls than the epoch holds (known only when its commitment is among the
 * lines: then every roll of the epoch is). `unchecked` says what the page could not check.
 * @param {number} epoch @param {EventFrame[]} frames
 * @returns {{why: string | null, unchecked?: string}} */
export function endProblem(epoch, frames) {
  const {rolls, committed, ends} = epochRolls(epoch, frames);
  if (ends.some((end) => end.type === "seed_lost") && ends.some((end) => end.seed)) {
    return {why: `epoch ${epoch}'s seed was said lost, then revealed after its epoch ended`};
  }
  const reveal = ends.find((end) => end.seed);
  if (!reveal || typeof reveal.rolls !== "number") return {why: null};
  if (!committed) {
    return {why: null, unchecked: `that epoch ${epoch} held the ${reveal.rolls} rolls its reveal `
      + "says: its commitment is older than the lines loaded here (Load older)"};
  }
  return {why: reveal.rolls === rolls.length ? null
    : `epoch ${epoch}'s reveal says it held ${reveal.rolls} rolls; the log holds ${rolls.length}: `
      + "a roll is missing"};
}

/** A roll of a revealed epoch checked: the seed against its commitment, that the roll was made
 * while its epoch was open (outsideItsEpoch), that it names the client seeds in force (a
 * server that ignored the members' seeds could choose the dice), then every die drawn
 * with the roll's stamp (`frames`: the frames of that epoch and nonce, in seq order; a roll
 * and the dice joining it later share one) against the faces the seed gives. "verified" needs
 * all of it (docs/explanation/fairness.md): with no commitment to check the seed against, faces
 * that match are "unconfirmed", since a seed chosen after the roll's client seeds were known
 * would match them too. An epoch whose seed the server lost ("": `seed_lost`) is "lost".
 * @param {EventFrame} frame @param {string} seed the epoch's revealed seed (hex; "": lost)
 * @param {{epoch: number, nonce: number, seeds: string, commitment: string | null, asked?: boolean}} how
 * @param {EventFrame[]} frames
 * @param {{campaign: string, log: {frames: EventFrame[], seedsNow: Record<string, string>}}} fair
 *   the page's FairChecks
 * @returns {Promise<Check>} */
export async function recompute(frame, seed, how, frames, fair) {
  if (!seed) {
    return {state: "lost", why: `the server lost epoch ${how.epoch}'s seed: these dice can never `
      + "be checked", ...how};
  }
  if (!canCheck()) return {state: "unavailable", seed, ...how};
  const commitment = hex(await crypto.subtle.digest("SHA-256", fromHex(seed)));
  if (how.commitment !== null && commitment !== how.commitment) {
    return {state: "mismatch", seed, why: "the seed does not hash to its commitment", ...how};
  }
  const lines = fair.log.frames;
  const outside = outsideItsEpoch(frames[0]?.seq ?? frame.seq, how.epoch, lines);
  if (outside) return {state: "mismatch", seed, why: outside, ...how};
  // a nonce skipped or used twice, a seed said lost then revealed, a reveal's count of rolls
  const {why, unchecked} = endProblem(how.epoch, lines);
  const place = nonceProblem(frame.seq, how.epoch, lines) ?? why;
  if (place) return {state: "mismatch", seed, why: place, ...how};
  // the seeds the stamp names must be those in force (null: the page cannot tell, said in the
  // mark's detail): a server that ignored them knew the dice when it committed
  const {matches} = await seedsInForce(frames[0] ?? frame, fair.log.frames, fair.log.seedsNow);
  if (matches === false) {
    return {state: "mismatch", seed, why: "the roll's client seeds digest is not of the seeds in "
      + "force: the server did not mix in the members' seeds", ...how};
  }
  // what the table acted on (a total, a result) is not a face: faces that match beside a
  // forged result are no proof (resultProblem, as projections/fair_results.py)
  for (const one of frames) {
    const event = one.event; // dice left out (by the roll, or by earlier lines), a result forged
    const problem = countProblem(event) ?? drawnProblem(one, lines) ?? resultProblem(event);
    if (problem) return {state: "mismatch", seed, why: problem, ...how};
  }
  const draws = frames.flatMap((f) => /** @type {Array<[number, number]>} */ (drawsOf(f.event))
    .map(([sides, face]) => [f.seq, sides, face]));
  const {faces, bytes} = await deriveFaces(seed, fair.campaign, how.epoch, how.seeds,
                                           how.nonce, draws.map(([, sides]) => sides));
  const wrong = draws.findIndex(([, , face], i) => faces[i] !== face);
  const mine = draws.filter(([seq]) => seq === frame.seq).length;
  if (wrong >= 0) {
    const [, sides, face] = draws[wrong];
    return {state: "mismatch", seed, bytes, why: `a d${sides} shows ${face}; the seed gives ${faces[wrong]}`,
            ...how};
  }
  return {state: how.commitment === null ? "unconfirmed" : "verified", seed, bytes, dice: mine,
          unchecked, ...how};
}
