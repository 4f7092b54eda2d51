// Shadowrun 5 (`sr5`): the attack form (schemas/sr5.py, SR5AttackRequest) and its result.

import { diceSection, el, facts, line, modifierTable, outcomeBadge, signed } from "../results.js";

const CATEGORIES = [
  "taser", "hold_out_pistol", "light_pistol", "heavy_pistol", "machine_pistol", "submachine_gun",
  "assault_rifle", "shotgun", "shotgun_flechette", "sniper_rifle", "light_machine_gun",
  "medium_machine_gun", "heavy_machine_gun", "assault_cannon", "grenade_launcher", "missile_launcher",
];
const AMMO = ["regular", "apds", "explosive", "ex_explosive", "flechette", "gel", "hollow_point", "stick_n_shock", "tracer"];
const VISION = [
  "thermographic", "ultrasound", "flare_compensation", "low_light", "low_light_flashlight",
  "infrared_flashlight", "tracer_rounds", "improved_rangefinder",
];
const MODE_NAMES = {
  SS: "SS — single shot", SA: "SA — semi-automatic", SB: "SB — semi-automatic burst",
  BF: "BF — burst fire", LB: "LB — long burst", FA: "FA — full auto (simple)",
  FA_complex: "FA — full auto (complex)", suppressive: "suppressive fire (a zone)",
};
const FULL_DEFENSE = [
  ["willpower", "Willpower"], "acrobatic_defender", "agile_defender", "perceptive_defender", "too_pretty_to_hit",
];
// A d6 scores a hit on 5 or 6 (the guide, "Hits").
const HIT = 5;

export default {
  id: "sr5",
  attacker: [
    { key: "id", label: "Attacker id", type: "text", value: "sam", pattern: "[A-Za-z0-9_.:\\-]{1,64}" },
    { key: "agility", label: "Agility", type: "int", min: 1, max: 30, value: 6 },
    { key: "skill", label: "Firearms skill", type: "int", min: 0, max: 30, value: 6 },
    { key: "strength", label: "Strength", type: "int", min: 1, max: 30, value: 4 },
    { key: "willpower", label: "Willpower", type: "int", min: 1, max: 30, value: 3, optional: true },
    { key: "intuition", label: "Intuition", type: "int", min: 1, max: 30, optional: true },
    { key: "edge", label: "Edge", type: "int", min: 0, max: 30, optional: true },
    { key: "wound_modifier", label: "Wound modifier", type: "int", min: -30, max: 0, value: 0 },
  ],
  weapon: [
    { key: "id", label: "Weapon id", type: "text", value: "predator", pattern: "[A-Za-z0-9_.:\\-]{1,64}" },
    { key: "category", label: "Category", type: "select", options: CATEGORIES, value: "heavy_pistol" },
    { key: "damage", label: "Damage (DV)", type: "int", min: 0, max: 100, value: 8 },
    { key: "damage_type", label: "Damage type", type: "select", options: [["P", "physical (P)"], ["S", "stun (S)"]] },
    { key: "ap", label: "AP", type: "int", min: -30, max: 30, value: -1 },
    { key: "accuracy", label: "Accuracy", type: "int", min: 0, max: 30, value: 5 },
    { key: "rc", label: "Recoil compensation (RC)", type: "int", min: 0, max: 30, value: 0 },
    { key: "modes", label: "Weapon modes", type: "choices", options: ["SS", "SA", "BF", "FA"], value: ["SA"] },
    { key: "ammo", label: "Rounds loaded", type: "int", min: 0, max: 10000, value: 15 },
    { key: "contact_effect", label: "Contact effect", type: "text", optional: true, placeholder: "tracking tag" },
  ],
  target: [
    { key: "defender.reaction", label: "Reaction", type: "int", min: 1, max: 30, value: 3 },
    { key: "defender.intuition", label: "Intuition", type: "int", min: 1, max: 30, value: 3 },
    { key: "defender.body", label: "Body", type: "int", min: 1, max: 30, value: 4 },
    { key: "defender.willpower", label: "Willpower", type: "int", min: 1, max: 30, optional: true },
    { key: "defender.armor", label: "Armor", type: "int", min: 0, max: 30, value: 9 },
    { key: "cover", label: "Cover", type: "select", options: ["none", "partial", "good", "full"] },
    { key: "called_shot", label: "Called shot", type: "checkbox" },
    { key: "prone", label: "Prone", type: "checkbox" },
    { key: "running", label: "Running", type: "checkbox" },
    { key: "in_moving_vehicle", label: "In a moving vehicle", type: "checkbox" },
    { key: "in_melee", label: "In melee", type: "checkbox" },
  ],
  // The numbers an actor's sheet keeps on the scene (schemas/sr5.py, SR5Sheet): all optional.
  sheet: [
    { key: "agility", label: "Agility", type: "int", min: 1, max: 30, optional: true },
    { key: "skill", label: "Firearms skill", type: "int", min: 0, max: 30, optional: true },
    { key: "strength", label: "Strength", type: "int", min: 1, max: 30, optional: true },
    { key: "reaction", label: "Reaction", type: "int", min: 1, max: 30, optional: true },
    { key: "intuition", label: "Intuition", type: "int", min: 1, max: 30, optional: true },
    { key: "body", label: "Body", type: "int", min: 1, max: 30, optional: true },
    { key: "willpower", label: "Willpower", type: "int", min: 1, max: 30, optional: true },
    { key: "armor", label: "Armor", type: "int", min: 0, max: 30, optional: true },
    { key: "edge", label: "Edge", type: "int", min: 0, max: 30, optional: true },
    { key: "wound_modifier", label: "Wound modifier", type: "int", min: -30, max: 0, value: 0 },
    { key: "initiative_dice", label: "Initiative dice", type: "int", min: 1, max: 5, optional: true },
  ],
  targetDefaults: { prefix: "goon" },
  options: [
    { key: "smartlink", label: "Smartlink", type: "select", options: ["none", "wired", "wireless_gear", "wireless_implant"] },
    { key: "ammo", label: "Ammunition", type: "select", options: AMMO },
    { key: "edge", label: "Edge", type: "select", options: [["none", "none"], ["push_the_limit", "Push the Limit"]] },
    { key: "choke", label: "Flechette choke", type: "select", options: [["", "not set"], "narrow", "medium", "wide"], optional: true },
    { key: "running", label: "Attacker running", type: "checkbox" },
    { key: "from_moving_vehicle", label: "From a moving vehicle", type: "checkbox" },
    { key: "in_melee", label: "Attacker in melee", type: "checkbox" },
    { key: "off_hand", label: "Off hand", type: "checkbox" },
    { key: "ambidextrous", label: "Ambidextrous", type: "checkbox" },
    { key: "through_camera", label: "Through a camera or imaging scope", type: "checkbox" },
    { key: "area_effect", label: "Area effect weapon", type: "checkbox" },
    { key: "environment.visibility", label: "Visibility", type: "select", options: ["clear", "light", "moderate", "heavy"] },
    { key: "environment.visibility_cause", label: "Visibility impaired by", type: "select", options: ["rain", "fog", "smoke", "thermal_smoke"] },
    { key: "environment.light", label: "Light", type: "select", options: ["full", "partial", "dim", "total_darkness"] },
    { key: "environment.glare", label: "Glare", type: "select", options: ["none", "weak", "moderate", "blinding"] },
    { key: "environment.wind", label: "Wind", type: "select", options: ["none", "light", "moderate", "strong"] },
    { key: "vision", label: "Vision gear", type: "choices", options: VISION, value: [], optional: true },
    { key: "zone.enhanced", label: "Enhanced suppressive fire (5 m wide)", type: "checkbox", zoneOnly: true },
  ],

  modes(info) {
    return (info?.firing_modes || Object.keys(MODE_NAMES)).map((mode) => [mode, MODE_NAMES[mode] || mode]);
  },
  defaultMode: "SA",
  isZoneMode: (mode) => mode === "suppressive",
  zoneHelp: "Suppressive fire covers a triangle from the attacker to the aim point (10 m wide at its end); the other actors on the map are the bystanders.",

  // `targets`: [{fields, id, distance_m, position}] as read from the form and the map.
  request({ attacker, weapon, mode, options, targets, attackerAt, aimAt }) {
    const { zone: zoneOptions = {}, ...rest } = options;
    const body = { ruleset: "sr5", attacker, weapon, mode, ...rest };
    if (mode === "suppressive") {
      const dx = aimAt.x - attackerAt.x;
      const dy = aimAt.y - attackerAt.y;
      const length = Math.hypot(dx, dy);
      if (length === 0) throw new Error("Put the aim point away from the attacker");
      body.zone = {
        origin: attackerAt,
        direction_deg: Math.round((Math.atan2(dy, dx) * 180) / Math.PI * 100) / 100,
        length_m: Math.round(length * 10) / 10,
        enhanced: Boolean(zoneOptions.enhanced),
      };
      body.bystanders = targets.map((t) => ({
        id: t.id,
        position: t.position,
        in_cover: t.fields.cover !== "none",
        prone: t.fields.prone,
      }));
    } else {
      body.targets = targets.map((t) => ({ id: t.id, distance_m: t.distance_m, ...t.fields }));
    }
    return body;
  },

  // The steps an attack rolls (docs/rulesets/sr5.md, "Dice steps"), for the given-dice inputs.
  diceSteps({ mode, targetIds }) {
    if (mode === "suppressive") return [{ step: "suppression", sides: 6 }];
    const attack = targetIds.length === 1
      ? [{ step: "attack", sides: 6 }]
      : targetIds.map((id) => ({ step: `attack:${id}`, sides: 6 }));
    return [
      ...attack,
      ...targetIds.flatMap((id) => [{ step: `defense:${id}`, sides: 6 }, { step: `soak:${id}`, sides: 6 }]),
    ];
  },

  // The rest of the round (schemas/sr5.py, SR5ActionRequest and SR5ZoneTestRequest).
  hasPasses: true,
  // The fields each action takes; an action not listed takes none.
  actions: {
    take_aim: [
      { key: "aim_for", label: "Aim for", type: "select", options: [["dice", "+1 die"], ["accuracy", "+1 accuracy"]] },
      { key: "image_magnification", label: "Image magnification", type: "checkbox" },
    ],
    full_defense: [{ key: "full_defense", label: "Full defense with", type: "select", options: FULL_DEFENSE }],
    second_chance: [
      { key: "target", label: "Re-roll the attack test on", type: "actor", none: "its only target", optional: true },
    ],
  },
  actionRequest({ actor, action, fields }) {
    return { ruleset: "sr5", actor, action, ...fields };
  },
  zoneTest: [
    { key: "defender.reaction", label: "Reaction", type: "int", min: 1, max: 30, value: 3 },
    { key: "defender.intuition", label: "Intuition", type: "int", min: 1, max: 30, value: 3 },
    { key: "defender.body", label: "Body", type: "int", min: 1, max: 30, value: 4 },
    { key: "defender.willpower", label: "Willpower", type: "int", min: 1, max: 30, optional: true },
    { key: "defender.armor", label: "Armor", type: "int", min: 0, max: 30, value: 9 },
    { key: "edge", label: "Edge dice", type: "int", min: 0, max: 30, value: 0 },
    { key: "avoid", label: "Avoid the fire by", type: "select", options: [["none", "nothing: test"], "drop_prone", "hit_the_dirt", "lucky_cover"] },
  ],
  zoneTestRequest({ actor, fields }) {
    return { ruleset: "sr5", actor, ...fields };
  },
  // docs/rulesets/sr5.md, "Dice step names".
  zoneTestSteps({ actor }) {
    return [{ step: `zone_test:${actor}`, sides: 6 }, { step: `soak:${actor}`, sides: 6 }];
  },

  kinds: ["sr5_attack", "sr5_zone_test"],

  summary(result) {
    if (result.kind === "sr5_zone_test") {
      if (result.avoided) return `${result.actor} avoids ${result.zone} (${result.avoided.replaceAll("_", " ")}).`;
      const damage = result.damage ? `, ${result.damage.boxes} ${result.damage.track} boxes` : "";
      return `${result.actor} tests against ${result.zone}: ${result.test.hits} hits of ${result.threshold}, ${result.hit ? "hit" : "safe"}${damage}.`;
    }
    if (result.zone) {
      const inside = result.zone.affected.filter((a) => a.inside).map((a) => a.actor);
      return `${result.attacker} lays ${result.zone.zone.id}: ${result.zone.suppression.hits} hits; inside: ${inside.join(", ") || "nobody"}.`;
    }
    const parts = result.targets.map((t) => {
      if (t.damage) return `${t.target} ${t.outcome}, ${t.damage.boxes} ${t.damage.track} boxes`;
      return `${t.target} ${t.outcome}`;
    });
    return `${result.attacker} fires ${result.weapon} (${result.mode}, pool ${result.pool}): ${parts.join("; ")}.`;
  },

  render(result) {
    if (result.kind === "sr5_zone_test") return renderZoneTest(result);
    const article = el("article", { class: "result sr5", dataKind: result.kind },
      el("h3", { text: `${result.attacker} fires ${result.weapon} — ${result.mode}, ${result.action} action` }));
    article.appendChild(facts([
      ["Pool", result.pool, "pool"],
      ["Limit", result.limit, "limit"],
      ["Rounds fired", result.rounds_fired, "rounds_fired"],
      ["Ammo left", result.ammo_left, "ammo_left"],
      ["Recoil penalty", result.recoil.penalty, "recoil_penalty"],
      ["Edge spent", result.edge_spent, "edge_spent"],
      result.second_ammo_left !== null && result.second_ammo_left !== undefined
        ? ["Second gun: rounds fired / left", `${result.second_rounds_fired} / ${result.second_ammo_left}`, "second"]
        : [],
    ], "facts headline"));
    const breakdown = el("div", { class: "breakdown" },
      modifierTable("What makes the pool", result.modifiers, { field: "pool" }),
      modifierTable("What makes the limit", result.limit_modifiers, { field: "limit" }));
    article.appendChild(breakdown);
    const r = result.recoil;
    article.appendChild(el("p", { class: "recoil", dataField: "recoil" },
      `Recoil: ${r.rounds_before} + ${r.rounds_fired} rounds = ${r.rounds_total} against compensation ${r.compensation}` +
      `${r.heavy_weapon ? " (heavy weapon: doubled)" : ""}: ${signed(-Math.abs(r.penalty))} dice.`));
    for (const target of result.targets) article.appendChild(renderTarget(target));
    if (result.zone) article.appendChild(renderZone(result.zone));
    article.appendChild(diceSection(result.dice, { isHit: (value) => value >= HIT }));
    return article;
  },
};

const glitchText = (t) => (t.critical_glitch ? ", critical glitch!" : t.glitch ? ", glitch" : "");

function renderTarget(t) {
  const article = el("article", { class: "target", dataTarget: t.target },
    el("h4", {}, `${t.target}: `, outcomeBadge(t.outcome)));
  article.appendChild(facts([
    ["Range", t.range, "range"],
    ["Share of the pool", t.share, "share"],
    // Each test once: its dice and hits on one line.
    ["Attack", line([t.attack.pool, "attack_pool"], " dice, ", [t.attack_hits, "attack_hits"], " hits",
      t.attack_hits_before_limit !== t.attack_hits ? line(" (", [t.attack_hits_before_limit, "attack_hits_before_limit"], " before the limit)") : "",
      glitchText(t.attack))],
    ["Defense", line([t.defense.pool, "defense_pool"], " dice, ", [t.defense_hits, "defense_hits"], " hits",
      t.defense_limit !== null && t.defense_limit !== undefined ? line(" (limit ", [t.defense_limit, "defense_limit"], ")") : "",
      glitchText(t.defense))],
    ["Net hits", t.net_hits, "net_hits"],
    ["Contact effect", t.contact_effect, "contact_effect"],
  ]));
  const tables = el("div", { class: "breakdown" });
  if (t.attack_modifiers.length) tables.appendChild(modifierTable(`What turns the share into the attack on ${t.target}`, t.attack_modifiers, { field: "attack" }));
  tables.appendChild(modifierTable("What makes the defense pool", t.defense_modifiers, { field: "defense" }));
  article.appendChild(tables);
  if (t.damage) article.appendChild(renderDamage(t.target, t.damage));
  return article;
}

function renderZone(zone) {
  const section = el("section", { class: "zone-result", dataZone: zone.zone.id },
    el("h4", { text: `${zone.zone.id}: ${zone.zone.kind}, ${zone.suppression.hits} hits (penalty ${zone.zone.penalty})` }));
  const table = el("table", { class: "affected" },
    el("caption", { text: "Who the zone affects" }),
    el("thead", {}, el("tr", {}, ["Actor", "Inside", "Adjacent", "Penalty", "Must test"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const a of zone.affected) {
    body.appendChild(el("tr", { dataActor: a.actor },
      el("th", { scope: "row", text: a.actor }),
      el("td", { text: a.inside ? "yes" : "no" }),
      el("td", { text: a.adjacent ? "yes" : "no" }),
      el("td", { class: "num", text: String(a.penalty) }),
      el("td", { text: a.must_test ? "yes" : "no" })));
  }
  table.appendChild(body);
  section.appendChild(table);
  return section;
}

function renderDamage(who, d) {
  return el("section", { class: "damage", "aria-label": `Damage to ${who}` },
    el("h5", {}, el("span", { class: "boxes", dataField: "boxes", text: String(d.boxes) }), " boxes of ",
      el("span", { dataField: "track", text: d.track }), " damage"),
    facts([
      ["Damage value", d.dv, "dv"],
      ["AP", d.ap, "ap"],
      ["Modified armor", d.armor, "armor"],
      ["Soak", line([d.soak.pool, "soak_pool"], " dice, ", [d.soak_hits, "soak_hits"], " hits")],
    ]),
    el("div", { class: "breakdown" },
      modifierTable("What makes the DV", d.dv_modifiers, { field: "dv" }),
      modifierTable("What makes the soak pool", d.soak_modifiers, { field: "soak" })));
}

function renderZoneTest(result) {
  const outcome = result.avoided ? "avoided" : result.hit ? "hit" : "safe";
  const article = el("article", { class: "result sr5 zone-test", dataKind: result.kind, dataActor: result.actor },
    el("h3", {}, `${result.actor} tests against ${result.zone}: `, el("span", { class: `outcome ${outcome}`, dataField: "outcome", text: outcome })));
  article.appendChild(facts([
    ["Avoided by", result.avoided?.replaceAll("_", " "), "avoided"],
    ["Threshold (the zone's hits)", result.threshold, "threshold"],
    ["Test", result.test
      ? line([result.pool, "pool"], " dice, ", [result.test.hits, "hits"], " hits", glitchText(result.test))
      : line([result.pool, "pool"], " dice, not rolled")],
    ["Hit", result.hit ? "yes" : "no", "hit"],
    ["Edge spent", result.edge_spent, "edge_spent"],
  ], "facts headline"));
  if (result.modifiers.length) {
    article.appendChild(el("div", { class: "breakdown" }, modifierTable("What makes the pool", result.modifiers, { field: "pool" })));
  }
  if (result.damage) article.appendChild(renderDamage(result.actor, result.damage));
  article.appendChild(diceSection(result.dice, { isHit: (value) => value >= HIT }));
  return article;
}
