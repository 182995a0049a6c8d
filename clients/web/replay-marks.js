// What the replay's timeline marks: the moments a table remembers. Read from the facts each
// event records (a check's recorded result, a flip's side); never decided again.

/** @import {EventFrame, GameEvent} from "./messages.js" */

/** A game session in a run of frames (`to`: null while open).
 * @typedef {{session: number, title: string, from: number, to: number | null}} SessionSpan */

/** @type {Record<string, string>} */
const KINDS = {
  game_session_started: "session",
  game_session_ended: "session",
  check_rolled: "check",
  pool_rolled: "check",
  pool_test_rolled: "check",
  threshold_dice_rolled: "check",
  destiny_flipped: "destiny",
  combat_turn_started: "combat",
};

/** {kind, label} for an event worth a mark on the timeline, or null.
 * @param {EventFrame} frame @returns {{kind: string, label: string} | null} */
export function markOf(frame) {
  const event = frame.event;
  let kind = KINDS[event.type];
  if (!kind) return null;
  const result = event.result ?? null;
  if (result && (result.triumphs > 0 || result.despairs > 0)) {
    kind = result.despairs > 0 && !(result.triumphs > 0) ? "despair" : "triumph";
  }
  return {kind, label: labelOf(event, kind)};
}

/** @param {GameEvent} event @param {string} kind @returns {string} */
function labelOf(event, kind) {
  switch (event.type) {
    case "game_session_started":
      return `session ${event.session} starts${event.title ? `: ${event.title}` : ""}`;
    case "game_session_ended":
      return `session ${event.session} ends`;
    case "destiny_flipped":
      return `a ${event.side} side point is flipped`;
    case "combat_turn_started":
      return `combat turn ${event.turn}`;
    default:
      return kind === "triumph" ? "a triumph" : kind === "despair" ? "a despair"
        : event.type.replaceAll("_", " ");
  }
}

/** The game sessions in a run of frames: [{session, title, from, to}] (to: null while open).
 * @param {EventFrame[]} frames @param {SessionSpan[]} [sessions] */
export function sessionsOf(frames, sessions = []) {
  for (const frame of frames) {
    const event = frame.event;
    if (event.type === "game_session_started") {
      sessions.push({session: event.session, title: event.title ?? "", from: frame.seq, to: null});
    } else if (event.type === "game_session_ended") {
      const open = sessions.find((s) => s.session === event.session && s.to === null);
      if (open) open.to = frame.seq;
    }
  }
  return sessions;
}
