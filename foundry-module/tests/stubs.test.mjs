// The stubs themselves behave as Foundry does where the module depends on it (each behaviour's
// API page is cited beside it in foundry-stubs.mjs): cleaned chat HTML, the expanded and merged
// update, the version's own zone documents and message API, onChange on every client.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanChatHTML, core, Hooks, makeChatMessage, makeGame, makeGrid, makeScene, makeTrackerCombat, StubDocument } from "./foundry-stubs.mjs";

test("chat HTML is saved as Foundry cleans it: an svg goes, with what is inside it; allowed tags and their data- attributes stay", async () => {
  const html = '<div class="card" data-firefight-action="x"><svg viewBox="0 0 1 1"><g><path d="M0 0"/><circle r="1"></circle></g><text>hex</text></svg><img src="map.png"><p>ok <b>6</b></p><script>alert(1)</script></div>';
  assert.equal(cleanChatHTML(html), '<div class="card" data-firefight-action="x"><img src="map.png"><p>ok <b>6</b></p></div>');
  makeGame();
  const { ChatMessage } = makeChatMessage();
  const message = await ChatMessage.create({ content: html });
  assert.doesNotMatch(message.content, /svg|script|hex/);
});

test("an update hands its hooks the expanded difference and merges objects; one that changes nothing fires nothing", async () => {
  makeGame();
  const seen = [];
  const listen = (...args) => seen.push(args[1]);
  Hooks.on("updateActor", listen);
  try {
    const actor = new StubDocument({ _id: "a1", system: { track: { stun: { value: 1, max: 9 } } } }, { documentName: "Actor" });
    await actor.setFlag("firefight", "encounter", { id: "enc", ruleset: "sr5" });
    await actor.setFlag("firefight", "encounter", { lastEventId: "4-0" });
    assert.deepEqual(actor.flags.firefight.encounter, { id: "enc", ruleset: "sr5", lastEventId: "4-0" }, "merged, not replaced");
    await actor.update({ "system.track.stun.value": 3 });
    await actor.update({ system: { track: { stun: { value: 3 } } } });
    assert.deepEqual(actor.system.track.stun, { value: 3, max: 9 });
    assert.deepEqual(seen.at(-1), { _id: "a1", system: { track: { stun: { value: 3 } } } });
    assert.equal(seen.length, 3, "the update that changed nothing fired no hook");
    // A combatant's update in a batch, the same way.
    const combat = makeTrackerCombat({ combatants: [{ id: "c1", initiative: 5 }, { id: "c2", initiative: 7 }] });
    const combatants = [];
    const onCombatant = (doc, changed) => combatants.push(changed);
    Hooks.on("updateCombatant", onCombatant);
    await combat.updateEmbeddedDocuments("Combatant", [{ _id: "c1", "flags.firefight.score": 12 }, { _id: "c2", initiative: 7 }]);
    Hooks.off("updateCombatant", onCombatant);
    assert.deepEqual(combatants, [{ flags: { firefight: { score: 12 } }, _id: "c1" }]);
  } finally {
    Hooks.off("updateActor", listen);
  }
});

test("this Foundry's own zone documents and message API: v13 templates and applyRollMode, v14 regions and applyMode", async () => {
  const game = makeGame();
  const scene = makeScene({ grid: makeGrid() });
  const { ChatMessage } = makeChatMessage();
  const circle = { shapes: [{ type: "circle", x: 0, y: 0, radius: 50 }] };
  assert.equal((await scene.createEmbeddedDocuments("Region", [circle])).length, 1);
  await assert.rejects(scene.createEmbeddedDocuments("Region", [{ shapes: [{ type: "polygon", points: [0, 0, 1] }] }]), /polygon's points/);
  const data = { content: "" };
  if (core().generation >= 14) {
    await assert.rejects(scene.createEmbeddedDocuments("MeasuredTemplate", [{ t: "circle" }]), /not a valid embedded Document type in Foundry v14/);
    assert.equal(ChatMessage.applyRollMode, undefined);
    ChatMessage.applyMode(data, "blind");
    assert.throws(() => ChatMessage.applyMode({}, "blindroll"), /not a mode/);
    assert.equal(game.settings.get("core", "messageMode"), "public");
  } else {
    assert.equal((await scene.createEmbeddedDocuments("MeasuredTemplate", [{ t: "circle" }])).length, 1);
    assert.equal(ChatMessage.applyMode, undefined);
    ChatMessage.applyRollMode(data, "blindroll");
    assert.equal(game.settings.get("core", "rollMode"), "publicroll");
  }
  assert.deepEqual([data.whisper, data.blind], [[game.user.id], true]);
});

test("a world setting's onChange runs for this client's change and for another user's, with that user's id", async () => {
  const game = makeGame();
  const calls = [];
  game.settings.register("firefight", "w", { scope: "world", default: "", onChange: (value, options, userId) => calls.push([value, userId]) });
  game.settings.register("firefight", "c", { scope: "client", default: "", onChange: (value, options, userId) => calls.push([value, userId]) });
  await game.settings.set("firefight", "w", "mine");
  game.settings.receive("firefight", "w", "theirs", "gm000000000009");
  await game.settings.set("firefight", "c", "here");
  assert.deepEqual(calls, [["mine", game.user.id], ["theirs", "gm000000000009"], ["here", undefined]]);
  assert.equal(game.settings.get("firefight", "w"), "theirs");
  assert.throws(() => game.settings.receive("firefight", "c", "x", "u"), /not a world setting/);
});
