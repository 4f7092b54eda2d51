// Scene geometry for the service: Foundry measures in pixels and scene units, with y pointing down;
// firefight wants metres on the scene plane with y pointing up and angles counter-clockwise
// (docs/api.md, "Conventions"). Every conversion between the two lives here.

/** Metres in one scene unit, by the unit names Foundry scenes use (Scene#grid.units is free text). */
const METRES_PER_UNIT = new Map([
  ["m", 1], ["meter", 1], ["meters", 1], ["metre", 1], ["metres", 1],
  ["km", 1000], ["kilometer", 1000], ["kilometers", 1000], ["kilometre", 1000], ["kilometres", 1000],
  ["ft", 0.3048], ["ft.", 0.3048], ["foot", 0.3048], ["feet", 0.3048],
  ["yd", 0.9144], ["yard", 0.9144], ["yards", 0.9144],
  ["mi", 1609.344], ["mile", 1609.344], ["miles", 1609.344],
]);

/** Metres in one scene unit; a unit it does not know counts as metres (and `known` says so). */
export function metresPerUnit(units) {
  const key = String(units ?? "").trim().toLowerCase();
  if (key === "") return { factor: 1, known: false };
  const factor = METRES_PER_UNIT.get(key);
  return factor === undefined ? { factor: 1, known: false } : { factor, known: true };
}

/**
 * How a scene maps pixels to metres. `grid` is Foundry's BaseGrid (v12+: `size` pixels per
 * space, `distance` units per space, `units`).
 */
export function sceneScale(grid) {
  if (!grid || !(grid.size > 0) || !(grid.distance > 0)) {
    throw Object.assign(new Error("The scene has no grid size or distance: firefight cannot measure it."), { key: "noGrid", data: {} });
  }
  const { factor } = metresPerUnit(grid.units);
  return { metresPerPixel: (grid.distance * factor) / grid.size, unitsPerPixel: grid.distance / grid.size, metresPerUnit: factor };
}

/** A canvas point (pixels, y down) as a firefight point (metres, y up). */
export function toScenePoint(pixel, grid) {
  const { metresPerPixel } = sceneScale(grid);
  return { x: round(pixel.x * metresPerPixel), y: round(-pixel.y * metresPerPixel) };
}

/** A firefight point (metres, y up) as a canvas point (pixels, y down). */
export function toCanvasPoint(point, grid) {
  const { metresPerPixel } = sceneScale(grid);
  return { x: point.x / metresPerPixel, y: -point.y / metresPerPixel };
}

/**
 * Straight-line metres between two canvas points (token centres). Not the grid's measurePath:
 * a square grid counts a diagonal by the world's diagonal rule (one space, or 1/2/1), while the
 * service's ranges and zones are straight-line metres on the scene plane.
 */
export function measureMetres(grid, from, to) {
  const { metresPerPixel } = sceneScale(grid);
  return round(Math.hypot(to.x - from.x, to.y - from.y) * metresPerPixel);
}

/** The direction from one firefight point to another, degrees counter-clockwise from +x. */
export function bearingDeg(from, to) {
  return round((Math.atan2(to.y - from.y, to.x - from.x) * 180) / Math.PI);
}

export function distanceM(from, to) {
  return round(Math.hypot(to.x - from.x, to.y - from.y));
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}
