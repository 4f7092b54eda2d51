#!/usr/bin/env node
// Renders the chat card template from a real result fixture into a standalone HTML page, with
// the module's CSS inlined and a Foundry-like chat column around it, for a screenshot.
//
//   node scripts/render-card-preview.mjs <out.html> [fixture.json]
//   (default fixture: tests/fixtures/sr5-attack-bf.json)

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cardForEvent, CARD_TEMPLATE } from "../src/chat-card.mjs";
import { makeRenderTemplate } from "../tests/foundry-stubs.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const NAMES = { sam: "Sam", alpha: "Ares Alpha", "goon-1": "Halloweener", lee: "Lee", lmg: "Ingram Valiant", "goon-2": "Ganger", vex: "Vex", carbine: "Carbine", raider: "Raider" };

export async function renderPreview(fixturePath = join(ROOT, "tests", "fixtures", "sr5-attack-bf.json")) {
  const fixture = JSON.parse(readFileSync(fixturePath, "utf8"));
  const event = fixture.result ? { id: fixture.event_id, encounter: "preview", result: fixture.result } : fixture;
  // A Hard Life card draws the body map the service serves (its fixture, for the preview).
  const hardLife = String(event.result?.kind ?? "").startsWith("sr3_hardlife");
  const bodyMap = hardLife ? JSON.parse(readFileSync(join(ROOT, "tests", "fixtures", "sr3hl-body-map.json"), "utf8")) : null;
  const card = cardForEvent(event, { nameOf: (id) => NAMES[id] ?? id, bodyMap });
  const html = await makeRenderTemplate()(CARD_TEMPLATE, card);
  const css = readFileSync(join(ROOT, "styles", "firefight.css"), "utf8");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>firefight chat card</title>
<style>
body { margin: 0; padding: 16px; background: #1f1f1f; font-family: "Signika", "Segoe UI", sans-serif; }
.chat-message { width: 300px; background: #e8e6dc; border: 1px solid #585858; border-radius: 5px; padding: 6px 8px; color: #191813; box-shadow: 0 0 6px #000; }
.message-header { font-weight: bold; border-bottom: 1px solid #999; margin-bottom: 4px; padding-bottom: 2px; }
button { font: inherit; background: #f0efe7; border: 1px solid #7a7971; border-radius: 3px; width: 100%; }
${css}
</style></head>
<body><div class="chat-message"><div class="message-header">${card.attackerName ?? "firefight"}</div>
${html.replace('<details class="firefight-dice">', '<details class="firefight-dice" open>')}
</div></body></html>
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error("usage: node scripts/render-card-preview.mjs <out.html> [fixture.json]");
    process.exit(2);
  }
  const page = await renderPreview(process.argv[3] ? resolve(process.argv[3]) : undefined);
  mkdirSync(dirname(resolve(out)), { recursive: true });
  writeFileSync(out, page);
  console.log(`wrote ${out}`);
}
