// The README's quickstart through the TypeScript client made from the served /openapi.json:
// openapi-typescript's types (generated/firefight.ts) and openapi-fetch, compiled with
// `tsc --strict`. tests/test_openapi_clients.py generates the types, writes the README's bodies
// as typed constants (generated/readme.ts), compiles and runs it.
import createClient from "openapi-fetch";
import type { paths } from "./generated/firefight.js";
import { attack, creation } from "./generated/readme.js";

const base = process.env.FIREFIGHT_URL;
const client = createClient<paths>({ baseUrl: base });
const admin = { Authorization: `Bearer ${process.env.ADMIN_KEY}` };

const created = await client.POST("/v1/encounters", {
  body: creation,
  headers: admin,
});
if (created.data === undefined) throw new Error(JSON.stringify(created.error));
const player = { Authorization: `Bearer ${created.data.tokens.player}` };

const shot = await client.POST("/v1/encounters/{encounter}/attacks", {
  params: { path: { encounter: created.data.id } },
  body: attack,
  headers: player,
});
if (shot.data === undefined) throw new Error(JSON.stringify(shot.error));
const result = shot.data.result;
if (result.kind !== "sr5_attack") throw new Error(`not an sr5 attack: ${result.kind}`);
for (const target of result.targets) {
  const damage = target.damage;
  const boxes = damage ? `${damage.boxes} boxes ${damage.track}` : "no damage";
  console.log(`${target.target}: ${target.outcome}, ${boxes}`);
}

const missing = await client.GET("/v1/encounters/{encounter}", {
  params: { path: { encounter: "no-such-encounter" } },
  headers: admin,
});
// A problem's type is one of the listed ones: a client can switch on it.
if (missing.error?.type !== "https://firefight.invalid/problems/encounter-not-found") {
  throw new Error(JSON.stringify(missing.error));
}
console.log(missing.error.type);
