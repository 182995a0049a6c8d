// What a roll's event says of its own dice, checked against itself: its result against its
// faces (projections/fair_results.py), the number of dice against what it asked for, and SR3's
// Rule-of-Six chains (projections/fair_counts.py), and the order it drew its dice in
// (projections/fair_draws.py). No cryptography here: ./fair-check.js, which imports this once
// a seed is revealed, recomputes the faces themselves from the seed.

/** @import {EventFrame, GameEvent} from "./messages.js" */

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
