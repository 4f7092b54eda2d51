// Follows an encounter's WebSocket (GET /v1/encounters/{id}/ws): every event once, in order,
// reconnecting with backoff after a drop and resuming after the last event it handled
// (`?after=`), so a client that reloads or loses its network misses nothing. The WebSocket
// class, the timers and the randomness are injected: the browser's in Foundry, Node's in tests.

/** The socket URL for an encounter: http -> ws, https -> wss. */
export function socketUrl(baseUrl, encounterId, token, after = null) {
  const url = new URL(`${String(baseUrl).replace(/\/+$/, "")}/v1/encounters/${encodeURIComponent(encounterId)}/ws`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("token", token);
  if (after) url.searchParams.set("after", after);
  return url.href;
}

/** Event ids are "<milliseconds>-<sequence>" (docs/api.md): ordered by both numbers. */
export function compareEventIds(a, b) {
  const [am, as] = String(a).split("-").map((part) => BigInt(part || "0"));
  const [bm, bs] = String(b).split("-").map((part) => BigInt(part || "0"));
  if (am !== bm) return am < bm ? -1 : 1;
  if (as !== bs) return as < bs ? -1 : 1;
  return 0;
}

/** The wait before reconnect `attempt` (0-based): exponential, capped, with jitter in [50%, 100%]. */
export function backoffDelay(attempt, { initialMs = 500, maxMs = 15_000, factor = 2 } = {}, random = Math.random) {
  const ceiling = Math.min(maxMs, initialMs * factor ** attempt);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

// Close codes (docs/api.md): 1000 after encounter_ended, 1001 on shutdown, 1013 when the client
// fell behind or the store failed mid-replay; every other close is a drop.
const NORMAL_CLOSURE = 1000;

export class EncounterFeed {
  constructor({
    baseUrl,
    encounterId,
    token,
    after = null,
    onEvent,
    onStatus = () => {},
    WebSocketImpl = globalThis.WebSocket,
    schedule = (fn, ms) => setTimeout(fn, ms),
    cancel = (handle) => clearTimeout(handle),
    random = Math.random,
    backoff = {},
  }) {
    if (typeof WebSocketImpl !== "function") throw new Error("no WebSocket in this environment");
    this.baseUrl = baseUrl;
    this.encounterId = encounterId;
    this.token = token;
    this.lastEventId = after;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.WebSocketImpl = WebSocketImpl;
    this.schedule = schedule;
    this.cancel = cancel;
    this.random = random;
    this.backoff = backoff;
    this.attempt = 0;
    this.socket = null;
    this.timer = null;
    this.stopped = true;
    this.ended = false;
    // Events are handled one after the other, in the order they came.
    this.queue = Promise.resolve();
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.#connect();
  }

  stop() {
    this.stopped = true;
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState <= 1) socket.close(NORMAL_CLOSURE);
    this.onStatus({ state: "stopped" });
  }

  /** Resolves once every event received so far has been handled. */
  idle() {
    return this.queue;
  }

  #connect() {
    const url = socketUrl(this.baseUrl, this.encounterId, this.token, this.lastEventId);
    const socket = new this.WebSocketImpl(url);
    this.socket = socket;
    this.onStatus({ state: "connecting", after: this.lastEventId });
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.onStatus({ state: "open" });
    });
    socket.addEventListener("message", (message) => {
      if (this.socket !== socket) return;
      this.#receive(message.data);
    });
    socket.addEventListener("close", (close) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (close.code === NORMAL_CLOSURE && this.ended) {
        this.stopped = true;
        this.onStatus({ state: "ended" });
        return;
      }
      const delay = backoffDelay(this.attempt, this.backoff, this.random);
      this.attempt += 1;
      this.onStatus({ state: "reconnecting", delay, code: close.code, after: this.lastEventId });
      this.timer = this.schedule(() => {
        this.timer = null;
        if (!this.stopped) this.#connect();
      }, delay);
    });
    // An error is always followed by a close, which does the reconnecting.
    socket.addEventListener("error", () => {});
  }

  #receive(data) {
    let event;
    try {
      event = JSON.parse(typeof data === "string" ? data : String(data));
    } catch {
      return;
    }
    if (!event || typeof event.id !== "string") return;
    // A replay after a reconnect can repeat what was already handled: each event once.
    if (this.lastEventId && compareEventIds(event.id, this.lastEventId) <= 0) return;
    this.lastEventId = event.id;
    if (event.type === "encounter_ended") this.ended = true;
    this.queue = this.queue.then(() => this.onEvent(event)).catch((error) => this.onStatus({ state: "error", error, event }));
  }
}
