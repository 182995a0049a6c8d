// Numeric dice drawn as dice: the project's own SVG, sized and coloured by CSS custom
// properties (--ph-die-size, --ph-die-fill ...), each with a text alternative.
import {s} from "./dom.js";

/** A die of `sides` showing `face`: an SVG with role=img and a label a screen reader reads. */
export function numericDie(sides, face, {marked = null} = {}) {
  const label = `d${sides} showing ${face}` + (marked ? `, ${marked}` : "");
  const shape = sides === 6
    ? s("rect", {x: 2, y: 2, width: 28, height: 28, rx: 6, class: "ph-die-body"})
    : s("polygon", {points: polygonPoints(sides), class: "ph-die-body"});
  return s("svg", {viewBox: "0 0 32 32", role: "img", "aria-label": label,
                   class: `ph-die ph-d${sides}${marked ? " ph-die-marked" : ""}`},
    s("title", {}, label), shape,
    s("text", {x: 16, y: 17, "text-anchor": "middle", "dominant-baseline": "central",
               class: "ph-die-face"}, String(face)));
}

function polygonPoints(sides) {
  const corners = sides <= 4 ? 3 : sides === 8 ? 4 : sides === 12 ? 5 : 6;
  const points = [];
  for (let i = 0; i < corners; i += 1) {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / corners;
    points.push(`${(16 + 14 * Math.cos(angle)).toFixed(1)},${(17 + 14 * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}
