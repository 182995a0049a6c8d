// The log's lines for the sr3 events: dice drawn as dice, results in words, all read from what
// each event recorded (formatting, never a rule).
import {h, plural} from "../dom.js";
import {
  baseDiceWords, chainDie, initiativeDice, outcomeWords, poolWords, resultWords, testDice, testWords,
  woundWords,
} from "./sr3_dice.js";

function who(names, character) {
  return h("strong", {class: "ph-sr3-character"}, names.character(character));
}

function list(names, characters) {
  return characters.length ? characters.map(names.character).join(", ") : "no one";
}

/** "; not acting: Rook (unconscious)": who a full Stun or Physical monitor keeps from acting
 * (older logs record no one). */
function notActing(names, out) {
  const entries = Object.entries(out ?? {});
  if (!entries.length) return "";
  return `; not acting: ${entries.map(([character, why]) => `${names.character(character)} (${why})`).join(", ")}`;
}

function poolsFull(names, pools) {
  return Object.entries(pools).map(([character, sizes]) => {
    const shown = Object.entries(sizes).filter(([, size]) => size > 0)
      .map(([pool, size]) => `${poolWords(pool)} ${size}`);
    return `${names.character(character)}: ${shown.join(", ") || "no pools"}`;
  }).join("; ");
}

function rolled(event, names) {
  const parts = [who(names, event.character), ` rolls test #${event.test}, `, testWords(event), ": ",
    testDice(event.dice, event.tn), " → ", h("strong", {class: "ph-sr3-result"}, resultWords(event))];
  const outcome = outcomeWords(event.outcome, event.kind);
  if (outcome) parts.push(`; ${outcome}`);
  const left = event.pools_left ?? {};
  const drawn = Object.keys(left).filter((pool) => event.dice.some((die) => die.source === pool));
  if (drawn.length) {
    parts.push(`; left: ${drawn.map((pool) => `${poolWords(pool)} ${left[pool]}`).join(", ")}`);
  }
  if (event.karma_spent) {
    parts.push(`; ${event.karma_spent} Karma Pool spent, ${event.karma_left} left`);
  }
  if (event.reason) parts.push(` (${event.reason})`);
  return h("span", {class: "ph-sr3-line"}, parts);
}

function rerolled(event, names) {
  const outcome = outcomeWords(event.outcome, "");
  return h("span", {class: "ph-sr3-line"}, who(names, event.character),
    ` spends ${plural("Karma Pool point", event.cost)} to reroll `,
    `${plural("die", event.indices.length, "dice")} of test #${event.test}: `,
    h("span", {class: "ph-sr3-dice"}, event.faces.map((faces) => chainDie(faces, null))),
    " → ", h("strong", {class: "ph-sr3-result"}, resultWords(event)),
    outcome ? `; ${outcome}` : "", ` (${event.karma_left} left)`);
}

/** The log line of an sr3 event, or null if `frame` holds another kind. */
export function describeSr3(frame, names) {
  const event = frame.event;
  switch (event.type) {
    case "combat_encounter_started":
      return h("span", {class: "ph-sr3-line"}, "combat starts: ",
        list(names, event.participants));
    case "combat_turn_started":
      return h("span", {class: "ph-sr3-line"}, h("strong", {}, `Combat Turn ${event.turn}`),
        " begins, pools full: ", poolsFull(names, event.pools));
    case "initiative_scores_rolled":
      return h("span", {class: "ph-sr3-line"}, `initiative for turn ${event.turn}: `,
        event.rolls.length ? event.rolls.map((roll, index) => h("span", {class: "ph-sr3-init"},
          index ? ", " : "", who(names, roll.character), ` ${roll.score} (Reaction ${roll.reaction} + `,
          initiativeDice(roll.faces), woundWords(roll.wounds), ")")) : "no one rolls",
        `; order: ${list(names, event.order)}`, notActing(names, event.out));
    case "combat_pass_advanced":
      return h("span", {class: "ph-sr3-line"},
        `Combat Phase pass ${event.pass_number} of turn ${event.turn}: ${list(names, event.order)}`,
        notActing(names, event.out));
    case "combat_turn_ended":
      return h("span", {class: "ph-sr3-line"}, `Combat Turn ${event.turn} ends; unused pool dice are gone`);
    case "combat_encounter_ended":
      return h("span", {class: "ph-sr3-line"},
        `combat ends after ${plural("Combat Turn", event.turns)}`);
    case "pool_test_declared": {
      const limits = Object.entries(event.limits)
        .map(([pool, most]) => `${poolWords(pool)} up to ${most}`);
      return h("span", {class: "ph-sr3-line"}, who(names, event.character), " declares ",
        testWords(event), event.wounds ? ` + ${event.wounds} for wounds` : "",
        `, ${baseDiceWords(event)}; may draw `,
        limits.join(", ") || "no pool dice",
        (event.spent ?? []).length ? `; spent this turn: ${event.spent.map(poolWords).join(", ")}` : "",
        event.reason ? ` (${event.reason})` : "");
    }
    case "pool_test_rolled":
      return rolled(event, names);
    case "pool_test_rerolled":
      return rerolled(event, names);
    case "scene_ended": {
      const back = Object.entries(event.refreshed).filter(([, points]) => points > 0)
        .map(([character, points]) => `${names.character(character)} ${points}`);
      return h("span", {class: "ph-sr3-line"}, "the scene ends; Karma Pool back: ",
        back.join(", ") || "none was spent");
    }
    default:
      return null;
  }
}
