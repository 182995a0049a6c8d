// How the log shows private rolls (see ./visibility.js for the choice, and the docs'
// explanation/private-rolls.md). The server decides who sees what; the page only words it:
//
// - a roll this member may not see comes sealed: an event frame whose event is
//   {type: "private_roll", visibility} (the same seq, time and roller; no dice, no hash). Its
//   line says who acted and how, nothing more ("The GM acted in secret", "Ann rolled in
//   private (blind)"); the roller of a blind roll reads "You rolled blind: the GM sees the
//   result". The GM's secret event may be no roll at all (a secret check opened, its
//   difficulty set, a d12 test called), and the frame does not say which: "acted" is true of
//   each. A player's private event is always a one-shot roll (server/rules/privacy.py).
// - a private roll this member may see comes whole, with its `visibility`; its line says who
//   else sees it ("only you and the GM see this").
// - when the session ends the server sends every member the rolls it sealed for them
//   (`revealed`): the store puts them in place of the sealed lines, and their line says they
//   were revealed at the session's end (and the page checks their dice like any other roll).
import {h} from "./dom.js";

const HOW = {gm: "acted in secret", blind: "rolled in private (blind)", self: "rolled in private (self)"};

/** The visibility an event was made with, when it is not public ("" otherwise). */
export function privateVisibility(event) {
  const visibility = event?.visibility;
  return typeof visibility === "string" && visibility !== "public" ? visibility : "";
}

/** The words of a sealed line (after its time): who acted, how, and nothing of what. */
export function sealedWords(frame, names, me) {
  const visibility = frame.event.visibility;
  const mine = me?.member && frame.actor === me.member;
  if (visibility === "blind" && mine) {
    return [h("span", {class: "ph-actor"}, "You"), " rolled blind: ",
      h("span", {class: "ph-private-why"}, "the GM sees the result; everyone sees it when the session ends")];
  }
  const who = visibility === "gm" ? "The GM" : names.member(frame.actor);
  return [h("span", {class: "ph-actor"}, who), ` ${HOW[visibility] ?? "acted in private"}`,
    h("span", {class: "ph-private-why"}, ": shown to everyone when the session ends")];
}

/**
 * The mark of a whole private roll: who sees it now, or that it was revealed (`revealed`:
 * its seed was revealed since, or the page received it sealed and then whole).
 */
export function privateMark(frame, names, me, revealed) {
  const visibility = privateVisibility(frame.event);
  if (!visibility) return null;
  let words;
  if (revealed) {
    words = visibility === "gm" ? "secret, revealed at the session's end"
      : `${visibility} roll, revealed at the session's end`;
  } else if (visibility === "gm") {
    words = "secret: only the GM sees this";
  } else if (me?.member && frame.actor === me.member) {
    words = visibility === "self" ? "only you and the GM see this" : "blind: only the GM sees this";
  } else if (visibility === "blind") {
    words = `blind: only the GM sees this (not ${names.member(frame.actor)})`;
  } else {
    words = `only ${names.member(frame.actor)} and the GM see this`;
  }
  return h("span", {class: "ph-private-mark", "data-visibility": visibility,
                    "data-revealed": revealed ? "true" : null}, ` · ${words}`);
}
