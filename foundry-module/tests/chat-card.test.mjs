// Results as chat cards, rendered with the real Handlebars from the module's template.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fixture, makeRenderTemplate } from "./foundry-stubs.mjs";
import { CARD_TEMPLATE, cardForEvent, cardForResult } from "../src/chat-card.mjs";
import { signed } from "../src/card-frame.mjs";
import { cleanLikeFoundry } from "./foundry-html.mjs";

const render = makeRenderTemplate();
const names = { sam: "Sam", alpha: "Ares Alpha", "goon-1": "Halloweener", lee: "Lee", lmg: "Ingram", "goon-2": "Ganger" };
const nameOf = (id) => names[id] ?? id;

function text(html) {
  return html.replace(/<[^>]+>/g, " ").replace(/&middot;/g, "·").replace(/&mdash;/g, "—").replace(/&gt;/g, ">").replace(/&lt;/g, "<").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
}

test("an SR5 attack card shows the pool and why, the target's outcome and its damage", async () => {
  const { event_id, result } = fixture("sr5-attack-bf.json");
  const card = cardForEvent({ id: event_id, encounter: "enc", result }, { nameOf });
  assert.equal(card.pool, 12);
  assert.deepEqual(card.modifiers.map((m) => `${m.source} ${m.signed}`), ["agility +6", "skill +6"]);
  const html = await render(CARD_TEMPLATE, card);
  const plain = text(html);
  assert.match(html, new RegExp(`data-event-id="${event_id}"`));
  assert.match(plain, /Sam · Ares Alpha · Burst fire \(BF\)/);
  assert.match(plain, /Pool 12 Limit 5/);
  assert.match(plain, /agility \+6 skill \+6/);
  assert.match(plain, /Halloweener Hit medium/);
  assert.match(plain, /Hits 4 \/ 11 · Defense 2 \/ 7 · Net hits 2/);
  assert.match(plain, /range \(medium\) -1/);
  assert.match(plain, /DV 13 · AP -2 · Armor 7 · Soak 3 \/ 11/);
  assert.match(plain, /10 physical/);
  assert.match(plain, /Rounds fired 3 · left 39/);
  assert.match(html, /data-firefight-action="apply-damage" data-target="goon-1" data-boxes="10" data-track="physical"/);
  assert.match(html, /data-firefight-action="second-chance" data-target="goon-1"/);
  // Every die, with the hits marked.
  assert.equal((html.match(/class="die d6 hit"/g) ?? []).length, 4 + 2 + 3);
});

test("a miss has no damage button and a pushed limit no Second Chance", async () => {
  const { result } = fixture("sr5-attack-bf.json");
  const miss = structuredClone(result);
  miss.targets[0].outcome = "miss";
  miss.targets[0].damage = null;
  miss.edge_spent = 1;
  const html = await render(CARD_TEMPLATE, cardForResult(miss, { nameOf }));
  assert.match(text(html), /Halloweener Miss/);
  assert.doesNotMatch(html, /apply-damage/);
  assert.doesNotMatch(html, /second-chance/);
  assert.match(text(html), /Edge spent 1/);
});

test("suppressive fire lists who the zone affects, with a zone test button for those who must test", async () => {
  const event = fixture("sr5-suppressive-event.json");
  const card = cardForEvent(event, { nameOf });
  assert.deepEqual(card.zonesStarted, ["zone-1"]);
  assert.equal(card.pool, 10);
  const html = await render(CARD_TEMPLATE, card);
  const plain = text(html);
  assert.match(plain, /Lee · Ingram · Suppressive fire/);
  assert.match(plain, /Pool 10 Limit 5 agility \+5 skill \+5/);
  assert.match(plain, /Rounds fired 20 · left 80/);
  assert.match(plain, /Suppression zone zone-1 · 2 hits/);
  assert.match(plain, /Ganger inside, in the open: tests -2 Zone test/);
  assert.match(html, /data-firefight-action="zone-test" data-zone="zone-1" data-actor="goon-2"/);
});

test("a bystander inside the zone but in cover is listed without a test, as the service decided", async () => {
  // A real event: goon-2 inside in the open, goon-3 inside in cover, goon-4 next to the zone,
  // goon-5 behind the shooter (the request it answers is in the event).
  const event = fixture("sr5-suppressive-cover-event.json");
  assert.deepEqual(event.request.bystanders.map((b) => [b.id, b.in_cover ?? false]), [["goon-2", false], ["goon-3", true], ["goon-4", false], ["goon-5", false]]);
  const card = cardForEvent(event, { nameOf });
  assert.deepEqual(
    card.zone.affected.map((a) => [a.actor, a.inside, a.mustTest, a.penalty]),
    [["goon-2", true, true, -2], ["goon-3", true, false, -2], ["goon-4", false, false, -2]],
    "goon-5, neither inside nor next to it, is not listed",
  );
  const html = await render(CARD_TEMPLATE, card);
  const plain = text(html);
  assert.match(plain, /Ganger inside, in the open: tests -2 Zone test/);
  assert.match(plain, /goon-3 inside, in cover or prone: no test -2/);
  assert.match(plain, /goon-4 next to it -2/);
  assert.doesNotMatch(plain, /goon-5/);
  const tests = [...html.matchAll(/data-firefight-action="zone-test" data-zone="zone-1" data-actor="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(tests, ["goon-2"], "only the one in the open tests");
});

test("a d100 attack card shows the Success Target, the rolls and the wound", async () => {
  const { event_id, result } = fixture("d100-attack.json");
  const html = await render(CARD_TEMPLATE, cardForEvent({ id: event_id, encounter: "e", result }, { nameOf: (id) => ({ vex: "Vex", raider: "Raider", carbine: "Carbine" })[id] }));
  const plain = text(html);
  assert.match(plain, /Vex · Carbine/);
  assert.match(plain, /Success Target 55/);
  assert.match(plain, /Raider Hit medium/);
  assert.match(plain, /Roll 23 \/ 55 \(2\) · Defense 71 \/ 40 \(0\) · Net hits 2/);
  assert.match(plain, /Damage 16 · torso · Armor 3/);
  assert.match(plain, /13 wound/);
  assert.match(html, /data-firefight-action="apply-damage" data-target="raider" data-boxes="13" data-track="wounds"/);
  assert.doesNotMatch(html, /second-chance/);
});

test("Second Chance's card is the re-resolved attack with only the new dice", async () => {
  const { result } = fixture("sr5-attack-bf.json");
  const action = {
    kind: "action", actor: "sam", action: "second_chance", edge_spent: 1,
    effects: ["Second Chance on goon-1: 4 -> 5 hits, hit -> hit", "Edge spent: 1"],
    attack: { ...result, dice: [{ step: "second_chance:goon-1", sides: 6, values: [1, 6, 6, 6, 3, 6, 4] }] },
  };
  const card = cardForResult(action, { nameOf });
  assert.equal(card.title, "FIREFIGHT.Action.second_chance");
  assert.deepEqual(card.dice.map((d) => d.step), ["second_chance:goon-1"]);
  const html = await render(CARD_TEMPLATE, card);
  assert.match(text(html), /^Second Chance/);
  assert.match(text(html), /4 -> 5 hits/);
  assert.doesNotMatch(html, /second-chance"/);
});

test("zone tests get a card; advances get none", async () => {
  const zoneTest = {
    kind: "sr5_zone_test", actor: "goon-2", zone: "zone-1", avoided: null, threshold: 2, pool: 4,
    modifiers: [{ source: "reaction", value: 4 }], test: { pool: 4, hits: 1, ones: 0, glitch: false, critical_glitch: false },
    hit: true, edge_spent: 0, seed: 1, dice: [{ step: "zone_test:goon-2", sides: 6, values: [5, 2, 3, 4] }],
    damage: { dv: 10, armor: 9, dv_modifiers: [], ap: 0, track: "physical", soak: { pool: 13, hits: 4, ones: 0, glitch: false, critical_glitch: false }, soak_modifiers: [], soak_hits: 4, boxes: 6 },
  };
  const html = await render(CARD_TEMPLATE, cardForResult(zoneTest, { nameOf }));
  assert.match(text(html), /Zone test Ganger · zone-1/);
  assert.match(text(html), /Threshold 2/);
  assert.match(text(html), /Test: 1 \/ 4 · Hit/);
  assert.match(html, /data-boxes="6"/);
  assert.equal(cardForResult({ kind: "advance", to: "combat_turn" }), null);
  assert.equal(signed(2), "+2");
  assert.equal(signed(-1), "-1");
});

test("a zone of no hits shows its threshold of 0 on the zone test's card", async () => {
  // The zone's hits are the test's threshold (service/rules/sr5/suppression.py): a zone that got
  // no hits tests against 0, which no test falls short of, so Ganger is not hit with no hits at all.
  const zoneTest = {
    kind: "sr5_zone_test", actor: "goon-2", zone: "zone-1", avoided: null, threshold: 0, pool: 4,
    modifiers: [{ source: "reaction", value: 4 }], test: { pool: 4, hits: 0, ones: 1, glitch: false, critical_glitch: false },
    hit: false, edge_spent: 0, seed: 1, dice: [{ step: "zone_test:goon-2", sides: 6, values: [2, 3, 4, 1] }], damage: null,
  };
  const plain = text(await render(CARD_TEMPLATE, cardForResult(zoneTest, { nameOf })));
  assert.match(plain, /Pool 4 Threshold 0 reaction \+4/);
  assert.match(plain, /Test: 0 \/ 4 · Avoided/);
  // A d100 zone test has no threshold (null): none is shown.
  const d100 = {
    kind: "d100_zone_test", actor: "goon-2", zone: "zone-1", avoided: null, threshold: null, modifiers: [],
    test: { success_target: 40, roll: 23, success: true, hits: 1 }, hit: false, damage: null, dice: [{ step: "zone_test:goon-2", sides: 100, values: [23] }],
  };
  assert.doesNotMatch(text(await render(CARD_TEMPLATE, cardForResult(d100, { nameOf }))), /Threshold/);
});

test("the model of Foundry's cleaning drops what the API pages do not allow, and keeps the rest as written", () => {
  assert.equal(
    cleanLikeFoundry('<p class="a" onclick="go()">t</p><svg viewBox="0 0 1 1"><polygon points="0,0"></polygon></svg><img src="javascript:go()" alt="x"><img src="data:image/png,AA" alt="y"><button type="button" data-x="1" formaction="/z">b</button>'),
    '<p class="a">t</p><img alt="x"><img src="data:image/png,AA" alt="y"><button type="button" data-x="1">b</button>',
  );
});

test("every card comes through Foundry's cleaning of chat HTML whole (modelled from the API pages)", async () => {
  const event = (name) => {
    const f = fixture(name);
    return f.result && f.event_id ? { id: f.event_id, encounter: "enc", result: f.result } : f;
  };
  const bodyMap = fixture("sr3hl-body-map.json");
  const names = ["sr5-attack-bf.json", "sr5-suppressive-event.json", "sr5-suppressive-cover-event.json", "d100-attack.json", "sr3-attack.json", "sr4-grenade-attack.json", "sr3hl-attack.json"];
  for (const name of names) {
    const card = cardForEvent(event(name), { nameOf, bodyMap, ruleset: name.startsWith("sr3hl") ? "sr3-hardlife" : undefined });
    assert.ok(card, name);
    const html = await render(CARD_TEMPLATE, card);
    assert.equal(cleanLikeFoundry(html), html, `${name}: nothing cleaned away`);
  }
});

test("the preview page holds the rendered card and the module's CSS", async () => {
  const { renderPreview } = await import("../scripts/render-card-preview.mjs");
  const page = await renderPreview();
  assert.match(page, /^<!doctype html>/);
  assert.match(page, /\.firefight-card \{/);
  assert.match(page, /<span class="value firefight-pool">12<\/span>/);
  assert.match(page, /<details class="firefight-dice" open>/);
});
