// The GM's Undo, next to the feed: it takes back the newest change the feed shows
// (POST .../undo with that event's id, so a change that landed in between, or a second click,
// is a 409 and never undoes two). A chain of undos walks back through the feed's changes until
// the service says none is left; a player's link is never taken back. Every refusal is shown in
// the panel's alert, never thrown.

import * as api from "./api.js";
import { el } from "./results.js";

// Events that change nothing an undo could take back; an undo event takes back the one it names.
const NOT_CHANGES = new Set(["encounter_created", "encounter_ended", "undo"]);

export class UndoControl {
  // `summarize(event)`: an event in words; `onAnswer(answer)`: the undo's answer (shown as the
  // page's result); `onForbidden()`: the token is a player's after all.
  constructor({ panel, feed, session, summarize, onAnswer, onForbidden }) {
    this.panel = panel;
    this.feed = feed;
    this.button = panel.querySelector("#undo");
    this.next = panel.querySelector("#undo-next");
    this.alert = panel.querySelector("#undo-error");
    this.session = session;
    this.summarize = summarize;
    this.onAnswer = onAnswer;
    this.onForbidden = onForbidden;
    this.button.addEventListener("click", () => this.undo());
    this.reset();
  }

  // A new encounter: no change seen yet. `left`: what the last undo said is left (null: not
  // known since the last change).
  reset() {
    this.changes = [];
    this.undone = new Set();
    this.left = null;
    this.ended = false;
    this.alert.hidden = true;
    this.show();
  }

  setRole(role) {
    this.panel.hidden = role === "player";
  }

  // Every event the feed shows, in order.
  note(event) {
    if (event.type === "undo") {
      this.markUndone(event.result?.undone);
      this.left = event.result?.left ?? null;
    } else if (!NOT_CHANGES.has(event.type)) {
      this.changes.push({ id: event.id, type: event.type, text: this.summarize(event) });
      this.left = null;
    }
    if (event.type === "encounter_ended") this.ended = true;
    this.show();
  }

  markUndone(id) {
    if (!id || this.undone.has(id)) return;
    this.undone.add(id);
    const item = this.feed.querySelector(`li[data-event-id="${CSS.escape(id)}"]`);
    if (item) {
      item.classList.add("undone");
      item.querySelector(".summary")?.after(" ", el("span", { class: "badge undone-badge", text: "(undone)" }));
    }
  }

  // The newest change not taken back yet: what Undo sends as `event`.
  candidate() {
    return [...this.changes].reverse().find((change) => !this.undone.has(change.id)) || null;
  }

  show() {
    const next = this.candidate();
    let text;
    if (this.ended) text = "The encounter has ended.";
    else if (!next) text = "Nothing to undo.";
    else if (this.left === 0) text = "Nothing more to undo: the service keeps no older change.";
    else if (next.type === "players") text = "The newest change is a player's link: it is never taken back.";
    else text = `Takes back event ${next.id}: ${next.text}`;
    this.button.disabled = !next || this.ended || this.left === 0 || next.type === "players";
    this.next.textContent = text;
  }

  async undo() {
    const next = this.candidate();
    const session = this.session();
    if (!next || !session) return;
    this.alert.hidden = true;
    this.button.disabled = true;
    try {
      const answer = await api.undo(session.id, session.token, { event: next.id });
      this.markUndone(answer.result.undone);
      this.left = answer.result.left;
      this.onAnswer(answer);
    } catch (problem) {
      if (problem.status === 403) this.onForbidden();
      this.alert.textContent = `Not undone: ${problem.describe?.() || problem.message}`;
      this.alert.hidden = false;
    } finally {
      this.show();
    }
  }
}
