// The phone view's map: the scene as this token sees it, fitted to the width it has, drawn in
// screen pixels so that every label reads at 15 px and every actor is a 44 px tap target at any
// width. A tap (or Enter) on another actor picks it as the target; nothing is moved from here
// (the full table's map moves actors).

import { round1 } from "./geometry.js";

const SVG = "http://www.w3.org/2000/svg";
// A tap target at least this wide (WCAG 2.5.5, and what phones' guidelines ask).
const TAP_PX = 44;
const LABEL_PX = 15;
// The least the map spans, in metres: two actors side by side are not drawn a screen apart.
const MIN_SPAN_M = 10;
const HEIGHT_RATIO = 0.6;
const MAX_HEIGHT_PX = 320;

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

export class TargetMap {
  // `onPick(id)`: another actor tapped.
  constructor({ svg, onPick }) {
    this.svg = svg;
    this.onPick = onPick;
    this.actors = [];
    // Drawn again at the width the page gives it (a phone turned, a window resized).
    this.observer = new ResizeObserver(() => this.render());
    this.observer.observe(svg);
  }

  // `actors`: [{id, x, y, mine, current, picked, down, distance}]: the scene's, positions in metres.
  draw(actors) {
    this.actors = actors;
    this.render();
  }

  render() {
    const width = Math.round(this.svg.getBoundingClientRect().width);
    const focused = document.activeElement?.closest?.("[data-actor]")?.dataset.actor;
    if (!width) return;
    const height = Math.min(MAX_HEIGHT_PX, Math.round(width * HEIGHT_RATIO));
    this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    this.svg.setAttribute("height", String(height));
    const place = this.projection(width, height);
    const layer = svgElement("g", { class: "actors" });
    for (const actor of this.actors) layer.appendChild(this.actorElement(actor, place(actor)));
    this.svg.replaceChildren(this.scaleBar(place, height), layer);
    if (focused) this.svg.querySelector(`[data-actor="${CSS.escape(focused)}"]`)?.focus();
  }

  // Metres to pixels: every actor inside, a tap target's half from each edge, y up.
  projection(width, height) {
    const xs = this.actors.map((a) => a.x);
    const ys = this.actors.map((a) => a.y);
    const [minX, maxX] = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 0];
    const [minY, maxY] = ys.length ? [Math.min(...ys), Math.max(...ys)] : [0, 0];
    const margin = TAP_PX * 0.75;
    // Room on the right for the labels.
    const usableX = Math.max(1, width - 2 * margin - 4 * LABEL_PX);
    const usableY = Math.max(1, height - 2 * margin);
    const scale = Math.min(usableX / Math.max(MIN_SPAN_M, maxX - minX), usableY / Math.max(MIN_SPAN_M * HEIGHT_RATIO, maxY - minY));
    const midX = (minX + maxX) / 2;
    const midY = (minY + maxY) / 2;
    const centreX = margin + usableX / 2;
    this.scale = scale;
    return (point) => ({ x: centreX + (point.x - midX) * scale, y: height / 2 - (point.y - midY) * scale });
  }

  scaleBar(place, height) {
    const metres = [1, 2, 5, 10, 20, 50, 100, 200, 500].find((m) => m * this.scale >= 60) || 1000;
    const length = metres * this.scale;
    const g = svgElement("g", { class: "scale", "aria-hidden": "true" });
    g.appendChild(svgElement("line", { x1: 8, y1: height - 8, x2: 8 + length, y2: height - 8 }));
    const label = svgElement("text", { x: 8, y: height - 14, "font-size": LABEL_PX });
    label.textContent = `${metres} m`;
    g.appendChild(label);
    return g;
  }

  actorElement(actor, at) {
    const pickable = !actor.mine;
    const classes = ["actor", actor.mine ? "mine" : "other", actor.current && "current", actor.picked && "picked", actor.down && "down"];
    const state = actor.mine ? (actor.current ? "you" : "yours") : actor.picked ? "the target" : "tap to pick as the target";
    const far = actor.distance === null || actor.distance === undefined ? "" : `, ${round1(actor.distance)} m away`;
    const g = svgElement("g", {
      class: classes.filter(Boolean).join(" "),
      transform: `translate(${round1(at.x)} ${round1(at.y)})`,
      "data-actor": actor.id,
      "aria-label": `${actor.id}${actor.down ? ` (${actor.down})` : ""}${far}: ${state}`,
    });
    if (pickable) {
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-pressed", String(Boolean(actor.picked)));
      g.addEventListener("click", () => this.onPick(actor.id));
      g.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        this.onPick(actor.id);
      });
    } else {
      g.setAttribute("role", "img");
    }
    // The whole tap target is hit-testable; the token drawn inside it is smaller.
    g.appendChild(svgElement("circle", { class: "tap", r: TAP_PX / 2 }));
    g.appendChild(svgElement("circle", { class: "token", r: TAP_PX / 4 }));
    if (actor.down) {
      const arm = TAP_PX / 4;
      g.appendChild(svgElement("path", { class: "down-mark", d: `M${-arm} ${-arm}L${arm} ${arm}M${-arm} ${arm}L${arm} ${-arm}` }));
    }
    const label = svgElement("text", { x: TAP_PX / 2 + 2, y: LABEL_PX / 3, "font-size": LABEL_PX, "aria-hidden": "true" });
    label.textContent = actor.id;
    g.appendChild(label);
    return g;
  }
}
