// The log's lines for the narrative events: dice drawn as dice, results in words, every fact
// from the event as recorded (nothing re-derived from the rules).
import {h, plural} from "../dom.js";
import {destinyToken, narrativeDie, poolDice, resultWords, rolledDice} from "./narrative_dice.js";

const why = (reason) => (reason ? ` (${reason})` : "");
const code = (text) => h("code", {}, text);
const dieWord = (count) => (count === 1 ? "die" : "dice");

/** Difficulty levels as the table says them. */
export function levelWords(level) {
  return level ? level[0].toUpperCase() + level.slice(1) : "no difficulty yet";
}

/** "upgrade difficulty" from "upgrade_difficulty". */
export function effectWords(effect) {
  return effect.replaceAll("_", " ");
}

function result(event, verdict = true) {
  return h("strong", {class: `ph-nd-words${verdict && !event.result.succeeded ? " ph-nd-failed" : ""}`},
    resultWords(event.result, {verdict}));
}

function destinyAfter(event) {
  return h("span", {class: "ph-nd-after"}, ` → ${event.light} light, ${event.dark} dark`);
}

/** The body of the log line of one narrative event, or null for another system's event. */
export function describeNarrative(frame, names) {
  const event = frame.event;
  switch (event.type) {
    case "check_opened":
      return h("span", {}, "opened check ", code(event.check), `: ${names.character(event.character)}'s `,
        `${event.skill} (${levelWords(event.characteristic)} ${event.characteristic_value}, rank ${event.rank})`,
        event.target ? ` against ${names.character(event.target)}` : "", " ",
        poolDice({proficiency: event.proficiency, ability: event.ability}), why(event.reason));
    case "difficulty_set":
      return h("span", {}, "set the difficulty of ", code(event.check), ": ",
        event.level === "opposed"
          ? `opposed by ${names.character(event.opponent ?? "")}'s ${event.opponent_skill}`
          : levelWords(event.level), " ",
        poolDice({challenge: event.challenge, difficulty: event.difficulty}), why(event.reason));
    case "dice_added":
    case "dice_removed": {
      const added = event.type === "dice_added";
      const dice = Array.from({length: event.count}, () => narrativeDie(event.kind));
      return h("span", {}, `${added ? "added" : "removed"} ${event.count} ${event.kind} ${dieWord(event.count)} `,
        h("span", {class: "ph-dice ph-nd-dice"}, dice), ` ${added ? "to" : "from"} `, code(event.check),
        why(event.reason));
    }
    case "dice_upgraded":
    case "dice_downgraded":
      return h("span", {}, `${event.type === "dice_upgraded" ? "upgraded" : "downgraded"} ${event.count} `,
        `${event.side}-side ${dieWord(event.count)} of `, code(event.check), why(event.reason));
    case "check_rolled":
      return h("span", {class: "ph-nd-rolled"}, "rolled ", code(event.check), ` for ${names.character(event.character)}: `,
        rolledDice(event.dice), " = ", result(event));
    case "check_cancelled":
      return h("span", {}, "cancelled check ", code(event.check), why(event.reason));
    case "destiny_pool_rolled":
      return h("span", {}, "rolled the destiny pool: ",
        event.dice.map((die) => h("span", {class: "ph-nd-destiny-die"}, `${names.member(die.member)} `,
          narrativeDie("force", die.symbols ?? []), " ")),
        destinyAfter(event));
    case "destiny_pool_set":
      return h("span", {}, "set the destiny pool", why(event.reason), destinyAfter(event));
    case "destiny_flipped":
      // the GM spends light only for a player ("GM spent a light side point" read as the GM's own)
      return h("span", {}, `spent a ${event.side} side point `, destinyToken(event.side),
        event.side === "light" && names.role?.(frame.actor) === "gm" ? " for a player" : "",
        `: ${effectWords(event.effect)}`,
        event.check ? [" on ", code(event.check)] : "", why(event.reason), destinyAfter(event));
    case "force_dice_rolled":
      // the line starts with who rolled ("Ørjan"): the character comes after, as for a pool
      // ("Ørjan Ørjan Kessel rolled 1 Force die" read the name twice)
      return h("span", {}, `rolled ${event.dice.length} Force ${dieWord(event.dice.length)}`,
        ` for ${names.character(event.character)}${why(event.reason)}: `, rolledDice(event.dice), " = ",
        h("strong", {class: "ph-nd-words"}, `${event.light} light, ${event.dark} dark`));
    case "pool_rolled":
      return h("span", {}, "rolled ", code(poolNotation(event.pool)),
        event.character ? ` for ${names.character(event.character)}` : "", why(event.reason), ": ",
        rolledDice(event.dice), " = ", result(event, false));
    case "encounter_started":
      return h("span", {}, `encounter ${event.encounter} started${why(event.reason)}: roll initiative (Cool or Vigilance)`);
    case "initiative_entered": // net failures and threats named so: "-1 advantages" read as nonsense
      return h("span", {}, `${names.character(event.character)}'s initiative: ${resultWords(event, {verdict: false})}`,
        ` (${event.skill}, ${event.side === "player" ? "player" : "NPC"} slot)`);
    case "round_started":
      return h("span", {class: "ph-session-mark"}, `round ${event.round} begins`);
    case "slot_claimed":
      return h("span", {}, `${names.character(event.character)} acts in slot ${event.slot} of round ${event.round}`);
    case "encounter_ended":
      return h("span", {class: "ph-session-mark"}, `encounter ${event.encounter} ended after ${plural("round", event.rounds)}`,
        why(event.reason));
    case "result_spent":
      return h("span", {}, `spent ${plural(event.symbol, event.count)} of `, code(event.check), ` on ${event.on}`,
        ` (${event.left} left)`);
    default:
      return null;
  }
}

const LETTERS = {proficiency: "y", ability: "g", difficulty: "p", challenge: "r", boost: "b",
                 setback: "k", force: "w"};

/** A pool's counts in the colour-letter notation the CLI reads: "2y1g2p1r". */
export function poolNotation(pool) {
  const text = Object.entries(LETTERS).filter(([kind]) => pool?.[kind])
    .map(([kind, letter]) => `${pool[kind]}${letter}`).join("");
  return text || "-";
}
