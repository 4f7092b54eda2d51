// Hard Life results (kinds "sr3_hardlife_attack" and "sr3_hardlife_zone_test", and a move into
// a suppression zone) as card data: where each round landed on the body map, what the armour
// did, the wounds, knock-back and recovery.

import { attackHeader, dieRows, signed, targetHeader, TRACK_LABEL } from "./card-frame.mjs";
import { sr3Test } from "./sr3-card.mjs";

const words = (text) => String(text ?? "").replaceAll("_", " ");

function hlKnockBack(kind, metres) {
  return { kind, metres, label: `FIREFIGHT.HL.KnockBack.${kind}`, moved: kind !== "none" };
}

/** Where each round went (HLRound): its TN and successes, the scatter, the location it landed on. */
function hlRound(r) {
  const s = r.scatter;
  return {
    round: r.round,
    targetNumber: r.target_number,
    successes: r.successes,
    outcome: r.outcome,
    outcomeLabel: `FIREFIGHT.Outcome.${r.outcome}`,
    scattered: Boolean(s?.hexes),
    hexes: s?.hexes ?? 0,
    direction: s?.direction ?? null,
    landed: s ? `${s.landed.q},${s.landed.r}` : null,
    location: r.location,
    locationLabel: r.location ? `FIREFIGHT.HL.Location.${r.location}` : null,
  };
}

/** Everything the rounds that reached one location did there (HLLocationHit). */
function hlLocation(hit) {
  return {
    location: hit.location,
    label: `FIREFIGHT.HL.Location.${hit.location}`,
    rounds: hit.rounds.join(", "),
    armor: hit.armor.map((a) => ({
      rounds: a.rounds.join(", "),
      armor: a.armor,
      armorLabel: `FIREFIGHT.SR3.Armor.${a.armor}`,
      armorPiercing: a.armor_piercing,
      rating: a.rating,
      dermalDice: a.dermal_dice,
      test: sr3Test(a.test),
      lacing: sr3Test(a.lacing),
      soak: a.soak,
      stopped: a.stopped,
      resultLabel: a.stopped ? "FIREFIGHT.HL.Stopped" : "FIREFIGHT.HL.Penetrated",
      degraded: a.degraded,
      ratingAfter: a.rating_after,
    })),
    damage: hit.damage.map((d) => ({
      round: d.round, dice: d.dice, accuracy: signed(d.accuracy.value), accuracySource: d.accuracy.source,
      totals: d.totals.join(", "), successes: d.successes, ones: d.ones, sixes: d.sixes,
      armorSuccesses: d.armor_successes, net: d.net, stages: signed(d.stages), level: d.level, overflow: d.overflow,
    })),
    stun: hit.stun
      ? {
          power: hit.stun.power, baseLevel: hit.stun.base_level, resist: sr3Test(hit.stun.resist), level: hit.stun.level,
          knockBack: hlKnockBack(hit.stun.knock_back, hit.stun.metres),
        }
      : null,
    wounds: hit.wounds.map((w) => ({
      monitor: w.monitor, monitorLabel: w.monitor === "trauma" ? "FIREFIGHT.HL.Trauma" : `FIREFIGHT.HL.Location.${w.monitor}`,
      track: w.track, trackLabel: TRACK_LABEL[w.track] ?? w.track, modifier: signed(w.modifier), level: w.level,
      boxes: w.boxes, boxesNow: w.boxes_now, levelNow: w.level_now,
    })),
  };
}

const SQRT3 = Math.sqrt(3);
// A hex's centre (schemas/sr3hl.py, BodyHex: x = 1.5 q, y = sqrt(3) (r + q / 2)), for hexes off
// the body too.
const hexCentre = (h) => ({ x: 1.5 * h.q, y: SQRT3 * (h.r + h.q / 2) });
const fixed = (n) => Math.round(n * 1000) / 1000;

// How the body map is drawn. The SVG is shown as an image (below), which the page's stylesheet
// does not reach: it carries its own.
const BODY_MAP_STYLE = [
  ".firefight-hl-hex{fill:#d8d5c8;stroke:#7a7971;stroke-width:0.06}",
  ".firefight-hl-hex--hit{fill:#b04a3c}",
  ".firefight-hl-path polyline{fill:none;stroke:#191813;stroke-width:0.12}",
  ".firefight-hl-path circle{fill:none;stroke:#191813;stroke-width:0.14}",
  ".firefight-hl-path circle.firefight-hl-off-body{stroke-dasharray:0.2 0.12}",
].join("");

const xml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The body map as a data: URL of its SVG, for an <img>. Foundry cleans a chat message's HTML and
 * `svg` is not among the tags it allows (CONST.ALLOWED_HTML_TAGS,
 * https://foundryvtt.com/api/v14/variables/CONST.ALLOWED_HTML_TAGS.html, and v13's
 * https://foundryvtt.com/api/variables/CONST.ALLOWED_HTML_TAGS.html), so an inline map would be
 * cleaned away; `img` is allowed with `src` and `alt` (CONST.ALLOWED_HTML_ATTRIBUTES), and a
 * `src` keeps a `data` URL (CONST.ALLOWED_URL_SCHEMES, CONST.ALLOWED_URL_SCHEMES_APPLIED_TO_ATTRIBUTES).
 * The SVG is percent-encoded (no quote or angle bracket is left in the attribute).
 */
function bodyMapSrc({ viewBox, hexes, paths }) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${xml(viewBox)}"><style>${BODY_MAP_STYLE}</style>`
    + hexes.map((h) => `<polygon class="firefight-hl-hex${h.hit ? " firefight-hl-hex--hit" : ""}" data-location="${xml(h.location)}" points="${h.points}"></polygon>`).join("")
    + paths.map((p) => `<g class="firefight-hl-path" data-round="${xml(p.round)}"><polyline points="${p.points}"></polyline><circle class="${p.offBody ? "firefight-hl-off-body" : ""}" cx="${p.cx}" cy="${p.cy}" r="0.45"></circle></g>`).join("")
    + "</svg>";
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * The body map the service serves (GET /v1/rulesets/sr3-hardlife, `body_map`) as a small SVG:
 * each hex's polygon (marked when a round hit its location), each round's path from its aim
 * point through the hexes it scattered, and where it landed; `src` is the drawing as a data: URL
 * for the card's <img>. Null without a body map.
 */
export function hlBodyMapSvg(bodyMap, rounds) {
  if (!bodyMap?.hexes?.length) return null;
  const struck = new Set(rounds.map((r) => r.location).filter(Boolean));
  const scattered = rounds.filter((r) => r.scatter);
  const all = [...bodyMap.hexes, ...scattered.flatMap((r) => [r.scatter.aim, ...r.scatter.path].map(hexCentre))];
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const minX = Math.min(...xs) - 1.2;
  const minY = Math.min(...ys) - 1.2;
  const corners = ({ x, y }) => [0, 1, 2, 3, 4, 5].map((k) => `${fixed(x + 0.95 * Math.cos((Math.PI / 3) * k))},${fixed(y + 0.95 * Math.sin((Math.PI / 3) * k))}`).join(" ");
  const map = {
    viewBox: `${fixed(minX)} ${fixed(minY)} ${fixed(Math.max(...xs) + 1.2 - minX)} ${fixed(Math.max(...ys) + 1.2 - minY)}`,
    hexes: bodyMap.hexes.map((h) => ({ location: h.location, points: corners(h), hit: struck.has(h.location) })),
    paths: scattered.map((r) => {
      const points = [r.scatter.aim, ...r.scatter.path].map(hexCentre);
      const end = hexCentre(r.scatter.landed);
      return {
        round: r.round,
        points: points.map((p) => `${fixed(p.x)},${fixed(p.y)}`).join(" "),
        cx: fixed(end.x), cy: fixed(end.y), offBody: !r.scatter.location,
      };
    }),
  };
  return { ...map, src: bodyMapSrc(map) };
}

/** One Hard Life target (HLTargetResult): its tests, each round, each location hit, the recovery roll. */
function hlTarget(t, nameOf, bodyMap = null) {
  const c = t.condition ?? {};
  return {
    ...targetHeader(t, nameOf),
    hit: t.hits.length > 0,
    hl: {
      aim: t.aim,
      aimLabel: `FIREFIGHT.HL.Location.${t.aim}`,
      attackSuccesses: t.attack_successes,
      dodge: sr3Test(t.dodge),
      dodgeSuccesses: t.dodge_successes,
      netSuccesses: t.net_successes,
      rounds: t.rounds.map(hlRound),
      bodyMap: hlBodyMapSvg(bodyMap, t.rounds),
      locations: t.hits.map(hlLocation),
      knockBack: hlKnockBack(t.knock_back, t.knock_back_m),
      recovery: t.recovery
        ? { level: t.recovery.level, needed: t.recovery.needed, test: sr3Test(t.recovery.test), passed: t.recovery.passed, label: t.recovery.passed ? "FIREFIGHT.HL.Recovered" : "FIREFIGHT.HL.LosesAction" }
        : null,
      condition: {
        targetNumber: signed(c.target_number_modifier ?? 0),
        initiative: signed(c.initiative_modifier ?? 0),
        deadly: Boolean(c.deadly),
        dead: Boolean(c.dead),
        disabled: (c.disabled ?? []).map(words).join(", "),
        crippled: (c.crippled ?? []).map(words).join(", "),
      },
    },
    canSecondChance: false,
  };
}

function hlPools(pools, nameOf) {
  return pools.map((p) => ({ actor: p.actor, name: nameOf(p.actor), pool: p.pool, poolLabel: `FIREFIGHT.HL.Pool.${p.pool}`, spent: p.spent, left: p.left }));
}

/** A Hard Life attack result (kind "sr3_hardlife_attack") as card data: where each round landed, what the armour did, the wounds, knock-back and recovery. */
export function hlAttackCard(result, { nameOf = (id) => id, title = null, bodyMap = null } = {}) {
  const s = result.suppression;
  return {
    ...attackHeader("sr3hl", result, nameOf, title),
    mode: result.mode,
    modeLabel: `FIREFIGHT.Mode.${result.mode}`,
    action: result.action,
    roundsFired: result.rounds_fired,
    ammoLeft: result.ammo_left,
    attackTest: sr3Test(result.attack),
    targets: result.target ? [hlTarget(result.target, nameOf, bodyMap)] : [],
    suppression: s ? { id: s.zone.id, bulletsPerM2: s.bullets_per_m2, area: s.area_m2, lasts: s.zone.lasts } : null,
    combatPool: hlPools(result.combat_pool, nameOf),
    dice: dieRows(result.dice, "sr3"),
    seed: result.seed,
  };
}

/**
 * A move into (or in) a Hard Life suppression zone (a scene event whose `must_test` names the
 * zones): a card with each zone's Zone test button for that actor (004: anyone entering or
 * moving in the area suffers its attack).
 */
export function zonePromptCard(result, { nameOf = (id) => id } = {}) {
  return {
    ruleset: "sr3hl",
    kind: "zone_prompt",
    title: "FIREFIGHT.HL.MustTestTitle",
    actor: result.actor,
    actorName: nameOf(result.actor),
    zonePrompts: result.must_test.map((zone) => ({ zone, actor: result.actor })),
    targets: [],
    dice: [],
  };
}

/** A Hard Life zone test (kind "sr3_hardlife_zone_test"): the zone's Table 9 attack, then the rounds that hit as an attack's. */
export function hlZoneTestCard(result, { nameOf = (id) => id, bodyMap = null } = {}) {
  return {
    ruleset: "sr3hl",
    sr3hl: true,
    kind: "zone_test",
    title: "FIREFIGHT.Card.ZoneTest",
    actor: result.actor,
    actorName: nameOf(result.actor),
    zone: result.zone,
    attackTest: sr3Test(result.attack),
    targets: [hlTarget(result.target, nameOf, bodyMap)],
    combatPool: hlPools(result.combat_pool, nameOf),
    dice: dieRows(result.dice, "sr3"),
    seed: result.seed,
  };
}
