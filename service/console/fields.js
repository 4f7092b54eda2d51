// Labelled form fields built from small specs, and read back into request objects.
//
// A spec: {key: "weapon.ap", label: "AP", type: "int" | "number" | "text" | "select" |
// "checkbox" | "choices", min, max, step, value, options, optional, help, parse, zoneOnly}.
// Dotted keys build nested objects; `optional` fields left empty are left out of the request;
// `zoneOnly` fields show (and are read) only for suppressive fire.

export class FieldError extends Error {
  constructor(input, message) {
    super(message);
    this.input = input;
  }
}

let helpCount = 0;

const optionPairs = (options) =>
  options.map((option) => (Array.isArray(option) ? option : [option, option.replaceAll("_", " ")]));

export function buildField(spec, prefix) {
  const id = `${prefix}-${spec.key.replaceAll(".", "-")}`;
  const wrapper = document.createElement("div");
  wrapper.className = `field field-${spec.type}${spec.zoneOnly ? " zone-only" : ""}`;
  wrapper.dataset.key = spec.key;
  if (spec.type === "choices") {
    const group = document.createElement("fieldset");
    group.className = "choices";
    group.id = id;
    const legend = document.createElement("legend");
    legend.textContent = spec.label;
    group.appendChild(legend);
    for (const [value, text] of optionPairs(spec.options)) {
      const input = document.createElement("input");
      Object.assign(input, { type: "checkbox", id: `${id}-${value}`, value });
      input.checked = (spec.value || []).includes(value);
      const label = document.createElement("label");
      label.htmlFor = input.id;
      label.textContent = text;
      const pair = document.createElement("span");
      pair.className = "choice";
      pair.append(input, label);
      group.appendChild(pair);
    }
    wrapper.appendChild(group);
    return wrapper;
  }
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = spec.label;
  let input;
  if (spec.type === "select") {
    input = document.createElement("select");
    for (const [value, text] of optionPairs(spec.options)) {
      const option = new Option(text, value);
      input.appendChild(option);
    }
    input.value = spec.value ?? optionPairs(spec.options)[0][0];
  } else {
    input = document.createElement("input");
    if (spec.type === "checkbox") {
      input.type = "checkbox";
      input.checked = Boolean(spec.value);
    } else if (spec.type === "int" || spec.type === "number") {
      input.type = "number";
      input.inputMode = spec.type === "int" ? "numeric" : "decimal";
      input.step = spec.step ?? (spec.type === "int" ? "1" : "any");
      if (spec.min !== undefined) input.min = spec.min;
      if (spec.max !== undefined) input.max = spec.max;
      input.value = spec.value ?? "";
    } else {
      input.type = "text";
      input.spellcheck = false;
      input.autocomplete = "off";
      if (spec.pattern) input.pattern = spec.pattern;
      if (spec.placeholder) input.placeholder = spec.placeholder;
      input.value = spec.value ?? "";
    }
  }
  input.id = id;
  input.name = spec.key;
  if (!spec.optional && spec.type !== "checkbox" && spec.type !== "select") input.required = true;
  if (spec.help) {
    const help = document.createElement("small");
    helpCount += 1;
    help.id = `help-${helpCount}`;
    help.className = "help";
    help.textContent = spec.help;
    input.setAttribute("aria-describedby", help.id);
    if (spec.type === "checkbox") wrapper.append(input, label, help);
    else wrapper.append(label, input, help);
  } else if (spec.type === "checkbox") {
    wrapper.append(input, label);
  } else {
    wrapper.append(label, input);
  }
  return wrapper;
}

export function buildFields(container, specs, prefix) {
  for (const spec of specs) container.appendChild(buildField(spec, prefix));
}

function setPath(target, key, value) {
  const parts = key.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part];
  }
  node[parts.at(-1)] = value;
}

function labelOf(input) {
  return input.labels?.[0]?.textContent || input.name;
}

// Reads the fields of `specs` under `container` into a fresh object (dotted keys nest). A
// `quiet` read (an odds preview's, in the background) leaves the marks of invalid fields alone.
export function readFields(container, specs, prefix, { quiet = false } = {}) {
  const out = {};
  for (const spec of specs) {
    const id = `${prefix}-${spec.key.replaceAll(".", "-")}`;
    if (spec.type === "choices") {
      const group = container.querySelector(`#${CSS.escape(id)}`);
      const values = [...group.querySelectorAll("input:checked")].map((input) => input.value);
      if (!values.length && !spec.optional) {
        throw new FieldError(group.querySelector("input"), `${spec.label}: pick at least one`);
      }
      setPath(out, spec.key, values);
      continue;
    }
    const input = container.querySelector(`#${CSS.escape(id)}`);
    if (!input || input.closest("[hidden]")) continue;
    if (!quiet) input.removeAttribute("aria-invalid");
    if (spec.type === "checkbox") {
      setPath(out, spec.key, input.checked);
      continue;
    }
    const raw = input.value.trim();
    if (raw === "") {
      if (spec.optional) continue;
      throw new FieldError(input, `${labelOf(input)}: required`);
    }
    if (!input.checkValidity()) {
      throw new FieldError(input, `${labelOf(input)}: ${input.validationMessage}`);
    }
    let value = raw;
    if (spec.type === "int" || spec.type === "number") value = Number(raw);
    if (spec.parse) {
      try {
        value = spec.parse(raw);
      } catch (error) {
        throw new FieldError(input, `${labelOf(input)}: ${error.message}`);
      }
    }
    setPath(out, spec.key, value);
  }
  return out;
}

// "6 5 5 2" or "6,5,5,2": the faces given for one dice step.
export function parseFaces(text, sides) {
  const faces = text.split(/[\s,;]+/).filter(Boolean).map((token) => {
    if (!/^\d+$/.test(token)) throw new Error(`"${token}" is not a die face`);
    return Number(token);
  });
  if (sides) {
    const wrong = faces.find((face) => face < 1 || face > sides);
    if (wrong !== undefined) throw new Error(`${wrong} is not a face of a d${sides}`);
  }
  return faces;
}

// "aimed +10, darkness -20": named modifiers, as the d100 rules list them.
export function parseModifiers(text) {
  return text.split(/[,;]/).map((part) => part.trim()).filter(Boolean).map((part) => {
    const match = /^(.+?)[\s:]+([+-]?\d+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not "source value" (e.g. "darkness -20")`);
    return { source: match[1].trim(), value: Number(match[2]) };
  });
}

// One labelled input per dice step (`steps`: [{step, sides, count}]); what was typed before
// (`remembered`: step -> text) stays with its step name.
export function diceInputs(steps, idPrefix, remembered = new Map()) {
  return steps.map(({ step, sides, count }, index) => {
    const id = `${idPrefix}-${index}`;
    const die = sides ? `d${sides}` : "dice";
    const label = document.createElement("label");
    label.htmlFor = id;
    const name = document.createElement("code");
    name.textContent = step;
    label.append(name, ` (${die}${count ? `, ${count} ${count === 1 ? "die" : "dice"}` : ""})`);
    const input = document.createElement("input");
    Object.assign(input, { id, type: "text", inputMode: "numeric", autocomplete: "off", spellcheck: false, placeholder: "rolled by the service" });
    input.dataset.step = step;
    input.dataset.sides = sides || "";
    input.value = remembered.get(step) || "";
    const wrapper = document.createElement("div");
    wrapper.className = "field";
    wrapper.append(label, input);
    return wrapper;
  });
}

// The given dice typed under `container`, as a request's `dice`, or a FieldError at the input.
export function readDice(container) {
  const dice = {};
  for (const input of container.querySelectorAll("input[data-step]")) {
    input.removeAttribute("aria-invalid");
    if (!input.value.trim()) continue;
    try {
      dice[input.dataset.step] = parseFaces(input.value, Number(input.dataset.sides) || 0);
    } catch (error) {
      throw new FieldError(input, `Dice for ${input.dataset.step}: ${error.message}`);
    }
  }
  return dice;
}
