// The server's exact odds of a test's next roll (the D12TestOdds view, about `test:<n>`),
// shown as figures, a bar chart of the margin distribution and the pool's survival. The page
// computes nothing: it matches the view to the test and draws what it says.
import {h, percent, s} from "../dom.js";
import {signed} from "./d12_dice.js";

const SHOWN = 0.0005; // margins less likely than this at the edges of the chart are left out

/** A chance for people: one too close to certain for two decimals reads as not quite certain,
 * one too small as not quite none (8 dice at DT 3 are all lost once in 65,536 rounds: "Pool
 * lasts 1 round 100.00%" told the table it could not happen). */
export function chance(p) {
  if (p > 0 && p < 0.00005) return "< 0.01%";
  if (p < 1 && p >= 0.99995) return "> 99.99%";
  return percent(p);
}

/** Whether `view` is the odds of the roll `test` is about to make (not an earlier round's). */
export function oddsFit(test, view) {
  const odds = view?.odds;
  return Boolean(odds) && view.round === test.rounds_rolled + 1 && odds.dice === test.pool
    && odds.dt === test.threshold.dt;
}

/** The odds part of an open test's card. */
export function oddsPart(test, view) {
  if (!test.open) return null;
  if (!oddsFit(test, view)) {
    return h("p", {class: "ph-d12-odds ph-muted"},
      view?.note && view.round === test.rounds_rolled + 1 ? view.note : "working out the odds…");
  }
  const odds = view.odds;
  return h("div", {class: "ph-d12-odds", "data-success": odds.success},
    h("p", {class: "ph-d12-odds-head"},
      `Next roll, ${odds.dice}d12 at DT ${odds.dt}: `,
      h("strong", {class: "ph-d12-chance"}, `${chance(odds.success)} to succeed`),
      `, mean margin ${odds.expected_margin >= 0 ? "+" : ""}${odds.expected_margin.toFixed(2)}`),
    chart(odds.distribution),
    odds.survival?.length ? h("p", {class: "ph-d12-survival"},
      `Pool lasts (${odds.add} join each round): `,
      odds.survival.map((p, i) => `${i + 1} ${i ? "rounds" : "round"} ${chance(p)}`).join(" · "))
      : null);
}

/** The margin distribution as bars (successful margins in the success colour). */
function chart(distribution) {
  const entries = Object.entries(distribution).map(([m, p]) => [Number(m), p])
    .sort((a, b) => a[0] - b[0]);
  let first = 0;
  let last = entries.length - 1;
  while (first < last && entries[first][1] < SHOWN) first += 1;
  while (last > first && entries[last][1] < SHOWN) last -= 1;
  const shown = entries.slice(first, last + 1);
  if (!shown.length) return null;
  const top = Math.max(...shown.map(([, p]) => p));
  const likeliest = shown.find(([, p]) => p === top);
  const width = 6;
  const label = `margin from ${signed(shown[0][0])} to ${signed(shown[shown.length - 1][0])}; ` +
    `most likely ${signed(likeliest[0])} (${percent(likeliest[1])})`;
  return h("figure", {class: "ph-d12-chart"},
    s("svg", {viewBox: `0 0 ${shown.length * width} 40`, preserveAspectRatio: "none", role: "img",
              "aria-label": label, class: "ph-d12-bars"},
      s("title", {}, label),
      shown.map(([margin, p], i) => s("rect", {
        x: i * width + 0.5, width: width - 1, y: 40 - (38 * p) / top, height: (38 * p) / top,
        class: margin > 0 ? "ph-d12-bar ph-d12-bar-won" : "ph-d12-bar"}))),
    h("figcaption", {class: "ph-muted"},
      h("span", {}, signed(shown[0][0])), h("span", {}, "margin"),
      h("span", {}, signed(shown[shown.length - 1][0]))));
}
