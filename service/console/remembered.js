// The encounters this browser opened, kept in its localStorage so the GM (or a player) reopens
// one with a click after closing the tab or restarting the service; and the admin key, only when
// the GM asks for it. docs/console.md, "Encounters this browser remembers", says what that costs.

import { el } from "./results.js";

const ENCOUNTERS_KEY = "firefight.console.encounters";
const CAMPAIGNS_KEY = "firefight.console.campaigns";
const ADMIN_KEY_KEY = "firefight.console.admin-key";
// Enough for a campaign's worth of fights; the one opened longest ago is forgotten first.
export const REMEMBERED_AT_MOST = 20;
// What a token that opened the encounter before and opens nothing now means: the service no
// longer has it (never "a wrong token": this browser had it right).
export const GONE = "This encounter is gone from the service: it may have ended, or the service was started with --store memory.";
export const CAMPAIGN_GONE = "This campaign is gone from the service (or the token was replaced), or the service was started with --store memory.";

const ROLES = { gm: "GM", player: "player", unknown: "GM or player" };

// A remembered encounter's token answered 401 or 404: the service has no encounter for it.
export const isGone = (error) => [401, 404].includes(error?.status);

function readJson(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null") ?? fallback;
  } catch {
    return fallback; // a value another version wrote, or a hand edit: start again
  }
}

export class RememberedEncounters {
  // `list`: the <ul> the entries are drawn in; `section`: hidden while there are none;
  // `onOpen(entry)`: reopens one (rejects with the service's ApiError). The campaigns this
  // browser opened are kept the same way, under their own key (RememberedCampaigns).
  constructor({ list, section, onOpen, storageKey = ENCOUNTERS_KEY, gone = GONE, attribute = "encounter" }) {
    this.list = list;
    this.section = section;
    this.onOpen = onOpen;
    this.storageKey = storageKey;
    this.goneText = gone;
    this.attribute = attribute;
    // Entries whose token the service refused, by id: said beside them until forgotten.
    this.gone = new Set();
  }

  entries() {
    const entries = readJson(this.storageKey, []);
    return Array.isArray(entries) ? entries.filter((entry) => entry?.id && entry?.token) : [];
  }

  save(entries) {
    localStorage.setItem(this.storageKey, JSON.stringify(entries));
    this.draw();
  }

  // Opened just now: first in the list, the oldest beyond REMEMBERED_AT_MOST forgotten.
  remember({ id, token, tokens = null, role, player = null, name, ruleset }) {
    const others = this.entries().filter((entry) => !(entry.id === id && entry.token === token));
    this.gone.delete(id);
    const opened = new Date().toISOString();
    this.save([{ id, name, ruleset, role, player, token, tokens, opened }, ...others].slice(0, REMEMBERED_AT_MOST));
  }

  // The role the service showed the token has (a token joined by hand may be a player's).
  setRole(id, token, role) {
    const entries = this.entries();
    const entry = entries.find((e) => e.id === id && e.token === token);
    if (entry && entry.role !== role) {
      entry.role = role;
      this.save(entries);
    }
  }

  forget(id, token) {
    this.gone.delete(id);
    this.save(this.entries().filter((entry) => !(entry.id === id && entry.token === token)));
  }

  draw() {
    const entries = this.entries();
    this.section.hidden = entries.length === 0;
    this.list.replaceChildren(...entries.map((entry) => this.item(entry)));
  }

  item(entry) {
    const title = entry.name || entry.id;
    const opened = new Date(entry.opened);
    const when = Number.isNaN(opened.valueOf()) ? "" : `, last opened ${opened.toLocaleString()}`;
    const open = el("button", { type: "button", class: "open", text: `Open ${title}` });
    const forget = el("button", { type: "button", class: "forget", text: "Forget", "aria-label": `Forget ${title}` });
    const note = el("p", { class: "status", role: "status" });
    const item = el("li", { [`data-${this.attribute}`]: entry.id },
      el("div", { class: "row" }, open, forget),
      el("p", { class: "help", text: `${entry.ruleset || "?"}, ${ROLES[entry.role] || entry.role}${entry.player ? ` ${entry.player}` : ""}${when}` }),
      note);
    if (this.gone.has(entry.id)) this.markGone(item, note);
    open.addEventListener("click", async () => {
      open.disabled = true;
      note.textContent = "Opening…";
      delete note.dataset.kind;
      try {
        await this.onOpen(entry);
      } catch (error) {
        if (isGone(error)) {
          this.gone.add(entry.id);
          this.markGone(item, note);
        } else {
          note.textContent = `Not opened: ${error.describe?.() || error.message}`;
          note.dataset.kind = "error";
        }
      } finally {
        open.disabled = false;
      }
    });
    forget.addEventListener("click", () => this.forget(entry.id, entry.token));
    return item;
  }

  markGone(item, note) {
    item.dataset.gone = "true";
    note.textContent = `${this.goneText} Forget removes it from this list.`;
    note.dataset.kind = "error";
  }
}

// The campaigns this browser opened (a GM's, or a player's link): reopened with a click after a
// reload or a restart of the service, as their role.
export class RememberedCampaigns extends RememberedEncounters {
  constructor({ list, section, onOpen }) {
    super({ list, section, onOpen, storageKey: CAMPAIGNS_KEY, gone: CAMPAIGN_GONE, attribute: "campaign" });
  }

  // The token this browser keeps for a campaign (a GM's before a player's), or null.
  tokenFor(id) {
    const entries = this.entries().filter((entry) => entry.id === id);
    return entries.find((entry) => entry.role === "gm") || entries[0] || null;
  }
}

// The admin key, kept only while its checkbox is ticked (off by default).
export const rememberedAdminKey = () => localStorage.getItem(ADMIN_KEY_KEY);

export function keepAdminKey(key) {
  if (key) localStorage.setItem(ADMIN_KEY_KEY, key);
  else localStorage.removeItem(ADMIN_KEY_KEY);
}
