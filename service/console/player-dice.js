// A player's own dice entry: one field per dice step that player rolls at the table, typed as
// the faces rolled ("6 5 5 2"), read as a request's `dice`. What was typed stays with its step
// name while the steps change (another target, another gun). A step may come with what to roll
// (`count`, or a `prompt` such as "Roll 11 d6" from the service's own count of the step) so that
// the same entry can walk a table through each roll; left empty, a step is rolled by the service.

import { diceInputs, readDice } from "./fields.js";
import { el } from "./results.js";

export class DiceEntry {
  // `container`: where the fields go; `idPrefix`: their ids (`<prefix>-0`, ...), unique on the page.
  constructor({ container, idPrefix }) {
    this.container = container;
    this.idPrefix = idPrefix;
    this.typed = new Map();
    this.steps = [];
  }

  // `steps`: [{step, sides, count?, prompt?}], in the order they are rolled.
  setSteps(steps) {
    this.remember();
    this.steps = steps;
    const fields = diceInputs(steps, this.idPrefix, this.typed);
    fields.forEach((field, index) => {
      // The count is in the label ("attack (d6, 11 dice)"); a prompt says more ("Sam: roll 11 dice").
      const { prompt } = steps[index];
      if (prompt) field.appendChild(el("p", { class: "dice-prompt", dataField: "prompt", text: prompt }));
    });
    this.container.replaceChildren(...fields);
    this.container.hidden = !steps.length;
  }

  remember() {
    for (const input of this.container.querySelectorAll("input[data-step]")) this.typed.set(input.dataset.step, input.value);
  }

  // The faces typed, by step ({} when none): a FieldError at the field that cannot be read.
  read() {
    return readDice(this.container);
  }

  // The field of one step (a problem's `$.dice["attack"]` points at it), or null.
  inputFor(step) {
    return [...this.container.querySelectorAll("input[data-step]")].find((input) => input.dataset.step === step) || null;
  }

  // The dice were used (the attack was resolved): the fields start empty again.
  clear() {
    this.typed.clear();
    for (const input of this.container.querySelectorAll("input[data-step]")) input.value = "";
  }
}
