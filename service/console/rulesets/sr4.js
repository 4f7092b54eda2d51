// Shadowrun 4 (`sr4`): the attack form (schemas/sr4.py, SR4AttackRequest) with its bursts,
// chokes, two guns and grenades, and its result: the pool and each modifier with its source, the
// per-phase recoil, each target's tests and damage, a grenade's scatter and blast. The numbers
// are the service's: the form sends choices, the result shows what came back.

import { diceSection, el, facts, line, modifierTable, outcomeBadge, signed } from "../results.js";

// The rows of the weapon range table (schemas/sr4.py, WeaponCategory).
const CATEGORIES = [
  "hold_out_pistol", "light_pistol", "heavy_pistol", "smg", "taser", "shotgun", "sporting_rifle",
  "sniper_rifle", "assault_rifle", "light_machine_gun", "medium_machine_gun", "heavy_machine_gun",
  "assault_cannon", "grenade_launcher", "missile_launcher", "bow", "light_crossbow",
  "medium_crossbow", "heavy_crossbow", "thrown_knife", "shuriken", "standard_grenade", "aerodynamic_grenade",
];
const MODE_NAMES = {
  SS: "SS — single shot", SA: "SA — semi-automatic", BF: "SB — short burst",
  LB: "LB — long burst", FB: "FB — full burst (complex)", suppressive: "suppressive fire (a zone)",
};
const GRENADES = [["", "no grenade"], "fragmentation", "high_explosive", "flash_bang", "gas", "smoke", "thermal_smoke", "custom"];
const OBSCURANTS = ["none", "mist", "light_fog", "light_rain", "light_smoke", "heavy_fog", "heavy_rain", "heavy_smoke", "thermal_smoke"];
const ID = "[A-Za-z0-9_.:\\-]{1,64}";
// A d6 scores a hit on 5 or 6 (001, as SR5).
const HIT = 5;
const BURSTS = new Set(["BF", "LB", "FB"]);

// "wall: 14 -5 14 5 8/10 holds; door: ...": barriers, each an id, its two ends (x y x y), armor
// / structure and, when the GM says so, whether it holds or falls (else the blast tests it).
export function parseBarriers(text) {
  return text.split(";").map((part) => part.trim()).filter(Boolean).map((part) => {
    const match = /^([A-Za-z0-9_.:-]{1,64})\s*:\s*(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(\d+)\s*\/\s*(\d+)(?:\s+(holds|falls))?$/.exec(part);
    if (!match) throw new Error(`"${part}" is not "id: x1 y1 x2 y2 armor/structure [holds|falls]"`);
    const [, id, x1, y1, x2, y2, armor, structure, word] = match;
    const barrier = { id, start: { x: Number(x1), y: Number(y1) }, end: { x: Number(x2), y: Number(y2) }, armor: Number(armor), structure: Number(structure) };
    if (word) barrier.holds = word === "holds";
    return barrier;
  });
}

const formatBarriers = (barriers) => barriers.map((b) =>
  `${b.id}: ${b.start.x} ${b.start.y} ${b.end.x} ${b.end.y} ${b.armor}/${b.structure}${b.holds === undefined ? "" : b.holds ? " holds" : " falls"}`).join("; ");

const rating = (key, label, value, extra = {}) => ({ key, label, type: "int", min: 0, max: 30, value, ...extra });
const attribute = (key, label, value, extra = {}) => ({ key, label, type: "int", min: 1, max: 30, value, ...extra });

export default {
  id: "sr4",
  attacker: [
    { key: "id", label: "Attacker id", type: "text", value: "sam", pattern: ID },
    attribute("agility", "Agility", 5),
    rating("skill", "Weapon skill", 4),
    attribute("strength", "Strength", 3, { optional: true }),
    attribute("intuition", "Intuition (blind fire)", undefined, { optional: true }),
    rating("edge", "Edge", undefined, { optional: true }),
    { key: "wound_modifier", label: "Wound modifier", type: "int", min: -30, max: 0, value: 0 },
  ],
  weapon: [
    { key: "id", label: "Weapon id", type: "text", value: "predator", pattern: ID },
    { key: "category", label: "Category", type: "select", options: CATEGORIES, value: "heavy_pistol" },
    { key: "damage", label: "Damage (DV)", type: "int", min: 0, max: 100, value: 5 },
    { key: "damage_type", label: "Damage type", type: "select", options: [["P", "physical (P)"], ["S", "stun (S)"]] },
    { key: "ap", label: "AP", type: "int", min: -30, max: 30, value: -1 },
    rating("rc", "Recoil compensation (RC)", 0),
    rating("gyro", "Gyro-stabilisation", 0),
    { key: "modes", label: "Weapon modes", type: "choices", options: ["SS", "SA", "BF", "FA"], value: ["SA"] },
    { key: "ammo", label: "Rounds loaded", type: "int", min: 0, max: 10000, value: 15 },
    { key: "smartgun", label: "Smartgun", type: "checkbox" },
    { key: "laser_sight", label: "Laser sight", type: "checkbox" },
    { key: "choke", label: "Shotgun choke (shot)", type: "select", options: [["", "not loaded with shot"], "narrow", "medium", "wide"], optional: true },
    { key: "armor", label: "Armour it meets", type: "select", options: [["", "by its category"], "ballistic", "impact"], optional: true },
    { key: "contact_effect", label: "Contact effect", type: "text", optional: true, placeholder: "shock glove" },
  ],
  target: [
    attribute("defender.reaction", "Reaction", 3),
    attribute("defender.body", "Body", 4),
    rating("defender.dodge", "Dodge", 0),
    rating("defender.edge", "Edge", 0),
    rating("defender.ballistic_armor", "Ballistic armor", 6),
    rating("defender.impact_armor", "Impact armor", 4),
    { key: "cover", label: "Cover", type: "select", options: ["none", "partial", "good"] },
    { key: "prone", label: "Prone", type: "checkbox" },
    { key: "hidden", label: "Hidden (blind fire)", type: "checkbox" },
    { key: "called_shot", label: "Called shot", type: "checkbox" },
    { key: "edge", label: "Spends Edge on the defense", type: "checkbox" },
    { key: "gun", label: "Shot at with", type: "select", options: [["first", "the first gun"], ["second", "the second gun"]] },
  ],
  // The numbers an actor's sheet keeps on the scene (schemas/sr4.py, SR4Sheet).
  sheet: [
    attribute("agility", "Agility", undefined, { optional: true }),
    rating("skill", "Weapon skill", undefined, { optional: true }),
    attribute("strength", "Strength", undefined, { optional: true }),
    attribute("reaction", "Reaction", undefined, { optional: true }),
    attribute("intuition", "Intuition", undefined, { optional: true }),
    attribute("body", "Body", undefined, { optional: true }),
    // Sizes the stun track of the monitor the service keeps (8 + Willpower / 2).
    attribute("willpower", "Willpower", undefined, { optional: true }),
    rating("edge", "Edge", undefined, { optional: true }),
    rating("dodge", "Dodge", 0),
    rating("ballistic_armor", "Ballistic armor", 0),
    rating("impact_armor", "Impact armor", 0),
    { key: "wound_modifier", label: "Wound modifier", type: "int", min: -30, max: 0, value: 0 },
    { key: "initiative_passes", label: "Initiative Passes", type: "int", min: 1, max: 4, value: 1 },
  ],
  targetDefaults: { prefix: "goon" },
  options: [
    { key: "burst", label: "Burst", type: "select", options: [["narrow", "narrow (+DV)"], ["wide", "wide (−defense)"]] },
    { key: "ammo", label: "Ammunition", type: "select", options: ["regular", "apds", "explosive", "flechette", "gel", "hollow_point"] },
    { key: "smartlink", label: "Smartlink (with a smartgun)", type: "checkbox" },
    { key: "grazing", label: "Grazing hits (the GM's rule: a tie makes contact)", type: "checkbox" },
    { key: "edge", label: "Edge", type: "select", options: [["none", "none"], ["extra_dice", "extra dice (Edge, sixes again)"]] },
    { key: "running", label: "Attacker running", type: "checkbox" },
    { key: "in_melee", label: "Attacker in melee", type: "checkbox" },
    { key: "from_moving_vehicle", label: "From a moving vehicle", type: "checkbox" },
    { key: "from_cover", label: "Firing from cover", type: "checkbox" },
    { key: "off_hand", label: "Off hand", type: "checkbox" },
    { key: "same_phase", label: "Follows its last attack in this action phase", type: "checkbox" },
    { key: "visibility.vision", label: "Attacker's vision", type: "select", options: ["normal", "low_light", "thermographic", "ultrasound"] },
    { key: "visibility.light", label: "Light", type: "select", options: ["full", "partial", "full_darkness"] },
    { key: "visibility.glare", label: "Glare", type: "checkbox" },
    { key: "visibility.obscurant", label: "In the air", type: "select", options: OBSCURANTS },
    { key: "second.enabled", label: "A second gun, like the first, in the other hand", type: "checkbox" },
    rating("second.skill", "Second gun: its skill, when another", undefined, { optional: true }),
    { key: "first_gun_dice", label: "Two guns: dice to the first", type: "int", min: 0, max: 200, optional: true, help: "Empty: half, the larger half first." },
    { key: "grenade.type", label: "Grenade", type: "select", options: GRENADES, optional: true },
    { key: "grenade.delivery", label: "Grenade delivery", type: "select", options: [["standard", "thrown, standard"], ["aerodynamic", "thrown, aerodynamic"], ["launcher", "grenade launcher"]] },
    { key: "grenade.airburst", label: "Airburst link (goes off at once)", type: "checkbox" },
    { key: "grenade.at", label: "Grenade aimed at", type: "select", options: [["target", "the first target"], ["point", "the aim point on the map (click to move it)"]] },
    { key: "grenade.dv", label: "Grenade DV (empty: its table row)", type: "int", min: 0, max: 100, optional: true },
    { key: "grenade.damage_type", label: "Grenade damage type", type: "select", options: [["", "its table row"], "P", "S"], optional: true },
    { key: "grenade.ap", label: "Grenade AP (empty: its row)", type: "int", min: -30, max: 30, optional: true },
    { key: "grenade.falloff_per_m", label: "Grenade DV lost per metre (empty: its row)", type: "int", min: 0, max: 100, optional: true },
    { key: "grenade.radius_m", label: "Grenade even blast radius (m, empty: its row)", type: "number", min: 0, max: 1000, optional: true },
    { key: "grenade.scatter_dice", label: "Scatter dice (empty: the table's)", type: "int", min: 0, max: 20, optional: true },
    {
      key: "barriers", label: "Barriers (id: x1 y1 x2 y2 armor/structure [holds|falls]; …)", type: "text", optional: true,
      parse: parseBarriers, format: formatBarriers, placeholder: "wall: 14 -5 14 5 8/10 holds",
      help: "Drawn on the map; a barrier without holds/falls is tested by the blast.",
    },
    { key: "confined", label: "Confined space (walls that hold send the wave back)", type: "checkbox" },
  ],

  modes(info) {
    return (info?.firing_modes || Object.keys(MODE_NAMES)).map((mode) => [mode, MODE_NAMES[mode] || mode]);
  },
  defaultMode: "SA",
  isZoneMode: (mode) => mode === "suppressive",
  zoneHelp: "Suppressive fire covers a triangle from the attacker to the aim point (001); targets in cover or prone are sheltered.",
  aimsAtPoint: (options) => Boolean(options.grenade?.type) && options.grenade.at === "point",
  // The barriers typed in, drawn on the map before they are sent.
  showOptions(options, map) {
    map.setBarriers(options.barriers || []);
  },

  // `targets`: [{fields, id, distance_m, position}] as read from the form and the map.
  request({ attacker, weapon, mode, options, targets, attackerAt, aimAt }) {
    const { second = {}, grenade = {}, barriers, confined, burst, first_gun_dice: firstDice, ...rest } = options;
    const body = { ruleset: "sr4", attacker, weapon, mode, ...rest };
    if (BURSTS.has(mode)) body.burst = burst;
    if (second.enabled) {
      body.second_weapon = { ...weapon, id: `${weapon.id}-2` };
      if (second.skill !== undefined) body.second_skill = second.skill;
      if (firstDice !== undefined) body.first_gun_dice = firstDice;
    }
    if (mode === "suppressive") {
      const dx = aimAt.x - attackerAt.x;
      const dy = aimAt.y - attackerAt.y;
      const length = Math.hypot(dx, dy);
      if (length === 0) throw new Error("Put the aim point away from the attacker");
      body.zone = {
        origin: attackerAt,
        direction_deg: Math.round((Math.atan2(dy, dx) * 180) / Math.PI * 100) / 100,
        length_m: Math.round(length * 10) / 10,
      };
      // The other actors on the map are the bystanders; those in cover or prone are sheltered.
      body.bystanders = targets.map((t) => ({ id: t.id, position: t.position }));
      body.sheltered = targets.filter((t) => t.fields.cover !== "none" || t.fields.prone).map((t) => t.id);
      return body;
    }
    const shot = (t) => ({ id: t.id, distance_m: t.distance_m, ...t.fields });
    if (grenade.type) {
      const { at, ...thrown } = grenade;
      body.grenade = thrown;
      body.origin = attackerAt;
      if (barriers?.length) body.barriers = barriers;
      if (confined) body.confined = true;
      // Where the blast may reach: everyone on the form's map, with what they resist with.
      body.bystanders = targets.map((t) => ({
        id: t.id, position: t.position, body: t.fields.defender.body, impact_armor: t.fields.defender.impact_armor,
      }));
      if (at === "point") {
        body.aim_point = aimAt;
      } else {
        if (!targets.length) throw new Error("Aim the grenade at a target, or at the aim point");
        body.targets = [shot(targets[0])];
      }
      return body;
    }
    body.targets = targets.map(shot);
    if (targets.length > 1) {
      const apart = Math.max(...targets.flatMap((a) => targets.map((b) => Math.hypot(a.position.x - b.position.x, a.position.y - b.position.y))));
      body.targets_apart_m = Math.round(apart * 100) / 100;
    }
    return body;
  },

  // The steps an attack rolls (the service's dice_steps: one attack test, or one per target).
  diceSteps({ mode, targetIds, options }) {
    if (mode === "suppressive") return [{ step: "suppression", sides: 6 }];
    const grenade = options?.grenade?.type;
    const shot = grenade && options.grenade.at === "point" ? [] : grenade ? targetIds.slice(0, 1) : targetIds;
    const steps = [{ step: shot.length > 1 ? `attack:${shot[0]}` : "attack", sides: 6 }];
    if (shot.length > 1) steps.push(...shot.slice(1).map((id) => ({ step: `attack:${id}`, sides: 6 })));
    for (const id of shot) steps.push({ step: `defense:${id}`, sides: 6 });
    if (grenade) {
      steps.push({ step: "scatter_direction", sides: 6 }, { step: "scatter", sides: 6 });
      for (const id of targetIds) steps.push({ step: `soak:${id}`, sides: 6 });
    } else {
      for (const id of shot) steps.push({ step: `soak:${id}`, sides: 6 });
    }
    return steps;
  },

  // The rest of the round (schemas/sr4.py, SR4ActionRequest and SR4ZoneTestRequest).
  hasPasses: true,
  actions: {
    take_aim: [
      { key: "image_magnification", label: "Through image magnification", type: "checkbox" },
      { key: "target", label: "Locking onto", type: "actor", none: "no one", optional: true },
    ],
    reload: [
      { key: "weapon", label: "Weapon id", type: "text", value: "predator", pattern: ID },
      { key: "rounds", label: "Rounds in it after", type: "int", min: 0, max: 10000, optional: true },
    ],
    change_choke: [
      { key: "weapon", label: "Weapon id", type: "text", value: "shotgun", pattern: ID },
      { key: "choke", label: "Choke", type: "select", options: ["narrow", "medium", "wide"] },
      { key: "smartlinked", label: "Smartlinked (a free action)", type: "checkbox" },
    ],
    edge_reroll: [{ key: "target", label: "Re-roll the attack test on", type: "actor", none: "its only target", optional: true }],
  },
  actionHelp: {
    full_defense: "Reaction + Dodge against every attack until the actor's next action phase (001).",
    delay_action: "Holds the actor's action until later in the pass.",
  },
  actionRequest({ actor, action, fields }) {
    return { ruleset: "sr4", actor, action, ...fields };
  },
  zoneTest: [
    attribute("defender.reaction", "Reaction", 3),
    attribute("defender.body", "Body", 4),
    rating("defender.dodge", "Dodge", 0),
    rating("defender.edge", "Edge", 0),
    rating("defender.ballistic_armor", "Ballistic armor", 6),
    rating("defender.impact_armor", "Impact armor", 4),
    { key: "avoid", label: "Only", type: "select", options: [["none", "moves: tests"], ["take_cover", "takes cover"], ["drop_prone", "drops prone"]] },
  ],
  zoneTestRequest({ actor, fields }) {
    return { ruleset: "sr4", actor, ...fields };
  },
  zoneTestSteps({ actor }) {
    return [{ step: `zone_test:${actor}`, sides: 6 }, { step: `soak:${actor}`, sides: 6 }];
  },

  kinds: ["sr4_attack", "sr4_zone_test", "sr4_blast"],

  summary(result) {
    if (result.kind === "sr4_blast") return blastSummary(result);
    if (result.kind === "sr4_zone_test") {
      if (result.avoided) return `${result.actor} is not at risk in ${result.zone} (${result.avoided.replaceAll("_", " ")}).`;
      const damage = result.damage ? `, ${result.damage.boxes} ${result.damage.track} boxes` : "";
      return `${result.actor} tests against ${result.zone}: ${result.test.hits} hits of ${result.threshold}, ${result.hit ? "hit" : "safe"}${damage}.`;
    }
    if (result.zone) return `${result.attacker} lays ${result.zone.zone.id}: ${result.zone.suppression.hits} hits.`;
    const parts = result.targets.map((t) => (t.damage ? `${t.target} ${t.outcome}, ${t.damage.boxes} ${t.damage.track} boxes` : `${t.target} ${t.outcome}`));
    if (result.scatter) parts.push(`the grenade lands ${round1(result.scatter.distance_m)} m off${result.scatter.dud ? " (a dud)" : ""}`);
    if (result.pending_grenade) parts.push(`${result.pending_grenade} goes off next pass`);
    if (result.blast) parts.push(blastSummary(result.blast).replace(/\.$/, ""));
    return `${result.attacker} fires ${result.weapon} (${result.mode}${result.burst ? `, ${result.burst}` : ""}, pool ${result.pool}): ${parts.join("; ") || "no target"}.`;
  },

  render(result) {
    if (result.kind === "sr4_zone_test") return renderZoneTest(result);
    if (result.kind === "sr4_blast") return renderBlast(result);
    const article = el("article", { class: "result sr4", dataKind: result.kind },
      el("h3", { text: `${result.attacker} fires ${result.weapon} — ${result.mode}${result.burst ? ` (${result.burst})` : ""}, ${result.action} action` }));
    article.appendChild(facts([
      ["Pool", result.pool, "pool"],
      ["Rounds fired", result.rounds_fired, "rounds_fired"],
      ["Ammo left", result.ammo_left, "ammo_left"],
      ["Recoil", signed(result.recoil.penalty), "recoil_penalty"],
      ["Edge spent", result.edge_spent, "edge_spent"],
      result.second_ammo_left !== null && result.second_ammo_left !== undefined
        ? ["Second gun: rounds fired / left", `${result.second_rounds_fired} / ${result.second_ammo_left}`, "second"]
        : [],
    ], "facts headline"));
    article.appendChild(el("div", { class: "breakdown" }, modifierTable("What makes the pool", result.modifiers, { field: "pool" })));
    article.appendChild(renderRecoil("recoil", result.recoil));
    if (result.second_recoil) article.appendChild(renderRecoil("second_recoil", result.second_recoil));
    for (const target of result.targets) article.appendChild(renderTarget(target));
    if (result.zone) article.appendChild(renderZone(result.zone));
    if (result.scatter) article.appendChild(renderScatter(result.scatter));
    if (result.pending_grenade) {
      article.appendChild(el("p", { class: "pending", dataField: "pending_grenade" },
        `Grenade ${result.pending_grenade} is held: it goes off when the turn reaches the next initiative pass, at the thrower's score.`));
    }
    if (result.blast) article.appendChild(renderBlast(result.blast, { dice: false }));
    article.appendChild(diceSection(result.dice, { isHit: (value) => value >= HIT }));
    return article;
  },
  // A grenade that went off when the turn reached its moment (an advance's `went_off`).
  renderBlast,
};

const round1 = (value) => Math.round(value * 10) / 10;
const glitchText = (t) => (t.critical_glitch ? ", critical glitch!" : t.glitch ? ", glitch" : "");

function renderRecoil(field, r) {
  return el("p", { class: "recoil", dataField: field },
    `Recoil (attack ${r.shot_in_phase} of the action phase): ${signed(-r.base)}` +
    `${r.short_rounds ? `, ${r.short_rounds} for the short clip` : ""}, compensation ${r.compensation}` +
    `${r.doubled ? ", doubled (heavy weapon or bursting shotgun)" : ""}` +
    `${r.other_gun ? `, the other gun's ${signed(-r.other_gun)}` : ""}: ${signed(r.penalty)} dice.`);
}

function renderTarget(t) {
  const article = el("article", { class: "target", dataTarget: t.target },
    el("h4", {}, `${t.target}: `, outcomeBadge(t.outcome)));
  article.appendChild(facts([
    ["Range", t.range, "range"],
    ["Fired as", t.fired_as, "fired_as"],
    ["Attack", line([t.attack.pool, "attack_pool"], " dice, ", [t.attack.hits, "attack_hits"], " hits", glitchText(t.attack))],
    ["Defense", t.defense
      ? line([t.defense.pool, "defense_pool"], " dice, ", [t.defense_hits, "defense_hits"], " hits", glitchText(t.defense))
      : line("not rolled: ", [t.defense_hits, "defense_hits"], " hits")],
    ["Net hits", t.net_hits, "net_hits"],
    ["Contact effect", t.contact ? t.contact_effect || "contact" : null, "contact_effect"],
    ["Edge spent", t.edge_spent || null, "target_edge_spent"],
  ]));
  const tables = el("div", { class: "breakdown" });
  if (t.attack_modifiers.length) tables.appendChild(modifierTable(`What changes the attack on ${t.target}`, t.attack_modifiers, { field: "attack" }));
  tables.appendChild(modifierTable("What makes the defense pool", t.defense_modifiers, { field: "defense" }));
  article.appendChild(tables);
  if (t.damage) article.appendChild(renderDamage(t.target, t.damage));
  return article;
}

function renderDamage(who, d) {
  return el("section", { class: "damage", "aria-label": `Damage to ${who}` },
    el("h5", {}, el("span", { class: "boxes", dataField: "boxes", text: String(d.boxes) }), " boxes of ",
      el("span", { dataField: "track", text: d.track }), " damage"),
    facts([
      ["Damage value", d.dv, "dv"],
      ["DV against the armour", d.compared_dv, "compared_dv"],
      ["Armour", line([d.armor, "armor"], ` ${d.armor_type} (AP ${signed(d.ap)})`)],
      ["Soak", line([d.soak.pool, "soak_pool"], " dice, ", [d.soak_hits, "soak_hits"], " hits")],
    ]),
    el("div", { class: "breakdown" },
      modifierTable("What makes the DV", d.dv_modifiers, { field: "dv" }),
      modifierTable("What makes the soak pool", d.soak_modifiers, { field: "soak" })));
}

function renderZone(zone) {
  const section = el("section", { class: "zone-result", dataZone: zone.zone.id },
    el("h4", { text: `${zone.zone.id}: ${zone.zone.kind}, ${zone.suppression.hits} hits` }));
  if (zone.modifiers.length) section.appendChild(modifierTable("What makes the suppression test", zone.modifiers, { field: "suppression" }));
  const table = el("table", { class: "affected" },
    el("caption", { text: "Who the zone affects" }),
    el("thead", {}, el("tr", {}, ["Actor", "Inside", "Sheltered", "Must test"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const a of zone.affected) {
    body.appendChild(el("tr", { dataActor: a.actor },
      el("th", { scope: "row", text: a.actor }),
      el("td", { text: a.inside ? "yes" : "no" }),
      el("td", { text: a.sheltered ? "yes" : "no" }),
      el("td", { text: a.must_test ? "yes" : "no" })));
  }
  table.appendChild(body);
  section.appendChild(table);
  return section;
}

const at = (p) => `(${round1(p.x)}, ${round1(p.y)})`;

function renderScatter(s) {
  return el("section", { class: "scatter", dataField: "scatter", "aria-label": "Scatter" },
    el("h4", { text: "Scatter" }),
    facts([
      ["Aimed at", at(s.aimed_at), "aimed_at"],
      ["Direction (1 on past the aimed point, 4 back)", s.direction, "direction"],
      ["Rolled", line([s.dice, "scatter_dice"], "d6: ", [s.rolled_m, "rolled_m"], " m")],
      ["Net hits", line([s.net_hits, "scatter_net_hits"], " × ", [s.per_hit_m, "per_hit_m"], " m off")],
      ["Lands", s.on_target
        ? line("on the aimed point, ", [s.extra_dv, "extra_dv"], " DV added")
        : line([round1(s.distance_m), "distance_m"], " m away, at ", [at(s.landed), "landed"])],
      ["Dud", s.dud ? "yes: it came down before it armed" : null, "dud"],
    ]));
}

function blastSummary(b) {
  const who = b.hits.map((h) => `${h.actor} ${h.boxes} ${h.track}`).join(", ");
  return `${b.grenade} (${b.type}) goes off at ${at(b.point)}: ${who || "nobody hit"}.`;
}

function renderBlast(b, { dice = true } = {}) {
  const section = el("section", { class: "blast-result", dataGrenade: b.grenade, "aria-label": `Blast of ${b.grenade}` },
    el("h4", { text: `Blast of ${b.grenade} (${b.type}, thrown by ${b.thrower})` }),
    facts([
      ["At", at(b.point), "blast_point"],
      ["Damage", line([b.dv, "blast_dv"], b.damage_type, ", AP ", [signed(b.ap), "blast_ap"])],
      ["Fall-off", b.falloff_per_m ? `−${b.falloff_per_m} DV per metre` : null, "falloff"],
      ["Radius", b.radius_m !== null && b.radius_m !== undefined ? `${round1(b.radius_m)} m` : null, "radius"],
      ["Confined space", b.confined ? "yes: walls that hold send the wave back" : null, "confined"],
    ]));
  if (b.barriers.length) {
    const table = el("table", { class: "affected barriers" },
      el("caption", { text: "Barriers" }),
      el("thead", {}, el("tr", {}, ["Barrier", "DV", "Damage", "Holds", "Reflects"].map((h) => el("th", { scope: "col", text: h })))));
    const body = el("tbody");
    for (const r of b.barriers) {
      body.appendChild(el("tr", { dataBarrier: r.barrier },
        el("th", { scope: "row", text: r.barrier }),
        el("td", { class: "num", text: String(r.dv) }),
        el("td", { class: "num", text: String(r.damage) }),
        el("td", { dataField: "holds", text: r.holds ? "holds" : "falls" }),
        el("td", { text: r.reflects ? "yes" : "no" })));
    }
    table.appendChild(body);
    section.appendChild(table);
  }
  const table = el("table", { class: "affected blast-hits" },
    el("caption", { text: "Who the blast reached" }),
    el("thead", {}, el("tr", {}, ["Actor", "Distance (m)", "DV (out + back)", "Armour", "Soak hits", "Boxes"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const h of b.hits) {
    body.appendChild(el("tr", { dataActor: h.actor },
      el("th", { scope: "row", text: h.actor }),
      el("td", { class: "num", dataField: "distance_m", text: String(round1(h.distance_m)) }),
      el("td", { class: "num", dataField: "dv", text: h.dv_rebound ? `${h.dv} (${h.dv_direct} + ${h.dv_rebound})` : String(h.dv) }),
      el("td", { class: "num", dataField: "armor", text: `${h.armor}${h.shielded_by ? `, shielded by ${h.shielded_by}` : ""}` }),
      el("td", { class: "num", dataField: "soak_hits", text: h.soak ? `${h.soak_hits} of ${h.soak.pool}` : "—" }),
      el("td", { class: "num", dataField: "boxes", text: `${h.boxes} ${h.track}` })));
  }
  table.appendChild(body);
  section.appendChild(table);
  if (dice && b.dice.length) section.appendChild(diceSection(b.dice, { isHit: (value) => value >= HIT }));
  return section;
}

function renderZoneTest(result) {
  const outcome = result.avoided ? "avoided" : result.hit ? "hit" : "safe";
  const article = el("article", { class: "result sr4 zone-test", dataKind: result.kind, dataActor: result.actor },
    el("h3", {}, `${result.actor} tests against ${result.zone}: `, el("span", { class: `outcome ${outcome}`, dataField: "outcome", text: outcome })));
  article.appendChild(facts([
    ["Not at risk: only", result.avoided?.replaceAll("_", " "), "avoided"],
    ["Threshold (the zone's hits)", result.threshold, "threshold"],
    ["Test", result.test
      ? line([result.pool, "pool"], " dice, ", [result.test.hits, "hits"], " hits", glitchText(result.test))
      : line([result.pool, "pool"], " dice, not rolled")],
    ["Hit", result.hit ? "yes" : "no", "hit"],
  ], "facts headline"));
  if (result.modifiers.length) article.appendChild(el("div", { class: "breakdown" }, modifierTable("What makes the pool", result.modifiers, { field: "pool" })));
  if (result.damage) article.appendChild(renderDamage(result.actor, result.damage));
  article.appendChild(diceSection(result.dice, { isHit: (value) => value >= HIT }));
  return article;
}
