// The narrative dice notation people type in the roll form: `2g 1p`, `2y1g 2p1r 1b1k`,
// `yyg vs pp`, `2 proficiency, 1 ability + 1 boost`, read as `poolhall roll` reads it: the same
// grammar, limits and words as events/narrative_notation.py `read_pool` and events/narrative.py
// `parse_roll` (tests/narrative/notation_cases.json holds the cases both are tested on). Plain
// dice (`2d6+1`) are not this notation: the roll form sends them as they are, and the server
// reads them. Fetched by the narrative table's roll form with the first roll typed in it
// (./narrative.js `readRoll`): no first load pays for it.
/** @import {Command} from "../messages.js" */

const DIE_KINDS = ["proficiency", "ability", "difficulty", "challenge", "boost", "setback", "force"];
/** @type {Record<string, string>} */
const DIE_LETTERS = {y: "proficiency", g: "ability", p: "difficulty", r: "challenge",
                     b: "boost", k: "setback", w: "force"};
/** @type {Record<string, string>} */
const NAMES = {...Object.fromEntries(DIE_KINDS.map((kind) => [kind, kind])),
  proficiencies: "proficiency", abilities: "ability", difficulties: "difficulty",
  challenges: "challenge", boosts: "boost", setbacks: "setback", forces: "force"};
/** A free roll holds at most 40 dice (MAX_FREE_DICE). */
export const MAX_FREE_DICE = 40;

// Python's ASCII `\s` (the Python patterns are ASCII-only, as the browser's are without the
// `u` flag: no other script's digits or spaces, no Kelvin sign read as a `k`)
const SPACE = "[\\t\\n\\v\\f\\r ]";
const TOKEN = new RegExp(`[\\t\\n\\v\\f\\r ,+]*(?:(vs\\.?)(?![a-z])|([0-9]{1,3})?${SPACE}*(?:(`
  + Object.keys(NAMES).sort((a, b) => b.length - a.length).join("|")
  + ")(?![a-z])|([ygprbkw])))", "iy");
const WORD = new RegExp(`[0-9]*${SPACE}*([a-z]{3,})`, "iy");
/** What Python's str.rstrip() takes off the end (its idea of white space, not JavaScript's). */
const TRAILING = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;

/** A refusal of the roll form's text: its words, and the field it is about.
 * @param {string} message */
function refusal(message) {
  return Object.assign(new Error(message), {path: "$.expression"});
}

/**
 * Read a pool in the notation as dice per kind; null when the text does not start like one.
 * Throws (an Error whose `path` is the expression's) for text that starts like a pool but is
 * not one, or holds more than `limit` dice.
 * @param {string} text @param {number} limit @returns {Record<string, number> | null}
 */
export function readPool(text, limit) {
  /** @type {Record<string, number>} */
  const counts = Object.fromEntries(DIE_KINDS.map((kind) => [kind, 0]));
  let position = 0;
  let read = false;
  const stripped = text.replace(TRAILING, "");
  while (position < stripped.length) {
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(stripped);
    if (match === null || TOKEN.lastIndex === position) {
      if (!read && !suggest(stripped, position)) return null; // not this notation
      const rest = stripped.slice(position);
      const at = position + rest.length - rest.replace(/^[ ,+]+/, "").length;
      const shown = Array.from(stripped.slice(at)).slice(0, 10).join(""); // 10 characters
      throw refusal(`cannot read ${pythonRepr(shown)} as narrative dice `
                    + `(letters y g p r b k w, or names)${suggest(stripped, at)}`);
    }
    position = TOKEN.lastIndex;
    if (match[1]) continue; // "vs": only a separator, for people
    const kind = match[3] ? NAMES[match[3].toLowerCase()] : DIE_LETTERS[match[4].toLowerCase()];
    counts[kind] += Number(match[2] ?? 1);
    read = true;
  }
  if (!read) return null;
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  if (total > limit) throw refusal(`a pool holds at most ${limit} dice, not ${total}`);
  return counts;
}

/**
 * The roll form's text as a free pool's command (`roll_pool`, its dice only), as `poolhall
 * roll` reads it on a narrative table; null when it is not this notation.
 * @param {string} text @returns {Command | null}
 */
export function readRoll(text) {
  const counts = readPool(text, MAX_FREE_DICE);
  if (counts === null) return null;
  const pool = Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
  if (!Object.keys(pool).length) throw refusal("the pool is empty");
  return /** @type {Command} */ (/** @type {unknown} */ ({type: "roll_pool", pool}));
}

/** `; did you mean 'ability'?` when the unreadable word at `at` is a near miss of a die's
 * name, else "" (events/narrative_notation.py `_suggest`).
 * @param {string} text @param {number} at */
function suggest(text, at) {
  WORD.lastIndex = at;
  const found = WORD.exec(text);
  if (found === null) return "";
  const close = closeMatches(found[1].toLowerCase(), DIE_KINDS);
  return close.length ? `; did you mean ${close.map(pythonRepr).join(" or ")}?` : "";
}

/**
 * The two options nearest `word` with a similarity of 0.6 at least, nearest first: Python's
 * difflib.get_close_matches(word, options, n=2, cutoff=0.6), which events/suggest.py uses.
 * @param {string} word @param {string[]} options @returns {string[]}
 */
function closeMatches(word, options) {
  return options.map((option) => /** @type {[number, string]} */ ([similarity(option, word), option]))
    .filter(([score]) => score >= 0.6)
    .sort(([scoreA, a], [scoreB, b]) => scoreB - scoreA || (a < b ? 1 : a > b ? -1 : 0))
    .slice(0, 2).map(([, option]) => option);
}

/**
 * difflib.SequenceMatcher(None, a, b).ratio(): twice the characters of the matching blocks
 * (Ratcliff and Obershelp: the longest common block, then the same on each side of it) over
 * both lengths; with difflib's "autojunk" (in a `b` of 200 characters or more, those found
 * more than 1% of the time start no block).
 * @param {string} a @param {string} b
 */
function similarity(a, b) {
  /** @type {Map<string, number[]>} */
  const where = new Map();
  [...b].forEach((char, j) => where.set(char, [...(where.get(char) ?? []), j]));
  if (b.length >= 200) {
    const most = Math.floor(b.length / 100) + 1;
    for (const [char, places] of where) if (places.length > most) where.delete(char);
  }
  let matched = 0;
  const queue = [[0, a.length, 0, b.length]];
  while (queue.length) {
    const [alo, ahi, blo, bhi] = /** @type {number[]} */ (queue.pop());
    let [besti, bestj, best] = [alo, blo, 0];
    /** @type {Map<number, number>} */
    let lengths = new Map();
    for (let i = alo; i < ahi; i += 1) {
      /** @type {Map<number, number>} */
      const next = new Map();
      for (const j of where.get(a[i]) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (lengths.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > best) [besti, bestj, best] = [i - k + 1, j - k + 1, k];
      }
      lengths = next;
    }
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      [besti, bestj, best] = [besti - 1, bestj - 1, best + 1];
    }
    while (besti + best < ahi && bestj + best < bhi && a[besti + best] === b[bestj + best]) best += 1;
    if (!best) continue;
    matched += best;
    if (alo < besti && blo < bestj) queue.push([alo, besti, blo, bestj]);
    if (besti + best < ahi && bestj + best < bhi) queue.push([besti + best, ahi, bestj + best, bhi]);
  }
  return a.length + b.length ? 2 * matched / (a.length + b.length) : 1;
}

/** A string as Python's repr() writes it (the CLI's and the server's words quote with it).
 * @param {string} text */
function pythonRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const char of text) {
    const code = /** @type {number} */ (char.codePointAt(0));
    if (char === "\\" || char === quote) out += `\\${char}`;
    else if (char === "\t") out += "\\t";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char !== " " && /[\p{C}\p{Z}]/u.test(char)) {
      const [mark, width] = code < 0x100 ? ["x", 2] : code < 0x10000 ? ["u", 4] : ["U", 8];
      out += `\\${mark}${code.toString(16).padStart(width, "0")}`;
    } else out += char;
  }
  return quote + out + quote;
}
