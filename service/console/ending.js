// The GM ends the encounter (DELETE /v1/encounters/{id}). One started in a campaign first gives
// its characters back what the fight changed, as the GM ticks it (their monitors, the rounds in
// their guns, the Edge they spent), and the answer says what each took back.

import * as api from "./api.js";

const $ = (id) => document.getElementById(id);

export class EndControl {
  // `session()`: the encounter joined ({id, token, role, campaign}); `onEnded(answer)`: the
  // service's answer (null for an encounter of no campaign).
  // `onForbidden()`: the token turned out to be a player's (403).
  constructor({ session, onEnded, onForbidden }) {
    this.session = session;
    this.onEnded = onEnded;
    this.onForbidden = onForbidden;
    this.form = $("end-form");
    this.opener = $("end-open");
    this.error = $("end-error");
    this.opener.addEventListener("click", () => this.open());
    $("end-cancel").addEventListener("click", () => this.close());
    this.form.addEventListener("submit", (event) => this.end(event));
  }

  // Shown to a GM (or a token joined by hand, until the service says it is a player's).
  setRole(role) {
    this.opener.hidden = role === "player";
    if (role === "player") this.close();
  }

  reset() {
    this.close();
    this.error.hidden = true;
    $("end-carry").hidden = !this.session()?.campaign;
  }

  // The encounter ended (by this page or another): nothing left to end.
  ended() {
    this.close();
    this.opener.hidden = true;
  }

  open() {
    this.form.hidden = false;
    this.opener.hidden = true;
    $("end-confirm").focus();
  }

  close() {
    this.form.hidden = true;
    if (this.session() && this.session().role !== "player") this.opener.hidden = false;
  }

  async end(event) {
    event.preventDefault();
    const { id, token, campaign } = this.session();
    const carry = campaign ? [...$("end-carry").querySelectorAll("input:checked")].map((box) => box.value) : null;
    this.error.hidden = true;
    const button = $("end-confirm");
    button.disabled = true;
    try {
      const answer = await api.endEncounter(id, token, carry);
      this.ended();
      await this.onEnded(answer);
    } catch (error) {
      this.error.textContent = `Not ended: ${error.describe?.() || error.message}`;
      this.error.hidden = false;
      if (error.status === 403) this.onForbidden?.();
    } finally {
      button.disabled = false;
    }
  }
}
