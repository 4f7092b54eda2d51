// The game system releases the module supports, each with its fixtures (tests/fixtures/, built
// from that release's data model as read: see each fixture's _comment) and the Foundry
// generation it runs on. One release a version line of the system's table of data paths
// (src/sr5-actor.mjs SR5_PATHS, src/sr4-actor.mjs SR4E_PATHS, src/sr3-actor.mjs SR3E_PATHS).

export const SYSTEM_RELEASES = Object.freeze([
  // shadowrun5e 0.26 to 0.33 (Foundry v13; 0.25 ran on v11/v12): the pass in a flag, armour `armor.value`.
  { systemId: "shadowrun5e", version: "0.33.2", foundry: 13, sam: "sr5-0.33-actor-sam.json", goon: "sr5-0.33-actor-goon.json", combat: "sr5-0.33-combat.json" },
  // shadowrun5e 0.34 (Foundry v13): `system.pass`, padding combatants, armour `armor.rating`.
  { systemId: "shadowrun5e", version: "0.34.5", foundry: 13, sam: "sr5-actor-sam.json", goon: "sr5-actor-goon.json", combat: "sr5-0.34-combat.json" },
  // shadowrun5e 0.35+ (Foundry v14): the same data as 0.34.
  { systemId: "shadowrun5e", version: "0.36.2", foundry: 14, sam: "sr5-actor-sam.json", goon: "sr5-actor-goon.json", combat: "sr5-0.34-combat.json" },
  // shadowrun4e 0.1.25 to 0.1.31 (Foundry v13; 0.1.32 v14 only, the same data).
  { systemId: "shadowrun4e", version: "0.1.31", foundry: 13, sam: "sr4e-0.1-actor-sam.json", goon: "sr4e-0.1-actor-goon.json" },
  // shadowrun4e 0.2.0 to 1.0.0 (Foundry v14): 1.x's data, the combat Foundry's own (no pass).
  { systemId: "shadowrun4e", version: "1.0.0", foundry: 14, sam: "sr4e-actor-sam.json", goon: "sr4e-actor-goon.json" },
  // shadowrun4e 1.0.1 and later (Foundry v14): the combat's pass in a flag.
  { systemId: "shadowrun4e", version: "1.22.0", foundry: 14, sam: "sr4e-actor-sam.json", goon: "sr4e-actor-goon.json" },
  // sr3e 0.0.3-alpha.3 to alpha.6 (Foundry v13).
  { systemId: "sr3e", version: "0.0.3-alpha.6", foundry: 13, sam: "sr3e-alpha-actor-sam.json", goon: "sr3e-alpha-actor-goon.json" },
  // sr3e 0.0.3-beta.0 to beta.5 (Foundry v14).
  { systemId: "sr3e", version: "0.0.3-beta.5", foundry: 14, sam: "sr3e-actor-sam.json", goon: "sr3e-actor-goon.json" },
]);

export const releasesOf = (systemId) => SYSTEM_RELEASES.filter((r) => r.systemId === systemId);
