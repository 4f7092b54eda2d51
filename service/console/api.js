// The HTTP calls the console makes, and the problem+json errors they may answer.

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }

  // What a person at the table reads: the detail, and the field it is about.
  describe() {
    const where = this.problem.path ? ` (at ${this.problem.path})` : "";
    const title = this.problem.title ? `${this.problem.title}: ` : "";
    // A refusal says so first: the token may not do this, whatever the numbers.
    const refused = this.status === 403 ? "Refused (403), not yours to do. " : "";
    return `${refused}${title}${this.message}${where}`;
  }
}

// crypto.randomUUID exists only in secure contexts; a console opened over plain http on the
// table's network still needs idempotency keys.
export function newKey() {
  if (globalThis.crypto?.randomUUID) {
    return crypto.randomUUID();
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// A state-changing POST is retried with the same Idempotency-Key after a dropped connection or a
// 503, so a flaky network never resolves the same shot twice.
const RETRIES = 2;

// `file`: a File (or Blob) sent as its bytes instead of a JSON body.
async function call(method, path, { token, body, file, idempotent = false } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (file !== undefined) headers["Content-Type"] = "application/octet-stream";
  if (idempotent) headers["Idempotency-Key"] = newKey();
  const init = { method, headers, body: file !== undefined ? file : body === undefined ? undefined : JSON.stringify(body) };
  for (let attempt = 0; ; attempt += 1) {
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      if (idempotent && attempt < RETRIES) continue;
      throw new ApiError(0, { title: "No answer", detail: `the service cannot be reached (${error.message})` });
    }
    if (response.status === 503 && idempotent && attempt < RETRIES) continue;
    if (response.status === 204) return null;
    const text = await response.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { title: "Unreadable answer", detail: text.slice(0, 200) };
    }
    if (!response.ok) {
      throw new ApiError(response.status, parsed || { title: `HTTP ${response.status}` });
    }
    return parsed;
  }
}

const encounterPath = (id) => `/v1/encounters/${encodeURIComponent(id)}`;

export const listRulesets = async () => (await call("GET", "/v1/rulesets")).rulesets;

// `damage`: who applies an attack's damage ("service", "confirm" or "vtt"); left out, the
// service's default.
export const createEncounter = (adminKey, ruleset, name, damage = undefined) =>
  call("POST", "/v1/encounters", { token: adminKey, body: damage ? { ruleset, name, damage } : { ruleset, name }, idempotent: true });

export const getEncounter = (id, token) => call("GET", encounterPath(id), { token });

export const getZones = async (id, token) =>
  (await call("GET", `${encounterPath(id)}/zones`, { token })).zones;

export const resolveAttack = (id, token, body) =>
  call("POST", `${encounterPath(id)}/attacks`, { token, body, idempotent: true });

export const advance = (id, token, body) =>
  call("POST", `${encounterPath(id)}/advance`, { token, body, idempotent: true });

export const takeAction = (id, token, body) =>
  call("POST", `${encounterPath(id)}/actions`, { token, body, idempotent: true });

export const testZone = (id, token, zone, body) =>
  call("POST", `${encounterPath(id)}/zones/${encodeURIComponent(zone)}/tests`, { token, body, idempotent: true });

// Odds previews (docs/odds.md): the same body as the attack or zone test, without given dice;
// nothing is rolled, stored or published, so they go without an Idempotency-Key.
export const attackOdds = (id, token, body) =>
  call("POST", `${encounterPath(id)}/attacks/odds`, { token, body });

export const zoneTestOdds = (id, token, zone, body) =>
  call("POST", `${encounterPath(id)}/zones/${encodeURIComponent(zone)}/tests/odds`, { token, body });

// What a request will roll, step by step, before it is rolled (`{"attack": {...}}`, `{"action":
// {...}}` or `{"zone_test": {...}, "zone": "z-1"}`, each with the dice known so far): a preview,
// nothing rolled or stored.
export const diceNeeds = (id, token, body) => call("POST", `${encounterPath(id)}/dice`, { token, body });

// The GM's edit of the combat state (PUT .../state), made on the `version` it was read at: the
// service refuses it (409 `state-changed`) if anything changed the encounter since.
export const editState = (id, token, body) =>
  call("PUT", `${encounterPath(id)}/state`, { token, body, idempotent: true });

export const problemType = (error) => String(error?.problem?.type || "").split("/").pop();

// The scene: its actors, set whole by the GM, moved by whoever controls them.
export const getActors = async (id, token) =>
  (await call("GET", `${encounterPath(id)}/actors`, { token })).actors;

const actorPath = (id, actor) => `${encounterPath(id)}/actors/${encodeURIComponent(actor)}`;

export const putActor = (id, token, actor, body) => call("PUT", actorPath(id, actor), { token, body });

export const patchActor = (id, token, actor, body) => call("PATCH", actorPath(id, actor), { token, body });

// A character file (`format`: chummer5, chummer4 or foundry) onto an actor, new or on the scene
// (GM): the scene answer and the import's `report` (docs/imports.md).
export const importCharacter = (id, token, actor, format, file) =>
  call("POST", `${actorPath(id, actor)}/import?format=${encodeURIComponent(format)}`, { token, file, idempotent: true });

export const moveActor = (id, token, actor, position) =>
  call("POST", `${actorPath(id, actor)}/move`, { token, body: { position }, idempotent: true });

// The condition monitor the service keeps for a scene actor: the GM heals, sets or clears it
// (MonitorEdit: exactly one of heal, set, clear; `version` the encounter's version as read, so
// a hit that landed in between is never written over: 409 `state-changed`).
export const editMonitor = (id, token, actor, body) =>
  call("POST", `${actorPath(id, actor)}/monitor`, { token, body, idempotent: true });

// Damage waiting for confirmation (`"damage": "confirm"`): applied by the GM or the actor's
// controller, declined by the GM; each once.
const pendingPath = (id, actor, damage) => `${actorPath(id, actor)}/monitor/pending/${encodeURIComponent(damage)}`;

export const applyPending = (id, token, actor, damage) =>
  call("POST", pendingPath(id, actor, damage), { token, idempotent: true });

export const declinePending = (id, token, actor, damage) =>
  call("DELETE", pendingPath(id, actor, damage), { token, idempotent: true });

// The GM takes back the newest change (`event`: the id of the event the page means to take
// back; any other newest change makes it a 409 `state-changed`, so a retry or a double click
// never undoes two).
export const undo = (id, token, body) =>
  call("POST", `${encounterPath(id)}/undo`, { token, body, idempotent: true });

// The GM reveals the dice secret (docs/dice.md): its event opens the commitment and a new one
// takes over. Idempotent: a retry after a dropped answer reveals once.
export const revealDice = (id, token) =>
  call("POST", `${encounterPath(id)}/dice/reveal`, { token, body: {}, idempotent: true });

// A player's own token: that player controls these actors, and acts only for them. Sent without
// an Idempotency-Key (the service keeps no token for replays; asking again replaces it).
export const issuePlayerToken = (id, token, player, actors) =>
  call("POST", `${encounterPath(id)}/players/${encodeURIComponent(player)}`, { token, body: { actors } });

// One page of the encounter's events, oldest first, after the event id `after` (null: from the
// start): {events, last_event_id, more}.
export const getEvents = (id, token, after = null) =>
  call("GET", `${encounterPath(id)}/events${after ? `?after=${encodeURIComponent(after)}` : ""}`, { token });

export function socketUrl(id, token, after) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ token });
  if (after) query.set("after", after);
  return `${scheme}//${location.host}${encounterPath(id)}/ws?${query}`;
}

// The initiative the service runs (GM): start a combat turn (`{}`: everyone of the last one
// rolled again), and stop it (the VTT's tracker takes over).
const initiativePath = (id) => `${encounterPath(id)}/initiative`;

// null while the service runs none (its 404 says "no-initiative"; any other refusal is thrown).
export async function getInitiative(id, token) {
  try {
    return await call("GET", initiativePath(id), { token });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && String(error.problem?.type || "").endsWith("/no-initiative")) return null;
    throw error;
  }
}

export const startInitiative = (id, token, body) =>
  call("POST", initiativePath(id), { token, body, idempotent: true });

export const stopInitiative = (id, token) => call("DELETE", initiativePath(id), { token, idempotent: true });

// One ruleset's detail: what the list says, and the data a client draws with (sr3-hardlife's
// body map of hexes).
export const getRuleset = (id) => call("GET", `/v1/rulesets/${encodeURIComponent(id)}`);

// Ends the encounter (GM). One started in a campaign first gives its characters back what the
// fight changed: `carry`, some of "monitor", "ammo", "edge" (none: nothing carried); the answer
// says what each took back. Any other encounter answers nothing (204). Sent once, not retried:
// a second DELETE finds the encounter ended.
export function endEncounter(id, token, carry = null) {
  const query = carry ? `?${new URLSearchParams({ carry: carry.length ? carry.join(",") : "none" })}` : "";
  return call("DELETE", `${encounterPath(id)}${query}`, { token });
}

// --- campaigns (docs/api.md): the group's characters and the GM's templates between fights ---

const campaignPath = (id) => `/v1/campaigns/${encodeURIComponent(id)}`;
const campaignActorPath = (id, actor) => `${campaignPath(id)}/actors/${encodeURIComponent(actor)}`;

export const createCampaign = (adminKey, ruleset, name) =>
  call("POST", "/v1/campaigns", { token: adminKey, body: { ruleset, name }, idempotent: true });

// The GM's token sees everything; a player's the characters (never the templates).
export const getCampaign = (id, token) => call("GET", campaignPath(id), { token });

export const putCampaignActor = (id, token, actor, body) => call("PUT", campaignActorPath(id, actor), { token, body });

export const patchCampaignActor = (id, token, actor, body) => call("PATCH", campaignActorPath(id, actor), { token, body });

export const deleteCampaignActor = (id, token, actor) => call("DELETE", campaignActorPath(id, actor), { token });

export const importCampaignActor = (id, token, actor, format, file) =>
  call("POST", `${campaignActorPath(id, actor)}/import?format=${encodeURIComponent(format)}`, { token, file, idempotent: true });

// A player's campaign token (a new one replaces the old); that player then plays `characters`.
export const issueCampaignPlayer = (id, token, player, characters) =>
  call("POST", `${campaignPath(id)}/players/${encodeURIComponent(player)}`, { token, body: { characters } });

// An encounter of the campaign's ruleset with `bring` ([{actor, count}]) on its scene.
export const startCampaignEncounter = (id, token, body) =>
  call("POST", `${campaignPath(id)}/encounters`, { token, body, idempotent: true });
