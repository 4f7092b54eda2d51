// Hard Life's body map (GET /v1/rulesets/sr3-hardlife, `body_map`): flat-topped hexes in axial
// coordinates, drawn as the service lays them out. Used by the called-shot picker and by the
// result's scatter paths. The figure faces the reader: its right arm is on the viewer's left.

const SVG = "http://www.w3.org/2000/svg";
const SQRT3 = Math.sqrt(3);

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

export const words = (text) => String(text ?? "").replaceAll("_", " ");

// A hex's centre in hex sizes (schemas/sr3hl.py, BodyHex: x = 1.5 q, y = sqrt(3) (r + q / 2)),
// for hexes off the body too (where a round scattered off).
export const centre = (hex) => ({ x: 1.5 * hex.q, y: SQRT3 * (hex.r + hex.q / 2) });

function corners({ x, y }, size = 0.96) {
  return [0, 1, 2, 3, 4, 5].map((k) => {
    const angle = (Math.PI / 3) * k;
    return `${(x + size * Math.cos(angle)).toFixed(3)},${(y + size * Math.sin(angle)).toFixed(3)}`;
  }).join(" ");
}

const key = (hex) => `${hex.q},${hex.r}`;

// The hexes as an SVG. `hits`: location -> rounds that hit it (drawn marked); `picked`: the
// called shot's location; `rounds`: HLRound[] whose scatter paths and landing hexes are drawn;
// `onPick(location)`: each hex is a button (click, Enter or Space) that picks its location.
export function drawBodyMap(bodyMap, { hits = new Map(), picked = null, rounds = [], onPick = null, label = "Body map" } = {}) {
  const hexes = bodyMap?.hexes || [];
  const landed = rounds.filter((r) => r.scatter).map((r) => r.scatter);
  const all = [...hexes.map((h) => ({ x: h.x, y: h.y })), ...landed.flatMap((s) => [s.aim, ...s.path].map(centre))];
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const pad = 1.3;
  const minX = Math.min(0, ...xs) - pad;
  const minY = Math.min(0, ...ys) - pad;
  const width = Math.max(1, ...xs) + pad - minX;
  const height = Math.max(1, ...ys) + pad - minY;
  const svg = svgElement("svg", {
    class: "body-map", viewBox: `${minX.toFixed(2)} ${minY.toFixed(2)} ${width.toFixed(2)} ${height.toFixed(2)}`,
    role: onPick ? "group" : "img", "aria-label": label,
  });
  const layer = svgElement("g", { class: "hexes" });
  for (const hex of hexes) {
    const struck = hits.get(hex.location);
    const classes = ["hex", `loc-${hex.location}`];
    if (struck?.length) classes.push("hit");
    if (picked === hex.location) classes.push("picked");
    const g = svgElement("g", { class: classes.join(" "), "data-location": hex.location, "data-hex": key(hex) });
    g.appendChild(svgElement("polygon", { points: corners(hex) }));
    if (onPick) {
      Object.entries({ tabindex: 0, role: "button", "aria-label": `Called shot at the ${words(hex.location)} (hex ${key(hex)})` })
        .forEach(([k, v]) => g.setAttribute(k, v));
      if (picked === hex.location) g.setAttribute("aria-pressed", "true");
      g.addEventListener("click", () => onPick(hex.location));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          onPick(hex.location);
        }
      });
    } else {
      const title = svgElement("title");
      title.textContent = `${words(hex.location)}${struck?.length ? `: round ${struck.join(", ")}` : ""}`;
      g.appendChild(title);
    }
    layer.appendChild(g);
  }
  svg.appendChild(layer);
  // Each round's path: from its aim point through each hex it scattered, ringed where it landed.
  const paths = svgElement("g", { class: "scatter-paths", "aria-hidden": "true" });
  for (const round of rounds) {
    const s = round.scatter;
    if (!s) continue;
    const points = [s.aim, ...s.path].map(centre);
    const g = svgElement("g", { class: `round-path ${round.outcome}`, "data-round": round.round });
    const aim = points[0];
    g.appendChild(svgElement("path", { class: "aim", d: `M${aim.x - 0.4},${aim.y} h0.8 M${aim.x},${aim.y - 0.4} v0.8` }));
    if (points.length > 1) {
      g.appendChild(svgElement("polyline", { class: "path", points: points.map((p) => `${p.x.toFixed(3)},${p.y.toFixed(3)}`).join(" ") }));
    }
    const end = centre(s.landed);
    g.appendChild(svgElement("circle", { class: `landed${s.location ? "" : " off-body"}`, "data-landed": key(s.landed), cx: end.x.toFixed(3), cy: end.y.toFixed(3), r: 0.45 }));
    paths.appendChild(g);
  }
  // One label per hex landed on, naming every round that landed there ("1, 2, 3").
  const landedOn = new Map();
  for (const round of rounds.filter((r) => r.scatter)) {
    const at = key(round.scatter.landed);
    landedOn.set(at, { hex: round.scatter.landed, rounds: [...(landedOn.get(at)?.rounds || []), round.round] });
  }
  for (const [at, { hex, rounds: numbers }] of landedOn) {
    const end = centre(hex);
    const text = svgElement("text", { x: (end.x + 0.5).toFixed(3), y: (end.y - 0.4).toFixed(3), class: "round-label", "data-landed": at });
    text.textContent = numbers.join(", ");
    paths.appendChild(text);
  }
  svg.appendChild(paths);
  return svg;
}
