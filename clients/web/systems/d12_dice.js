// d12 dice drawn as dice, and a roll's result in words. Formatting only: what each die counted
// and the tallies come from the event (or the round the server recorded), never from a rule.
import {plural, s} from "../dom.js";

const COUNTED = {
  2: ["two successes", "ph-d12-crit"],
  1: ["a success", "ph-d12-hit"],
  "-1": ["a failure", "ph-d12-miss"],
  "-2": ["two failures", "ph-d12-fumble"],
};

/** One d12 showing `face` that counted `value` (+2, +1, -1, -2): an SVG with a text
 * alternative; `left` marks a failed die that left an extended test's pool. */
export function d12Die(face, value, {left = false} = {}) {
  const [words, kind] = COUNTED[value] ?? ["", ""];
  const label = `d12 showing ${face}` + (words ? `, ${words}` : "") + (left ? ", left the pool" : "");
  return s("svg", {viewBox: "0 0 32 32", role: "img", "aria-label": label,
                   class: `ph-die ph-d12 ${kind}${left ? " ph-d12-left" : ""}`},
    s("title", {}, label),
    s("polygon", {points: PENTAGON, class: "ph-die-body"}),
    s("polygon", {points: INNER, class: "ph-d12-facet"}),
    s("text", {x: 16, y: 17.5, "text-anchor": "middle", "dominant-baseline": "central",
               class: "ph-die-face"}, String(face)));
}

/** The faces of a roll as dice; in an extended test the failed dice are marked as leaving. */
export function d12Dice(faces, values, {extended = false} = {}) {
  return faces.map((face, i) => d12Die(face, values[i], {left: extended && values[i] < 0}));
}

/** "+2", "0", "-1". */
export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** "3 successes, 1 failure: margin +2, succeeded" from a roll's recorded tallies. */
export function resultWords(roll) {
  return `${plural("success", roll.successes)}, ${plural("failure", roll.failures)}: ` +
    `margin ${signed(roll.margin)}, ${roll.succeeded ? "succeeded" : "failed"}`;
}

/** "DT 7, set by the GM" or "DT 8, from Vader's WIL 8". */
export function thresholdWords(threshold, names) {
  if (threshold.source === "opponent") {
    const who = names ? names.character(threshold.opponent) : threshold.opponent;
    return `DT ${threshold.dt}, from ${who}’s ${threshold.opponent_stat} ${threshold.opponent_rating}`;
  }
  return `DT ${threshold.dt}, set by the GM`;
}

/** "STR 5 + CON 3 = 8 dice" (the ratings and the pool as the event recorded them). */
export function poolWords(stats, pool) {
  const named = stats.map((used) => `${used.stat} ${used.rating}`).join(" + ");
  return (named ? `${named} = ` : "") + plural("die", pool, "dice");
}

function pentagon(radius) {
  const points = [];
  for (let i = 0; i < 5; i += 1) {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / 5;
    points.push(`${(16 + radius * Math.cos(angle)).toFixed(1)},${(17 + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

const PENTAGON = pentagon(15);
const INNER = pentagon(9.5);
