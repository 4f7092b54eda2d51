// What every ruleset's request module builds on (requests.mjs for sr5 and d100, sr3-requests.mjs,
// sr4-requests.mjs, sr3hl-requests.mjs): the error a form's input makes, the service's ids, and
// the coercions of what was typed. It imports nothing, so the request modules can share it
// without importing one another back.

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A request the form cannot make: `key` names its text under FIREFIGHT.Error (with `data`). */
export class RequestError extends Error {
  constructor(message, path, key = null, data = {}) {
    super(message);
    this.name = "RequestError";
    this.path = path;
    this.key = key;
    this.data = data;
  }
}

/** A service id for a Foundry document id or name (letters, digits, `_ . : -`, up to 64). */
export function serviceId(value) {
  const cleaned = String(value ?? "").replace(/[^A-Za-z0-9_.:-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
  if (!ID_PATTERN.test(cleaned)) throw new RequestError(`"${value}" cannot be a firefight id`, "$.id", "badId", { value });
  return cleaned;
}

/** `value` when it is one of `allowed`, else `fallback`. */
export function choice(value, allowed, fallback) {
  return allowed.includes(value) ? value : fallback;
}

/** A typed number, rounded; `fallback` for what is no number. */
export function integer(value, fallback = 0) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n) : fallback;
}
