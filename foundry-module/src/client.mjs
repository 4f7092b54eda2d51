// The service's HTTP API (docs/api.md) for the module: JSON in and out, problem+json errors
// surfaced with their detail and path, and an Idempotency-Key on every state-changing POST, kept
// across retries so a retried attack never resolves twice. `fetch` is injected (the browser's,
// or Node's in tests).

export class FirefightError extends Error {
  constructor(status, problem, fallback) {
    const detail = problem?.detail ?? fallback ?? `HTTP ${status}`;
    super(problem?.path ? `${detail} (${problem.path})` : detail);
    this.name = "FirefightError";
    this.status = status;
    this.problem = problem ?? null;
  }
}

/** An http(s) base URL without its trailing slash, or an error naming what is wrong. */
export function normaliseBaseUrl(url) {
  let parsed;
  try {
    parsed = new URL(String(url ?? "").trim());
  } catch {
    throw new FirefightError(0, null, `"${url}" is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new FirefightError(0, null, `"${url}" is not an http(s) URL`);
  return parsed.href.replace(/\/+$/, "");
}

function isRetryable(error) {
  // A dropped connection (fetch's TypeError) or a 503 (store unavailable, contention).
  return error instanceof TypeError || (error instanceof FirefightError && error.status === 503);
}

function actorPath(id, actor) {
  return `/v1/encounters/${encodeURIComponent(id)}/actors/${encodeURIComponent(actor)}`;
}

export class FirefightClient {
  constructor({ baseUrl, fetch = globalThis.fetch, newKey = () => globalThis.crypto.randomUUID(), retries = 2, wait = null }) {
    this.baseUrl = normaliseBaseUrl(baseUrl);
    this.fetch = fetch;
    this.newKey = newKey;
    this.retries = retries;
    // Between retries; tests pass an immediate one.
    this.wait = wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async request(method, path, { token = null, body = undefined, idempotent = false } = {}) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (idempotent) headers["Idempotency-Key"] = this.newKey();
    const attempts = idempotent ? this.retries + 1 : 1;
    let lastError;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (attempt > 0) await this.wait(250 * 2 ** (attempt - 1));
      try {
        return await this.#send(method, path, headers, body);
      } catch (error) {
        lastError = error;
        if (!isRetryable(error)) throw error;
      }
    }
    throw lastError;
  }

  async #send(method, path, headers, body) {
    const response = await this.fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 204) return null;
    const text = await response.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    if (!response.ok) throw new FirefightError(response.status, data, text.slice(0, 200));
    return data;
  }

  readyz() {
    return this.request("GET", "/readyz");
  }

  /** GET /v1/rulesets/{ruleset}: what it supports, and the data a client draws with (Hard Life's body map). */
  ruleset(id) {
    return this.request("GET", `/v1/rulesets/${encodeURIComponent(id)}`);
  }

  /**
   * POST /v1/encounters. Foundry keeps its own sheets, and its players' requests carry their
   * actors' numbers: the encounter lets them ("sheet_policy": "typed"), hidden actors staying hidden.
   * `damage` says who keeps the condition monitors: Foundry's sheets ("vtt", the module's
   * default) or the service ("service", mirrored onto the sheets: monitor-sync.mjs).
   */
  createEncounter(adminKey, { ruleset, name = "", damage = "vtt" }) {
    const body = { ruleset, name, sheet_policy: "typed", damage };
    return this.request("POST", "/v1/encounters", { token: adminKey, body, idempotent: true });
  }

  /** PUT /v1/encounters/{id}/state (GM): a correction of the state, e.g. `{"damage": "service"}`. */
  editState(id, token, body) {
    return this.request("PUT", `/v1/encounters/${encodeURIComponent(id)}/state`, { token, body });
  }

  getEncounter(id, token) {
    return this.request("GET", `/v1/encounters/${encodeURIComponent(id)}`, { token });
  }

  attack(id, token, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/attacks`, { token, body, idempotent: true });
  }

  /**
   * The odds of an attack (docs/odds.md): the attack's own body without given dice; nothing is
   * rolled, stored or published, so it goes without an Idempotency-Key and is never retried.
   */
  attackOdds(id, token, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/attacks/odds`, { token, body });
  }

  zoneTestOdds(id, token, zone, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/zones/${encodeURIComponent(zone)}/tests/odds`, { token, body });
  }

  action(id, token, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/actions`, { token, body, idempotent: true });
  }

  advance(id, token, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/advance`, { token, body, idempotent: true });
  }

  /**
   * The initiative the service runs (docs/api.md): null while it runs none (its 404 names
   * no-initiative); start a combat turn, join it, leave it, stop it (GM).
   */
  async getInitiative(id, token) {
    try {
      return await this.request("GET", `/v1/encounters/${encodeURIComponent(id)}/initiative`, { token });
    } catch (error) {
      if (error instanceof FirefightError && error.status === 404 && String(error.problem?.type ?? "").endsWith("/no-initiative")) return null;
      throw error;
    }
  }

  startInitiative(id, token, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/initiative`, { token, body, idempotent: true });
  }

  joinInitiative(id, token, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/initiative/actors`, { token, body, idempotent: true });
  }

  leaveInitiative(id, token, actor) {
    return this.request("DELETE", `/v1/encounters/${encodeURIComponent(id)}/initiative/actors/${encodeURIComponent(actor)}`, { token, idempotent: true });
  }

  stopInitiative(id, token) {
    return this.request("DELETE", `/v1/encounters/${encodeURIComponent(id)}/initiative`, { token, idempotent: true });
  }

  zoneTest(id, token, zone, body) {
    return this.request("POST", `/v1/encounters/${encodeURIComponent(id)}/zones/${encodeURIComponent(zone)}/tests`, { token, body, idempotent: true });
  }

  /** The scene (docs/api.md, "The scene"): the GM sets, patches and removes actors; a move is a POST. */
  putActor(id, token, actor, body) {
    return this.request("PUT", actorPath(id, actor), { token, body });
  }

  patchActor(id, token, actor, body) {
    return this.request("PATCH", actorPath(id, actor), { token, body });
  }

  deleteActor(id, token, actor) {
    return this.request("DELETE", actorPath(id, actor), { token });
  }

  getActor(id, token, actor) {
    return this.request("GET", actorPath(id, actor), { token });
  }

  /**
   * The condition monitor the service keeps (docs/api.md): the GM heals, sets or clears it
   * (`{"set": {...}, "version": N}`: refused with 409 state-changed once the encounter moved past
   * N); damage waiting for confirmation is applied (the GM or the actor's controller) or declined.
   */
  editMonitor(id, token, actor, body) {
    return this.request("POST", `${actorPath(id, actor)}/monitor`, { token, body, idempotent: true });
  }

  applyPending(id, token, actor, damage) {
    return this.request("POST", `${actorPath(id, actor)}/monitor/pending/${encodeURIComponent(damage)}`, { token, idempotent: true });
  }

  moveActor(id, token, actor, position) {
    return this.request("POST", `${actorPath(id, actor)}/move`, { token, body: { position }, idempotent: true });
  }

  events(id, token, after = null) {
    const query = after ? `?after=${encodeURIComponent(after)}` : "";
    return this.request("GET", `/v1/encounters/${encodeURIComponent(id)}/events${query}`, { token });
  }

  endEncounter(id, token) {
    return this.request("DELETE", `/v1/encounters/${encodeURIComponent(id)}`, { token });
  }
}
