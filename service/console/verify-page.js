// The "check the dice" page (verify.html): reads a fight log from a file or the text box and
// shows what verify.js says of it, event by event. No request leaves the page (its CSP says
// connect-src 'none').

import { eventsOf, fromHex, verifyEvents } from "./verify.js";

const $ = (id) => document.getElementById(id);

function line(report) {
  const item = document.createElement("li");
  item.dataset.status = report.status;
  const where = `Event ${report.id} (${report.type}${report.sequence === null ? "" : `, change ${report.sequence}`})`;
  const says = {
    verified: report.verified ? `${report.verified} dice are the secret's` : "checks out",
    failed: "DOES NOT CHECK OUT",
    unverifiable: "not verifiable",
  }[report.status] ?? report.status;
  const parts = [`${where}: ${says}.`];
  if (report.given.length) parts.push(`Given at the table (not verified): ${report.given.join(", ")}.`);
  for (const m of report.mismatches) parts.push(`Step ${m.step}, die ${m.index + 1}: the secret gives ${m.expected}, the event shows ${m.found}.`);
  parts.push(...report.notes.map((note) => `${note[0].toUpperCase()}${note.slice(1)}.`));
  item.textContent = parts.join(" ");
  return item;
}

async function check(event) {
  event.preventDefault();
  const status = $("verify-status");
  const list = $("verify-report");
  list.replaceChildren();
  try {
    const file = $("verify-file").files[0];
    const text = file ? await file.text() : $("verify-text").value;
    const events = eventsOf(JSON.parse(text));
    const secrets = $("verify-secrets").value.split(/\s+/).filter(Boolean).map((hex) => {
      const secret = fromHex(hex);
      if (!secret) throw new Error(`not a secret in hex: ${hex.slice(0, 16)}`);
      return secret;
    });
    const report = verifyEvents(events, secrets);
    list.replaceChildren(...report.events.map(line));
    const failed = report.events.filter((e) => e.status === "failed").length;
    status.textContent = report.ok
      ? `Every die checks out (${events.length} events read).`
      : `${failed} event${failed === 1 ? " does" : "s do"} not check out.`;
    status.dataset.ok = String(report.ok);
  } catch (error) {
    status.textContent = `Cannot read the fight log: ${error.message}`;
    status.dataset.ok = "false";
  }
}

$("verify-form").addEventListener("submit", check);
