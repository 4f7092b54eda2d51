// When the encounter expires, under its facts: "Kept until <local date and time>", and with less
// than a day left a warning that says what keeps it and how to keep a copy. Nothing when nothing
// expires (the durable store with no TTL). Each event is a write, and each write keeps the
// encounter `ttl_seconds` from its time: the milliseconds of its id (docs/api.md, "Expiry").

import { el } from "./results.js";

// Less than this left: the warning shows.
export const WARN_SECONDS = 24 * 3600;
// The longest a browser timer waits (2^31 - 1 ms); a later moment is looked at again then.
const LONGEST_WAIT_MS = 2 ** 31 - 1;

const plural = (count, unit) => `${count} ${unit}${count === 1 ? "" : "s"}`;

// "1 hour", "7 days", "90 minutes": the largest unit that says it whole.
export function duration(seconds) {
  if (seconds % 86400 === 0) return plural(seconds / 86400, "day");
  if (seconds % 3600 === 0) return plural(seconds / 3600, "hour");
  return plural(Math.max(1, Math.round(seconds / 60)), "minute");
}

// The milliseconds an event id "<ms>-<seq>" was written at; NaN for anything else.
const writtenAt = (eventId) => Number(/^(\d+)-\d+$/.exec(String(eventId))?.[1] ?? NaN);

export class ExpiryNotice {
  constructor({ kept, warning }) {
    this.kept = kept;
    this.warning = warning;
    this.clear();
  }

  // The encounter as GET answered it. A read that crossed a newer event does not take the
  // time back.
  show(id, view) {
    const expiresAt = view.expires_at ? Date.parse(view.expires_at) : null;
    const later = id === this.id && expiresAt !== null && this.expiresAt > expiresAt;
    this.id = id;
    this.ttl = view.ttl_seconds ?? null;
    if (!later) this.expiresAt = expiresAt;
    this.draw();
  }

  // An event of the encounter: a change keeps it `ttl` from its time; an ended encounter is
  // said to have ended elsewhere, and no change keeps it any more.
  note(event) {
    if (this.ttl === null) return;
    if (event.type === "encounter_ended") {
      this.clear();
      return;
    }
    const at = writtenAt(event.id);
    if (Number.isNaN(at)) return;
    const expiresAt = at + this.ttl * 1000;
    // Events replayed on a reconnect are older than what GET said.
    if (this.expiresAt !== null && expiresAt <= this.expiresAt) return;
    this.expiresAt = expiresAt;
    this.draw();
  }

  clear() {
    clearTimeout(this.timer);
    this.id = null;
    this.ttl = null;
    this.expiresAt = null;
    this.draw();
  }

  draw() {
    clearTimeout(this.timer);
    if (this.expiresAt === null || this.ttl === null) {
      this.kept.replaceChildren();
      this.kept.hidden = true;
      this.warning.replaceChildren();
      this.warning.hidden = true;
      return;
    }
    const at = new Date(this.expiresAt);
    this.kept.replaceChildren("Kept until ",
      el("time", { datetime: at.toISOString().replace("Z", "+00:00"), text: at.toLocaleString() }),
      ` unless something changes it (each change keeps it ${duration(this.ttl)} more).`);
    this.kept.hidden = false;
    const left = this.expiresAt - Date.now();
    const warn = left < WARN_SECONDS * 1000;
    this.warning.hidden = !warn;
    if (warn) {
      const file = `${this.id}.json`;
      this.warning.replaceChildren(
        el("strong", { text: left > 0 ? "Less than 24 hours left: " : "This encounter has expired: " }),
        "the service forgets this encounter at the time above. ",
        `Any change to the encounter keeps it another ${duration(this.ttl)}. To keep a copy, run `,
        el("code", { text: `python -m service export --encounter ${this.id} --out ${file}` }),
        " where the service runs.");
    } else {
      this.warning.replaceChildren();
    }
    // Looked at again when the warning is due (or the time is up), however long the page stays.
    const next = warn ? left : left - WARN_SECONDS * 1000;
    if (next > 0) this.timer = setTimeout(() => this.draw(), Math.min(next + 1000, LONGEST_WAIT_MS));
  }
}
