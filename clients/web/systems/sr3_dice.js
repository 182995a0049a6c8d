// Shadowrun 3 dice drawn as dice: each d6 of a test is a chain of faces (Rule of Six: a 6 is
// rolled again and added), shown as the faces in a row and the die's value. Which dice reached
// the target number is read from the recorded faces and TN; the successes themselves come from
// the event. Every die is the project's numeric d6 SVG with a text alternative.
import {h, plural} from "../dom.js";
import {numericDie} from "../dice.js";

/** Words for where a die came from (PoolDie.source). */
export const SOURCE_WORDS = {
  base: "base", combat: "Combat Pool", control: "Control Pool", hacking: "Hacking Pool",
  spell: "Spell Pool", astral_combat: "Astral Combat Pool", task: "Task Pool",
  astral: "Astral Pool", karma: "Karma Pool",
};

/** Words for a pool's id, as on a sheet ("astral_combat" -> "Astral Combat"). */
export function poolWords(pool) {
  return pool.split("_").map((word) => word[0].toUpperCase() + word.slice(1)).join(" ");
}

function total(faces) {
  return faces.reduce((sum, face) => sum + face, 0);
}

/** One die of a test: its chain of faces and value; `tn` null (open test) marks nothing. */
export function chainDie(faces, tn) {
  const value = total(faces);
  const hit = tn !== null && tn !== undefined && value >= tn;
  const words = faces.length > 1
    ? `rolled ${faces.join(", ")} (Rule of Six): ${value}` : `rolled ${value}`;
  const label = words + (hit ? ", a success" : "");
  return h("span", {
    class: `ph-sr3-die${hit ? " ph-sr3-hit" : ""}${faces.length > 1 ? " ph-sr3-chain" : ""}`
      + `${value === 1 ? " ph-sr3-one" : ""}`,
    role: "img", "aria-label": label, title: label,
  }, faces.map((face) => numericDie(6, face)),
  faces.length > 1 ? h("span", {class: "ph-sr3-value", "aria-hidden": "true"}, `=${value}`) : null);
}

/** A test's dice grouped by source: base dice, then each pool's, then Karma Pool's. */
export function testDice(dice, tn) {
  const groups = new Map();
  for (const die of dice) {
    if (!groups.has(die.source)) groups.set(die.source, []);
    groups.get(die.source).push(chainDie(die.faces, tn));
  }
  return h("span", {class: "ph-sr3-dice"}, [...groups].map(([source, chains]) =>
    h("span", {class: "ph-sr3-group", "data-source": source},
      source === "base" ? null : h("span", {class: "ph-sr3-source"}, SOURCE_WORDS[source] ?? source),
      chains)));
}

/** Initiative dice (no Rule of Six): plain d6 faces. */
export function initiativeDice(faces) {
  return h("span", {class: "ph-dice"}, faces.map((face) => numericDie(6, face)));
}

/** " − 3 for wounds": the wound modifier an initiative roll recorded taking off (none: ""). */
export function woundWords(wounds) {
  return wounds ? ` − ${wounds} for wounds` : "";
}

/** "2 successes", "highest 14" (open test), with the Rule of One noted. */
export function resultWords(result) {
  const words = result.successes === null || result.successes === undefined
    ? `highest ${result.highest}`
    : result.successes === 1 ? "1 success" : `${result.successes} successes`;
  return result.disastrous ? `${words}, all ones: disastrous failure (Rule of One)` : words;
}

/**
 * How an opposed test came out, from the recorded outcome (the server's words, `outcome_words`).
 * A Dodge compares the attack's successes with its Combat Pool dice alone (`pool_successes`):
 * when Karma dice added successes, both counts are said. A Karma reroll passes kind "": a
 * Dodge's outcome says it is one by its `pool_successes`.
 */
export function outcomeWords(outcome, kind) {
  if (!outcome) return "";
  const alone = outcome.pool_successes ?? null;
  const dodge = kind === "dodge" || alone !== null;
  const ours = alone ?? outcome.ours;
  const both = alone !== null && alone !== outcome.ours
    ? ` with Combat Pool dice alone (${outcome.ours} with all dice)` : "";
  if (outcome.missed) {
    return `test #${outcome.test} is a complete miss${both ? `, ${outcome.theirs} to ${ours}${both}` : ""}`;
  }
  if (dodge) return `test #${outcome.test} still hits, ${outcome.theirs} to ${ours}${both}`;
  return `net ${outcome.net >= 0 ? "+" : ""}${outcome.net} against test #${outcome.test}`;
}

/** "Pistols (combat), TN 4" / "Body (damage resistance), open"; a Dodge is named by the pool it
 * rolls: "Astral Combat Pool (dodge, astral), TN 4" on the astral plane. */
export function testWords(test) {
  const base = test.skill ?? test.attribute
    ?? (test.kind === "dodge" ? `${test.astral ? "Astral " : ""}Combat Pool` : "dice");
  const name = base.replaceAll("_", " ").replaceAll("-", " ");
  const flags = ["surprised", "rigged", "astral", "magic", "elemental"].filter((flag) => test[flag]);
  const kind = test.kind.replaceAll("_", " ") + (flags.length ? `, ${flags.join(", ")}` : "");
  const tn = test.tn === null || test.tn === undefined ? "open" : `TN ${test.tn}`;
  return `${name[0].toUpperCase()}${name.slice(1)} (${kind}), ${tn}`;
}

/** A declared test's base dice in words: "6 dice", or for a test with none (a Dodge rolls
 * Combat Pool dice alone) the pools it rolls instead, "Combat Pool dice only" ("TN 4, 0 dice"
 * read as if the test had nothing to roll). */
export function baseDiceWords(test) {
  if (test.base_dice > 0) return plural("die", test.base_dice, "dice");
  const pools = [...Object.keys(test.limits ?? {}), ...(test.spent ?? [])];
  return pools.length ? `${pools.map(poolWords).join(" or ")} Pool dice only` : "pool dice only";
}
