// Suppression zones on the scene, behind one adapter with two layers: Foundry v13's
// MeasuredTemplates (TemplateZoneLayer), and v14's Regions (RegionZoneLayer: v14 removed
// MeasuredTemplate). src/foundry-version.mjs picks the layer of the running Foundry.
//
// On v14 a zone is a Region of one shape, the service's own shape in canvas pixels: a circle
// (CircleShapeData: x, y, radius), or the triangle and Hard Life's area as a polygon
// (PolygonShapeData: points as a flat [x0, y0, x1, y1, ...]); visible to everyone
// (CONST.REGION_VISIBILITY.ALWAYS, 2: https://foundryvtt.com/api/v14/variables/CONST.REGION_VISIBILITY.html)
// and with no behaviours: who is inside, and must test, is the service's to say (a move's
// `scene` event names them in `must_test`), not the Region's.
// https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.RegionData.html,
// https://foundryvtt.com/api/v14/classes/foundry.data.CircleShapeData.html,
// https://foundryvtt.com/api/v14/classes/foundry.data.PolygonShapeData.html
//
// On v13:
// A triangle zone (sr5) becomes a cone template: its origin, the direction to the middle of the
// far edge, that length as `distance`, and the angle the far edge subtends. With the core
// setting "Cone Template Type" at "flat" Foundry draws it as exactly that triangle (v12
// MeasuredTemplate.getConeShape divides the distance by cos(angle/2) for flat cones); with
// "round" it is the circular sector of that length. A circle zone (d100) becomes a circle
// template of its radius. A polygon zone (Hard Life's suppressed area) has no template shape: it
// becomes a polygon Drawing (DrawingDocument shape type "p", its points relative to x, y).

import { toCanvasPoint, sceneScale } from "./geometry.mjs";

export const MODULE_ID = "firefight";
const ZONE_COLOR = "#d4402a";

/** MeasuredTemplate creation data for a zone; `grid` is the scene's BaseGrid. */
export function zoneToTemplateData(zone, grid, { encounter = null, color = ZONE_COLOR, user = null } = {}) {
  const { unitsPerPixel } = sceneScale(grid);
  const flags = { [MODULE_ID]: { zoneId: zone.id, encounter, shooter: zone.shooter, hits: zone.hits } };
  const common = { fillColor: color, borderColor: color, flags, ...(user ? { user } : {}) };
  if (zone.shape === "circle") {
    if (!zone.center || !(zone.radius_m >= 0)) throw new Error(`zone ${zone.id}: a circle needs a center and a radius`);
    const center = toCanvasPoint(zone.center, grid);
    const radiusPx = zone.radius_m / sceneScale(grid).metresPerPixel;
    return { t: "circle", x: center.x, y: center.y, distance: radiusPx * unitsPerPixel, direction: 0, angle: 0, ...common };
  }
  if (zone.shape === "triangle") {
    if (!Array.isArray(zone.points) || zone.points.length !== 3) throw new Error(`zone ${zone.id}: a triangle needs three points`);
    // The service lists the origin first, then the two far corners (service/rules/geometry.py).
    const [origin, left, right] = zone.points.map((p) => toCanvasPoint(p, grid));
    const mid = { x: (left.x + right.x) / 2, y: (left.y + right.y) / 2 };
    const lengthPx = Math.hypot(mid.x - origin.x, mid.y - origin.y);
    const halfWidthPx = Math.hypot(right.x - left.x, right.y - left.y) / 2;
    // Canvas angles: degrees clockwise from +x, y pointing down.
    const direction = normaliseDeg((Math.atan2(mid.y - origin.y, mid.x - origin.x) * 180) / Math.PI);
    const angle = (2 * Math.atan2(halfWidthPx, lengthPx) * 180) / Math.PI;
    return { t: "cone", x: origin.x, y: origin.y, distance: lengthPx * unitsPerPixel, direction, angle, ...common };
  }
  throw new Error(`zone ${zone.id}: unknown shape "${zone.shape}"`);
}

/** Drawing creation data for a polygon zone (Hard Life's suppression fire over an area). */
export function zoneToDrawingData(zone, grid, { encounter = null, color = ZONE_COLOR, user = null } = {}) {
  if (zone.shape !== "polygon" || !Array.isArray(zone.points) || zone.points.length < 3) throw new Error(`zone ${zone.id}: a polygon needs three points or more`);
  const corners = zone.points.map((p) => toCanvasPoint(p, grid));
  const x = Math.min(...corners.map((c) => c.x));
  const y = Math.min(...corners.map((c) => c.y));
  const points = corners.flatMap((c) => [c.x - x, c.y - y]);
  // Closed: the first corner again at the end, as Foundry's polygon tool draws it.
  points.push(points[0], points[1]);
  return {
    x, y,
    shape: { type: "p", width: Math.max(...corners.map((c) => c.x)) - x, height: Math.max(...corners.map((c) => c.y)) - y, points },
    fillType: 1, fillColor: color, fillAlpha: 0.2, strokeColor: color, strokeWidth: 4, strokeAlpha: 0.9,
    text: zone.id,
    flags: { [MODULE_ID]: { zoneId: zone.id, encounter, shooter: zone.shooter, hits: zone.hits } },
    ...(user ? { author: user } : {}),
  };
}

function normaliseDeg(deg) {
  const d = deg % 360;
  return Math.round((d < 0 ? d + 360 : d) * 1000) / 1000;
}

/** CONST.REGION_VISIBILITY.ALWAYS (v13 and v14): a zone is seen by everyone. */
const REGION_VISIBLE_TO_ALL = 2;

/** Region creation data for a zone (v14): the service's shape, in canvas pixels. */
export function zoneToRegionData(zone, grid, { encounter = null, color = ZONE_COLOR } = {}) {
  let shape;
  if (zone.shape === "circle") {
    if (!zone.center || !(zone.radius_m >= 0)) throw new Error(`zone ${zone.id}: a circle needs a center and a radius`);
    const center = toCanvasPoint(zone.center, grid);
    shape = { type: "circle", x: center.x + 0, y: center.y + 0, radius: zone.radius_m / sceneScale(grid).metresPerPixel };
  } else if (zone.shape === "triangle" || zone.shape === "polygon") {
    const triangle = zone.shape === "triangle";
    const enough = Array.isArray(zone.points) && (triangle ? zone.points.length === 3 : zone.points.length >= 3);
    if (!enough) throw new Error(`zone ${zone.id}: a ${zone.shape} needs ${triangle ? "three points" : "three points or more"}`);
    // (+ 0: the canvas's y of a point on the x axis is -0, which is 0.)
    shape = { type: "polygon", points: zone.points.map((p) => toCanvasPoint(p, grid)).flatMap((c) => [c.x + 0, c.y + 0]) };
  } else {
    throw new Error(`zone ${zone.id}: unknown shape "${zone.shape}"`);
  }
  return {
    name: zone.id,
    color,
    shapes: [shape],
    visibility: REGION_VISIBLE_TO_ALL,
    flags: { [MODULE_ID]: { zoneId: zone.id, encounter, shooter: zone.shooter, hits: zone.hits } },
  };
}

/** The zone id a template was drawn for, or null for templates firefight did not draw. */
export function zoneIdOf(templateDocument) {
  return templateDocument?.flags?.[MODULE_ID]?.zoneId ?? templateDocument?.getFlag?.(MODULE_ID, "zoneId") ?? null;
}

/**
 * Draws and erases zones on one scene through its embedded MeasuredTemplates
 * (Scene#createEmbeddedDocuments / deleteEmbeddedDocuments, Scene#templates).
 */
export class TemplateZoneLayer {
  constructor(scene, { encounter = null, user = null, grid = null } = {}) {
    this.scene = scene;
    // The scene's BaseGrid: canvas.grid for the viewed scene (v12+); Scene#grid otherwise.
    this.grid = grid ?? scene.grid;
    this.encounter = encounter;
    this.user = user;
  }

  /** Templates (and polygon Drawings) already drawn, by zone id. */
  drawn() {
    const byZone = new Map();
    for (const template of [...(this.scene.templates ?? []), ...(this.scene.drawings ?? [])]) {
      const id = zoneIdOf(template);
      if (id && (!this.encounter || (template.flags?.[MODULE_ID]?.encounter ?? null) === this.encounter)) byZone.set(id, template);
    }
    return byZone;
  }

  /** Apply one event's zone changes: draw what started (once), erase what ended. */
  async apply({ zones_started: started = [], zones_ended: ended = [] }) {
    const drawn = this.drawn();
    const toDraw = started.filter((zone) => !drawn.has(zone.id) && !ended.includes(zone.id));
    const toErase = ended.filter((id) => drawn.has(id)).map((id) => drawn.get(id).id);
    const options = { encounter: this.encounter, user: this.user };
    const templates = toDraw.filter((zone) => zone.shape !== "polygon");
    const polygons = toDraw.filter((zone) => zone.shape === "polygon");
    if (templates.length > 0) await this.scene.createEmbeddedDocuments("MeasuredTemplate", templates.map((zone) => zoneToTemplateData(zone, this.grid, options)));
    if (polygons.length > 0) await this.scene.createEmbeddedDocuments("Drawing", polygons.map((zone) => zoneToDrawingData(zone, this.grid, options)));
    const drawings = new Set([...(this.scene.drawings ?? [])].map((d) => d.id));
    const erasedDrawings = toErase.filter((id) => drawings.has(id));
    const erasedTemplates = toErase.filter((id) => !drawings.has(id));
    if (erasedTemplates.length > 0) await this.scene.deleteEmbeddedDocuments("MeasuredTemplate", erasedTemplates);
    if (erasedDrawings.length > 0) await this.scene.deleteEmbeddedDocuments("Drawing", erasedDrawings);
    return { drawn: toDraw.map((z) => z.id), erased: ended.filter((id) => drawn.has(id)) };
  }
}

/**
 * Draws and erases zones on one scene through its embedded Regions (v14: Scene#regions,
 * createEmbeddedDocuments("Region") / deleteEmbeddedDocuments("Region")).
 */
export class RegionZoneLayer {
  constructor(scene, { encounter = null, grid = null } = {}) {
    this.scene = scene;
    this.grid = grid ?? scene.grid;
    this.encounter = encounter;
  }

  /** Regions already drawn for this encounter, by zone id. */
  drawn() {
    const byZone = new Map();
    for (const region of this.scene.regions ?? []) {
      const id = zoneIdOf(region);
      if (id && (!this.encounter || (region.flags?.[MODULE_ID]?.encounter ?? null) === this.encounter)) byZone.set(id, region);
    }
    return byZone;
  }

  /** Apply one event's zone changes: draw what started (once), erase what ended. */
  async apply({ zones_started: started = [], zones_ended: ended = [] }) {
    const drawn = this.drawn();
    const toDraw = started.filter((zone) => !drawn.has(zone.id) && !ended.includes(zone.id));
    const erased = ended.filter((id) => drawn.has(id));
    if (toDraw.length > 0) await this.scene.createEmbeddedDocuments("Region", toDraw.map((zone) => zoneToRegionData(zone, this.grid, { encounter: this.encounter })));
    if (erased.length > 0) await this.scene.deleteEmbeddedDocuments("Region", erased.map((id) => drawn.get(id).id));
    return { drawn: toDraw.map((z) => z.id), erased };
  }
}
