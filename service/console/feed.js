// Follows an encounter's WebSocket: every event once and in order, reconnecting with backoff and
// resuming after the last event id received (docs/api.md, "Events and live updates").

import { ApiError, getEncounter, socketUrl } from "./api.js";

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
// 1000: the encounter ended (nothing more will come); anything else is worth a reconnect.
const CLOSE_NORMAL = 1000;

export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
  // Full jitter on the upper half: many consoles that lost one replica do not come back at once.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export class EventFeed {
  constructor({ encounter, token, onEvent, onStatus }) {
    this.encounter = encounter;
    this.token = token;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.lastId = null;
    this.attempt = 0;
    this.socket = null;
    this.timer = null;
    this.stopped = false;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) {
      const socket = this.socket;
      this.socket = null;
      socket.close(CLOSE_NORMAL, "leaving");
    }
  }

  connect() {
    if (this.stopped) return;
    const socket = new WebSocket(socketUrl(this.encounter, this.token, this.lastId));
    this.socket = socket;
    let opened = false;
    this.onStatus(this.attempt ? `Reconnecting (try ${this.attempt + 1})…` : "Connecting…", "connecting");
    socket.addEventListener("open", () => {
      opened = true;
      this.attempt = 0;
      const from = this.lastId ? `, resumed after ${this.lastId}` : "";
      this.onStatus(`Live${from}.`, "live");
    });
    socket.addEventListener("message", (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      // The server never repeats an event on one socket; a resume could, if a client raced it.
      if (this.lastId && compareIds(event.id, this.lastId) <= 0) return;
      this.lastId = event.id;
      this.onEvent(event);
    });
    socket.addEventListener("close", (closed) => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = null;
      if (closed.code === CLOSE_NORMAL) {
        this.onStatus("The encounter has ended; the feed is closed.", "ended");
        return;
      }
      if (opened) {
        this.schedule(`Connection lost (code ${closed.code}).`);
      } else {
        this.probe();
      }
    });
  }

  // A socket refused before it opened tells the browser nothing: ask the HTTP API why, and give
  // up on a refusal that no retry will change (a bad token, an encounter that is gone).
  async probe() {
    try {
      await getEncounter(this.encounter, this.token);
    } catch (error) {
      if (error instanceof ApiError && [401, 403, 404, 410].includes(error.status)) {
        this.onStatus(`The feed stopped: ${error.describe()}`, "stopped");
        return;
      }
    }
    this.schedule("The connection failed.");
  }

  schedule(reason) {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.onStatus(`${reason} Reconnecting in ${(delay / 1000).toFixed(1)} s…`, "waiting");
    this.timer = setTimeout(() => this.connect(), delay);
  }
}

// Event ids are "<milliseconds>-<sequence>", up to 19 digits each: compare them as numbers.
export function compareIds(a, b) {
  const [am, as] = a.split("-").map(BigInt);
  const [bm, bs] = b.split("-").map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  if (as !== bs) return as < bs ? -1 : 1;
  return 0;
}
