// The fight as a file to keep: every event of the encounter read from the service (all pages
// of GET .../events), downloaded as JSON (the events as the service gives them) or as Markdown
// (one line per event, in the feed's words).

import * as api from "./api.js";

// Pages read at most (1000 events each, as the service pages them): an export stops there and
// says so rather than ask without end.
const MAX_PAGES = 100;

// Every event of the encounter, oldest first; `truncated` when MAX_PAGES was not enough.
export async function readAllEvents(id, token, getEvents = api.getEvents) {
  const events = [];
  let after = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await getEvents(id, token, after);
    events.push(...answer.events);
    if (!answer.more || !answer.last_event_id) return { events, truncated: false };
    after = answer.last_event_id;
  }
  return { events, truncated: true };
}

// The Markdown log: a heading with the encounter, then one list item per event.
export function markdownLog(encounter, events, summarize) {
  const title = encounter.name || encounter.id;
  const lines = [
    `# ${title}`,
    "",
    `Ruleset: ${encounter.ruleset}. Encounter id: \`${encounter.id}\`. ${events.length} events.`,
    "",
  ];
  for (const event of events) lines.push(`- ${event.at} (${event.type}): ${summarize(event)}`);
  return `${lines.join("\n")}\n`;
}

export function jsonLog(encounter, events) {
  return `${JSON.stringify({ encounter: { id: encounter.id, name: encounter.name, ruleset: encounter.ruleset }, events }, null, 2)}\n`;
}

// "Warehouse" -> "fight-warehouse-<id>.md": a name a file system takes.
export function fileName(encounter, extension) {
  const stem = String(encounter.name || "encounter").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "encounter";
  return `fight-${stem}-${encounter.id}.${extension}`;
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export class FightLog {
  // `session()`: the encounter joined ({id, token, name, ruleset}); `summarize(event)`: the
  // feed's words for an event; `status`: where the page says what it did.
  constructor({ session, summarize, markdown, json, status }) {
    this.session = session;
    this.summarize = summarize;
    this.status = status;
    markdown.addEventListener("click", () => this.export("md", markdown));
    json.addEventListener("click", () => this.export("json", json));
  }

  async export(kind, button) {
    const encounter = this.session();
    if (!encounter) return;
    button.disabled = true;
    this.status.dataset.kind = "info";
    this.status.textContent = "Reading the fight's events…";
    try {
      const { events, truncated } = await readAllEvents(encounter.id, encounter.token);
      const name = fileName(encounter, kind);
      if (kind === "md") download(name, "text/markdown", markdownLog(encounter, events, this.summarize));
      else download(name, "application/json", jsonLog(encounter, events));
      this.status.textContent = `Saved ${name}: ${events.length} events${truncated ? " (the first ones only: the fight is longer than one export reads)" : ""}.`;
    } catch (error) {
      this.status.dataset.kind = "error";
      this.status.textContent = `The fight could not be read: ${error.describe?.() || error.message}`;
    } finally {
      button.disabled = false;
    }
  }
}
