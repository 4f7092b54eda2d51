// The GM reveals the dice secret (POST .../dice/reveal): everyone can then check every die rolled
// so far on the "Check the dice" page, with the fight's export; a new commitment takes over (its
// event updates the Dice line, as every console hears it).

import * as api from "./api.js";

const $ = (id) => document.getElementById(id);

export class RevealControl {
  // `session()`: the encounter joined ({id, token}); `onForbidden()`: the token is a player's.
  constructor({ session, onForbidden }) {
    this.session = session;
    this.onForbidden = onForbidden;
    this.button = $("reveal-dice");
    this.status = $("reveal-status");
    this.button.addEventListener("click", () => this.reveal());
  }

  setRole(role) {
    this.button.hidden = role === "player";
  }

  reset() {
    this.status.textContent = "";
  }

  // The encounter ended: its end revealed the secret already.
  ended() {
    this.button.hidden = true;
  }

  async reveal() {
    const { id, token } = this.session();
    this.button.disabled = true;
    try {
      const answer = await api.revealDice(id, token);
      const opened = answer.result;
      this.status.textContent = `Revealed: changes ${opened.first_sequence} to ${opened.last_sequence} can be checked (export the fight, then "Check the dice").`;
    } catch (error) {
      this.status.textContent = `Not revealed: ${error.describe?.() || error.message}`;
      if (error.status === 403) this.onForbidden?.();
    } finally {
      this.button.disabled = false;
    }
  }
}
