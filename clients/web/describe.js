// The log's lines for the events every campaign has (members, characters, game sessions, free
// rolls); a game system's own events are described by its module (systems/<id>.js).
import {h, plural} from "./dom.js";
import {numericDie} from "./dice.js";

/** Names for ids, from the latest table message. */
export function namesOf(table) {
  const members = new Map((table?.members ?? []).map((m) => [m.member, m.name]));
  // a retired character is still named in the lines from before its retirement
  const characters = new Map([...(table?.retired ?? []), ...(table?.characters ?? [])]
    .map((c) => [c.character, c.name]));
  const roles = new Map((table?.members ?? []).map((m) => [m.member, m.role]));
  return {
    member: (id) => (id === "admin" ? "the server's admin" : members.get(id) ?? id),
    role: (id) => roles.get(id) ?? null,
    character: (id) => characters.get(id) ?? id,
  };
}

export function describeCore(frame, names) {
  const event = frame.event;
  switch (event.type) {
    case "campaign_created":
      return h("span", {}, `campaign “${event.name}” created (${event.system})`);
    case "member_invited":
      return h("span", {}, `${event.name} invited as ${event.role}`,
        event.characters?.length ? ` for ${event.characters.map(names.character).join(", ")}` : "");
    case "member_removed":
      return h("span", {}, `${names.member(event.member)} removed`,
        event.reason ? ` (${event.reason})` : "");
    case "characters_assigned":
      return h("span", {}, `${names.member(event.member)} now plays `,
        event.characters?.length ? event.characters.map(names.character).join(", ") : "no character");
    case "character_created":
      return h("span", {}, `character ${event.name} created`);
    case "character_retired":
      return h("span", {}, `character ${event.name} retired`, event.reason ? ` (${event.reason})` : "");
    case "character_updated": // a name is there only when it changed
      return h("span", {}, `character ${event.name ?? names.character(event.character)} updated`);
    case "condition_changed":
      return h("span", {}, `${names.character(event.character)}'s ${event.condition.replaceAll("_", " ")}: `,
        `${event.was} → ${event.value}`, event.reason ? ` (${event.reason})` : "");
    case "character_imported":
      return h("span", {}, `character ${event.character} imported`,
        event.from_campaign ? ` from ${event.from_campaign}` : "");
    case "game_session_started":
      return h("span", {class: "ph-session-mark"}, `game session ${event.session} started`,
        event.title ? `: ${event.title}` : "");
    case "game_session_ended":
      return h("span", {class: "ph-session-mark"}, `game session ${event.session} ended`);
    case "dice_rolled":
      return freeRoll(event, names);
    case "client_seed_set": // every roll from now on mixes it in (ph-seed.js)
      return h("span", {}, "set their seed ", h("code", {class: "ph-seed-text"}, event.seed));
    // the fair dice's bookkeeping (docs/explanation/fairness.md), under the member whose
    // command began or ended the epoch: the seed is the server's, not theirs (table.css quiets it)
    case "seed_committed":
      return `began dice epoch ${event.epoch}: the server committed to its seed`;
    case "seed_revealed":
      return `ended dice epoch ${event.epoch}: the server revealed its seed (${plural("roll", event.rolls)} to check)`;
    default:
      return null;
  }
}

function freeRoll(event, names) {
  const dice = [];
  for (const term of event.terms) {
    for (const face of term.faces) dice.push(numericDie(term.sides, face));
  }
  const who = event.character ? `${names.character(event.character)} rolls ` : "rolls ";
  return h("span", {class: "ph-free-roll"}, who, h("code", {}, event.expression), ": ",
    h("span", {class: "ph-dice"}, dice), " = ", h("strong", {}, String(event.total)),
    event.reason ? ` (${event.reason})` : "");
}

export {plural};
