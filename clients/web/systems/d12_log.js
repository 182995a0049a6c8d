// The log lines of the d12 system's events: dice drawn as dice, results in words, all from
// what the event recorded (replay and the page never re-derive a roll).
import {h, plural} from "../dom.js";
import {d12Dice, poolWords, resultWords, thresholdWords} from "./d12_dice.js";

/** The log line's body for a d12 event, or null if the frame holds another system's event. */
export function describe(frame, names) {
  const event = frame.event;
  const test = h("strong", {class: "ph-d12-ref"}, `test ${event.test}`);
  switch (event.type) {
    case "threshold_test_started":
      return h("span", {}, "calls ", test, event.label ? ` (${event.label})` : "", ": ",
        event.kind, " test for ", event.character ? names.character(event.character) : "no one",
        `, ${poolWords(event.stats ?? [], event.pool)} at ${thresholdWords(event.threshold, names)}`,
        event.refresh ? `; ${event.refresh} dice join after each round` : "");
    case "difficulty_threshold_set":
      return h("span", {}, test, `: next round at ${thresholdWords(event.threshold, names)}`);
    case "threshold_dice_rolled":
      return h("span", {class: "ph-d12-roll-line"}, test, `, round ${event.round} at DT ${event.dt}: `,
        h("span", {class: "ph-dice"}, d12Dice(event.faces, event.values)), " ",
        h("span", {class: event.succeeded ? "ph-d12-won" : "ph-d12-lost"}, resultWords(event)));
    case "failed_dice_removed":
      return h("span", {}, test, `: ${plural("failed die", event.count, "failed dice")} left the pool, `,
        plural("die remains", event.pool, "dice remain"));
    case "refresh_dice_added":
      return h("span", {}, test, `: ${event.stat} ${event.rating}, ${event.count} joined: `,
        `${plural("die", event.pool, "dice")} in the pool`);
    case "threshold_result_interpreted":
      return h("span", {}, test, `, round ${event.round}: `, h("q", {class: "ph-d12-note"}, event.text));
    case "threshold_test_ended":
      return h("span", {}, test, ` over after ${plural("round", event.rounds)}: `,
        event.why === "pool_empty" ? "the pool is empty" : "ended by the GM",
        event.reason ? ` (${event.reason})` : "");
    default:
      return null;
  }
}
