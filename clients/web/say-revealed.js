// The one announcement of the private rolls the server sent whole at the session's end
// (<ph-log>'s `replaced`): a sighted reader sees the sealed lines change in place, a screen
// reader was told nothing. Fetched only then (a session's end with private rolls in it), out of
// the page's first load.
import {afterPaint, h} from "./dom.js";
import {ANNOUNCED, plainCopy} from "./elements/ph-log.js";
/** @import {PhLog} from "./elements/ph-log.js" */

/** One announcement of the rolls `seqs` revealed at the session's end, after what came with
 * them (the session's end): the first few in words, a count of the rest.
 * @param {PhLog} log @param {number[]} seqs */
export function sayRevealed(log, seqs) {
  const frames = seqs.map((seq) => log.frames[log.find(seq)]).filter(Boolean);
  if (!frames.length) return;
  afterPaint(() => {
    const told = frames.slice(0, ANNOUNCED).map((frame, i) => [i ? "; " : "",
      ...plainCopy(log.built.get(frame.seq) ?? log.line(frame)).childNodes]);
    const more = frames.length - told.length;
    log.announcer.append(h("p", {}, frames.length > 1
      ? `${frames.length} private rolls revealed at the session's end: ` : "", told,
    more ? `; ${more} more in the log` : ""));
    while (log.announcer.childElementCount > ANNOUNCED) log.announcer.firstElementChild?.remove();
  });
}
