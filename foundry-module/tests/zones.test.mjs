// Suppression zones as measured templates (v13) and regions (v14).

import { test } from "node:test";
import assert from "node:assert/strict";
import { core, fixture, GRID_DIAGONALS, makeGame, makeGrid, makeScene } from "./foundry-stubs.mjs";
import { RegionZoneLayer, TemplateZoneLayer, zoneToRegionData, zoneToTemplateData, zoneIdOf } from "../src/zones.mjs";
import { zoneLayer } from "../src/foundry-version.mjs";
import { toCanvasPoint, toScenePoint, measureMetres, metresPerUnit, sceneScale, bearingDeg } from "../src/geometry.mjs";

const close = (a, b, eps = 1e-6) => assert.ok(Math.abs(a - b) < eps, `${a} ≈ ${b}`);

test("scene pixels and metres: grid size and distance, feet converted, y flipped", () => {
  const grid = makeGrid({ size: 100, distance: 2, units: "m" });
  assert.deepEqual(toScenePoint({ x: 500, y: 300 }, grid), { x: 10, y: -6 });
  assert.deepEqual(toCanvasPoint({ x: 10, y: -6 }, grid), { x: 500, y: 300 });
  assert.equal(measureMetres(grid, { x: 0, y: 0 }, { x: 300, y: 400 }), 10);
  const feet = makeGrid({ size: 140, distance: 5, units: "ft" });
  close(sceneScale(feet).metresPerPixel, (5 * 0.3048) / 140);
  assert.equal(measureMetres(feet, { x: 0, y: 0 }, { x: 1400, y: 0 }), 15.24);
  assert.deepEqual(metresPerUnit("parsecs"), { factor: 1, known: false });
  assert.equal(bearingDeg({ x: 0, y: 0 }, { x: 0, y: 5 }), 90);
  assert.throws(() => sceneScale({ size: 0, distance: 1 }), /no grid/);
});

test("distances are straight-line metres between token centres, whatever the grid's diagonal rule", () => {
  // 3 spaces right and 4 down on a 1.5 m grid: a square grid counts 4 spaces (equidistant), 5
  // (1/2/1: 4 + 1 for the second diagonal) or 4 + 3 x 0.414 (exact); the rules want 7.5 m.
  const expected = { EQUIDISTANT: 6, ALTERNATING_1: 7.5, ALTERNATING_2: 9, EXACT: 6 + 3 * (Math.SQRT2 - 1) * 1.5 };
  for (const [rule, gridMetres] of Object.entries(expected)) {
    const grid = makeGrid({ size: 100, distance: 1.5, units: "m", diagonals: GRID_DIAGONALS[rule] });
    close(grid.measurePath([{ x: 50, y: 50 }, { x: 350, y: 450 }]).distance, gridMetres);
    assert.equal(measureMetres(grid, { x: 50, y: 50 }, { x: 350, y: 450 }), 7.5, rule);
  }
  // A long diagonal, where every rule but the exact one is far off: 30 spaces each way on a 5 ft grid.
  const feet = makeGrid({ size: 100, distance: 5, units: "ft", diagonals: GRID_DIAGONALS.ALTERNATING_1 });
  close(feet.measurePath([{ x: 0, y: 0 }, { x: 3000, y: 3000 }]).distance, 225);
  assert.equal(measureMetres(feet, { x: 0, y: 0 }, { x: 3000, y: 3000 }), Math.round(Math.hypot(150, 150) * 0.3048 * 1000) / 1000);
});

test("an SR5 triangle is a cone from the shooter along the zone, as long and as wide", () => {
  const event = fixture("sr5-suppressive-event.json");
  const zone = event.zones_started[0];
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const data = zoneToTemplateData(zone, grid, { encounter: "enc" });
  assert.equal(data.t, "cone");
  close(data.x, 0);
  close(data.y, 0);
  // The request: 30 degrees counter-clockwise, 40 m long, 10 m wide at its end. On the canvas y
  // points down, so the direction is -30 (330) degrees clockwise.
  close(data.distance, 40, 1e-6);
  close(data.direction, 330, 1e-3);
  close(data.angle, (2 * Math.atan2(5, 40) * 180) / Math.PI, 1e-6);
  assert.equal(zoneIdOf(data), "zone-1");
  assert.equal(data.flags.firefight.encounter, "enc");
});

test("a d100 circle is a circle template of its radius in scene units", () => {
  const grid = makeGrid({ size: 50, distance: 5, units: "ft" });
  const zone = { id: "zone-2", shooter: "vex", shape: "circle", hits: 2, penalty: -20, kind: "suppressive fire", lasts: "x", center: { x: 15.24, y: -3.048 }, radius_m: 10 };
  const data = zoneToTemplateData(zone, grid);
  assert.equal(data.t, "circle");
  close(data.x, 500);
  close(data.y, 100);
  close(data.distance, 10 / 0.3048);
  assert.throws(() => zoneToTemplateData({ ...zone, center: null }, grid), /center/);
  assert.throws(() => zoneToTemplateData({ ...zone, shape: "square" }, grid), /unknown shape/);
});

test("v14 regions: a circle of the zone's radius, a triangle or an area as the service's polygon, in canvas pixels", () => {
  // 5 ft a space of 50 px: 0.03048 m a pixel. The centre (15.24, -3.048) m is (500, 100) px, 10 m are 328.084 px.
  const feet = makeGrid({ size: 50, distance: 5, units: "ft" });
  const circle = { id: "zone-2", shooter: "vex", shape: "circle", hits: 2, center: { x: 15.24, y: -3.048 }, radius_m: 10 };
  const data = zoneToRegionData(circle, feet, { encounter: "enc" });
  const [shape] = data.shapes;
  assert.deepEqual([shape.type, Math.round(shape.x * 1000) / 1000, Math.round(shape.y * 1000) / 1000], ["circle", 500, 100]);
  close(shape.radius, 328.084, 1e-3);
  assert.equal(data.visibility, 2, "CONST.REGION_VISIBILITY.ALWAYS");
  assert.equal(data.behaviors, undefined, "who is inside is the service's to say");
  assert.deepEqual(data.flags.firefight, { zoneId: "zone-2", encounter: "enc", shooter: "vex", hits: 2 });
  // Hard Life's area "10 -3; 16 -3; 16 3; 10 3" on 2 m a space of 100 px (50 px a metre, y down).
  const metres = makeGrid({ size: 100, distance: 2, units: "m" });
  const area = { id: "zone-3", shape: "polygon", points: [{ x: 10, y: -3 }, { x: 16, y: -3 }, { x: 16, y: 3 }, { x: 10, y: 3 }] };
  assert.deepEqual(zoneToRegionData(area, metres).shapes, [{ type: "polygon", points: [500, 150, 800, 150, 800, -150, 500, -150] }]);
  // The SR5 triangle as it is, not a cone: its three corners.
  const [triangle] = zoneToRegionData(fixture("sr5-suppressive-event.json").zones_started[0], metres).shapes;
  assert.deepEqual(triangle.points.map((v) => Math.round(v * 1000) / 1000), [0, 0, 1607.051, -1216.506, 1857.051, -783.494]);
  assert.throws(() => zoneToRegionData({ ...area, points: area.points.slice(0, 2) }, metres), /three points or more/);
  assert.throws(() => zoneToRegionData({ ...circle, shape: "square" }, feet), /unknown shape/);
});

test("the running Foundry's layer: regions on v14 (which has no MeasuredTemplate), templates on v13", async () => {
  const game = makeGame();
  const scene = makeScene({ grid: makeGrid() });
  const layer = zoneLayer(game, scene, { encounter: "enc" });
  assert.ok(core().generation >= 14 ? layer instanceof RegionZoneLayer : layer instanceof TemplateZoneLayer);
  const event = fixture("sr5-suppressive-event.json");
  assert.deepEqual(await layer.apply(event), { drawn: ["zone-1"], erased: [] });
  assert.deepEqual(await layer.apply(event), { drawn: [], erased: [] }, "drawn once");
  assert.equal((core().generation >= 14 ? scene.regions : scene.templates).size, 1);
  assert.deepEqual(await layer.apply({ zones_ended: ["zone-1"] }), { drawn: [], erased: ["zone-1"] });
  assert.equal(scene.regions.size + scene.templates.size, 0);
  if (core().generation >= 14) await assert.rejects(new TemplateZoneLayer(scene).apply(event), /MeasuredTemplate is not a valid embedded Document type/);
});

test("the region layer leaves other encounters' regions and the GM's own alone", async () => {
  const scene = makeScene({ grid: makeGrid() });
  const layer = new RegionZoneLayer(scene, { encounter: "enc" });
  await scene.createEmbeddedDocuments("Region", [
    { name: "other", shapes: [{ type: "circle", x: 0, y: 0, radius: 10 }], flags: { firefight: { zoneId: "zone-1", encounter: "other" } } },
    { name: "a trap", shapes: [{ type: "circle", x: 0, y: 0, radius: 10 }], flags: {} },
  ]);
  const event = fixture("sr5-suppressive-event.json");
  assert.deepEqual(await layer.apply(event), { drawn: ["zone-1"], erased: [] });
  assert.deepEqual(await layer.apply({ zones_ended: ["zone-1", "zone-9"] }), { drawn: [], erased: ["zone-1"] });
  assert.deepEqual([...scene.regions].map((r) => r.name).sort(), ["a trap", "other"]);
});

// The template layer is v13's alone: v14 has no MeasuredTemplate, so the v14 run does not hold
// this test (the test above checks that v14 refuses one).
const onV13 = core().generation < 14 ? test : () => {};
onV13("the template layer draws each started zone once and erases ended ones", async () => {
  const scene = makeScene({ grid: makeGrid() });
  const layer = new TemplateZoneLayer(scene, { encounter: "enc" });
  const event = fixture("sr5-suppressive-event.json");
  assert.deepEqual(await layer.apply(event), { drawn: ["zone-1"], erased: [] });
  assert.deepEqual(await layer.apply(event), { drawn: [], erased: [] });
  assert.equal(scene.templates.size, 1);
  // A template of another encounter, or a player's own, is left alone.
  await scene.createEmbeddedDocuments("MeasuredTemplate", [{ t: "circle", flags: { firefight: { zoneId: "zone-1", encounter: "other" } } }, { t: "ray", flags: {} }]);
  assert.deepEqual(await layer.apply({ zones_ended: ["zone-1", "zone-9"] }), { drawn: [], erased: ["zone-1"] });
  assert.equal(scene.templates.size, 2);
  assert.ok([...scene.templates].every((t) => t.flags.firefight?.encounter !== "enc"));
});
