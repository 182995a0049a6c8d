// The narrative dice drawn as dice: the project's own SVG shapes (Boost/Setback d6 squares,
// Ability/Difficulty d8 diamonds, Proficiency/Challenge d12 hexagons, the Force d12 a
// pentagon) in the palette of table.css (--ph-boost ...), carrying their symbols as simple
// glyphs of our own. Every die and every standalone symbol is role="img" with a label a
// screen reader reads. Results in words come from the event's recorded result: formatting,
// never a rule.
import {h, plural, s} from "../dom.js";

/** Die kinds in the order the table lists them (the player's side first). */
export const KINDS = ["proficiency", "ability", "boost", "challenge", "difficulty", "setback", "force"];

const SHAPES = {
  boost: () => s("rect", {x: 3, y: 3, width: 26, height: 26, rx: 4, class: "ph-nd-body"}),
  setback: () => s("rect", {x: 3, y: 3, width: 26, height: 26, rx: 4, class: "ph-nd-body"}),
  ability: () => s("polygon", {points: "16,1 31,16 16,31 1,16", class: "ph-nd-body"}),
  difficulty: () => s("polygon", {points: "16,1 31,16 16,31 1,16", class: "ph-nd-body"}),
  proficiency: () => s("polygon", {points: hexagon, class: "ph-nd-body"}),
  challenge: () => s("polygon", {points: hexagon, class: "ph-nd-body"}),
  force: () => s("polygon", {points: pentagon, class: "ph-nd-body"}),
};

function corners(count, radius, turn) {
  const points = [];
  for (let i = 0; i < count; i += 1) {
    const angle = turn + (2 * Math.PI * i) / count;
    points.push(`${(16 + radius * Math.cos(angle)).toFixed(2)},${(16 + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return points.join(" ");
}

const hexagon = corners(6, 15, -Math.PI / 2);
const pentagon = corners(5, 15.5, -Math.PI / 2);

// Each glyph drawn in a 10 x 10 box centred on 0,0, in the die's ink (currentColor).
const GLYPHS = {
  success: () => [s("path", {d: "M0,-5 L1.5,-1.5 L5,0 L1.5,1.5 L0,5 L-1.5,1.5 L-5,0 L-1.5,-1.5Z",
                             class: "ph-nd-fill"})],
  failure: () => [s("path", {d: "M-3.8,-3.8 L3.8,3.8 M3.8,-3.8 L-3.8,3.8", class: "ph-nd-line"})],
  advantage: () => [s("path", {d: "M-5,3.5 L0,-4.5 L5,3.5 L2.4,3.5 L0,-0.4 L-2.4,3.5Z",
                               class: "ph-nd-fill"})],
  threat: () => [s("path", {d: "M-5,-3.5 L0,4.5 L5,-3.5 L2.4,-3.5 L0,0.4 L-2.4,-3.5Z",
                            class: "ph-nd-fill"})],
  triumph: () => [s("circle", {r: 4.6, class: "ph-nd-ring"}),
                  s("path", {d: "M0,-3 L.9,-.9 L3,0 L.9,.9 L0,3 L-.9,.9 L-3,0 L-.9,-.9Z",
                             class: "ph-nd-fill"})],
  despair: () => [s("circle", {r: 4.6, class: "ph-nd-ring"}),
                  s("path", {d: "M-2.2,-2.2 L2.2,2.2 M2.2,-2.2 L-2.2,2.2", class: "ph-nd-line"})],
  light: () => [s("circle", {r: 3.6, class: "ph-nd-ring ph-nd-light"})],
  dark: () => [s("circle", {r: 4, class: "ph-nd-fill"})],
};

/** Symbols in words: the names a screen reader says. */
export const SYMBOL_WORDS = {
  success: "success", failure: "failure", advantage: "advantage", threat: "threat",
  triumph: "triumph", despair: "despair", light: "light side pip", dark: "dark side pip",
};

function glyph(symbol, x, y, scale) {
  return s("g", {transform: `translate(${x} ${y}) scale(${scale})`, class: `ph-nd-glyph ph-nd-${symbol}`},
    (GLYPHS[symbol] ?? (() => []))());
}

/** What a die says aloud: "proficiency die: success, advantage"; "boost die: blank". */
export function dieLabel(kind, symbols = null) {
  if (symbols === null) return `${kind} die`;
  return `${kind} die: ${symbols.length ? symbols.map((x) => SYMBOL_WORDS[x] ?? x).join(", ") : "blank"}`;
}

/**
 * One narrative die: `symbols` null for a die not rolled yet (its shape alone), else the
 * symbols on the face that came up; `note` (its provenance) goes in the tooltip and label.
 */
export function narrativeDie(kind, symbols = null, {note = ""} = {}) {
  const label = dieLabel(kind, symbols) + (note ? ` (${note})` : "");
  const marks = symbols ?? [];
  const placed = marks.length === 1 ? [glyph(marks[0], 16, 16, 1.45)]
    : marks.map((symbol, i) => glyph(symbol, i === 0 ? 10.6 : 21.4, 16, 0.98));
  return s("svg", {viewBox: "0 0 32 32", role: "img", "aria-label": label,
                   class: `ph-nd ph-nd-${kind}${symbols === null ? " ph-nd-unrolled" : ""}`,
                   "data-kind": kind, "data-symbols": symbols === null ? null : marks.join(" ")},
    s("title", {}, label), (SHAPES[kind] ?? SHAPES.boost)(), placed);
}

/** A symbol on its own (results, the destiny pool): an SVG with its name as its label. */
export function symbolIcon(symbol, label = null) {
  const words = label ?? SYMBOL_WORDS[symbol] ?? symbol;
  return s("svg", {viewBox: "-6 -6 12 12", role: "img", "aria-label": words,
                   class: `ph-nd-symbol ph-nd-symbol-${symbol}`},
    s("title", {}, words), glyph(symbol, 0, 0, 1));
}

/** Rolled dice (each {kind, face, symbols}) in a row. */
export function rolledDice(dice) {
  return h("span", {class: "ph-dice ph-nd-dice"},
    dice.map((die) => narrativeDie(die.kind, die.symbols ?? [])));
}

/** Dice not rolled yet, from counts ({proficiency: 2, ability: 1 ...}), in the table's order. */
export function poolDice(counts) {
  const dice = [];
  for (const kind of KINDS) {
    for (let i = 0; i < (counts?.[kind] ?? 0); i += 1) dice.push(narrativeDie(kind));
  }
  return h("span", {class: "ph-dice ph-nd-dice"}, dice);
}

function counted(word, count) {
  return count === 1 ? word : plural(word, count);
}

/**
 * A recorded result in words: "2 successes, 1 advantage, triumph"; "failed: 1 threat,
 * despair". `verdict` false for a free pool, which has no difficulty to fail against.
 */
export function resultWords(result, {verdict = true} = {}) {
  const parts = [];
  if (result.successes > 0) parts.push(plural("success", result.successes));
  else if (result.successes < 0) parts.push(plural("failure", -result.successes));
  else if (!verdict) parts.push("no net success");
  if (result.advantages > 0) parts.push(plural("advantage", result.advantages));
  else if (result.advantages < 0) parts.push(plural("threat", -result.advantages));
  if (result.triumphs) parts.push(counted("triumph", result.triumphs));
  if (result.despairs) parts.push(counted("despair", result.despairs));
  if (result.light || result.dark) parts.push(`${result.light} light, ${result.dark} dark`);
  if (!verdict || result.succeeded) return parts.join(", ");
  return parts.length ? `failed: ${parts.join(", ")}` : "failed";
}

/** The net symbols of a result drawn in a row (decoration: the words say it for readers). */
export function resultSymbols(result) {
  const icons = [];
  const repeat = (symbol, count) => {
    for (let i = 0; i < Math.min(count, 12); i += 1) icons.push(symbolIcon(symbol));
  };
  repeat(result.successes >= 0 ? "success" : "failure", Math.abs(result.successes));
  repeat(result.advantages >= 0 ? "advantage" : "threat", Math.abs(result.advantages));
  repeat("triumph", result.triumphs);
  repeat("despair", result.despairs);
  repeat("light", result.light ?? 0);
  repeat("dark", result.dark ?? 0);
  return h("span", {class: "ph-nd-net", "aria-hidden": "true"}, icons);
}

/** A destiny point as a token: light side (hollow, bright) or dark side (filled). */
export function destinyToken(side) {
  const label = `${side} side destiny point`;
  return s("svg", {viewBox: "0 0 24 24", role: "img", "aria-label": label,
                   class: `ph-nd-token ph-nd-token-${side}`},
    s("title", {}, label), s("circle", {cx: 12, cy: 12, r: 10, class: "ph-nd-token-body"}),
    s("circle", {cx: 12, cy: 12, r: 4.5, class: "ph-nd-token-core"}));
}
