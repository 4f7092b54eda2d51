// Follows an encounter's WebSocket: every event once and in order, reconnecting with backoff and
// resuming after the last event id received (docs/api.md, "Events and live updates").

import { ApiError, getEncounter, socketUrl } from "./api.js";
import { round1 } from "./geometry.js";
import { el } from "./results.js";

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

// The dice an encounter rolls now (GET's `dice`, an event's `commitment`), for the table to
// note and compare with the reveal later (docs/dice.md).
export function diceText(dice) {
  return dice ? `${dice.commitment} (${dice.version}, from change ${dice.first_sequence})` : "seeded (mt19937-1): no commitment yet";
}

// An event in words, as the feed and Undo list it; `formFor(kind)`: the ruleset form that
// summarizes its results (null: none in this console).
export function summarizeEvent(event, formFor) {
  const result = event.result;
  switch (event.type) {
    case "encounter_created":
      return "Encounter created.";
    case "encounter_ended":
      return result?.kind === "dice_revealed" ? "Encounter ended; its dice secret is revealed: check the dice." : "Encounter ended.";
    case "dice_revealed":
      return result
        ? `The GM revealed the dice secret of commitment ${result.commitment.slice(0, 12)}… (events ${result.first_sequence} to ${result.last_sequence}): check the dice. A new commitment takes over.`
        : "The dice now roll from a committed secret.";
    case "dice_seeded":
      return `${result?.player ?? (result?.token === "gm" ? "The GM" : "The player token")} ${result?.has_seed ? "set" : "cleared"} their own dice seed.`;
    case "attack": {
      const ruleset = formFor(result?.kind);
      return ruleset ? ruleset.summary(result) : `${event.actor} attacks.`;
    }
    case "action": {
      const effects = result?.effects?.length ? `: ${result.effects.join("; ")}` : "";
      return `${event.actor}: ${result?.action?.replaceAll("_", " ")}${effects}.`;
    }
    case "advance":
      return `Advance to ${result?.to?.replaceAll("_", " ")}${result?.effects?.length ? `: ${result.effects.join("; ")}` : ""}.`;
    case "initiative":
      return `Initiative ${result?.change}${result?.effects?.length ? `: ${result.effects.join("; ")}` : ""}.`;
    case "state_edited":
      return `The GM edited ${result?.changed?.join(" and ")}${result?.reason ? ` (${result.reason})` : ""}.`;
    case "scene": {
      const at = result?.state?.position;
      const where = at ? `${result.change === "moved" ? " to" : ", at"} x ${round1(at.x)} m, y ${round1(at.y)} m` : "";
      const change = { set: "set on the scene", patched: "changed", hidden: "hidden" }[result?.change] || result?.change;
      return `${result?.actor} ${change}${result?.change === "removed" ? " from the scene" : where}.`;
    }
    case "monitor": {
      const effects = result?.effects?.length ? `: ${result.effects.join("; ")}` : "";
      return `${result?.actor}'s monitor ${result?.change}${effects}${result?.reason ? ` (${result.reason})` : ""}.`;
    }
    case "undo":
      return `Undo: the ${String(result?.undone_type || "change").replaceAll("_", " ")} of event ${result?.undone} taken back${result?.reason ? ` (${result.reason})` : ""}.`;
    case "players": {
      // A player's page learns that a link changed, not whose (the result is the GM's).
      if (!result?.player) return "A player's link changed: the scene is read again.";
      const actors = result.actors?.length ? `, playing ${result.actors.join(", ")}` : ", playing no actor yet";
      return result.has_token === false
        ? `${result.player}'s link was revoked: it opens nothing any more.`
        : `${result.player} has a link of their own${actors}.`;
    }
    case "zone_test": {
      const ruleset = formFor(result?.kind);
      if (ruleset) return ruleset.summary(result);
      return `${result?.actor} tests against ${result?.zone}: ${result?.avoided ? `avoided (${result.avoided})` : result?.hit ? "hit" : "safe"}.`;
    }
    default:
      return `${event.type}${event.actor ? ` by ${event.actor}` : ""}.`;
  }
}

// One line of the feed: when, what happened (`summary`), and a button that shows its result
// (`onShow`) when it has one.
export function feedItem(event, summary, onShow) {
  const time = new Date(event.at);
  const item = el("li", { dataEventId: event.id, dataType: event.type },
    el("time", { datetime: event.at, text: Number.isNaN(time.valueOf()) ? event.at : time.toLocaleTimeString() }),
    " ",
    el("span", { class: "summary", text: summary }));
  if (event.result) {
    const show = el("button", { type: "button", class: "show", text: "Show", "aria-label": `Show event ${event.id}` });
    show.addEventListener("click", onShow);
    item.append(" ", show);
  }
  return item;
}
