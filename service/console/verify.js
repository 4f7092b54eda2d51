// Checks an encounter's dice against its revealed secrets, in the browser, with no server call:
// the same check as `python -m service.verify` (service/verify.py), written again here from
// docs/dice.md. Pure functions only (verify-page.js wires the page), so node runs them too.
//
// SHA-256 and HMAC are our own few lines: crypto.subtle exists only in secure contexts (https,
// localhost), and a table's console is often plain http on the LAN.

const HMAC_VERSION = "hmac-sha256-1";
const MAX_SIDES = 256;

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

// FIPS 180-4 SHA-256 of a Uint8Array.
export function sha256(bytes) {
  const length = bytes.length;
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, hh].forEach((value, i) => { h[i] = (h[i] + value) >>> 0; });
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  h.forEach((value, i) => out.setUint32(i * 4, value));
  return digest;
}

// RFC 2104 HMAC with SHA-256.
export function hmacSha256(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}

export const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export function fromHex(hex) {
  if (typeof hex !== "string" || !/^([0-9a-fA-F]{2})*$/.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

const utf8 = (text) => new TextEncoder().encode(text);

export const commitment = (secret) => toHex(sha256(secret));

// docs/dice.md: six lines joined by "\n", the last without one.
export function message(encounter, sequence, step, clientSeed, counter) {
  return utf8([HMAC_VERSION, encounter, String(sequence), step, clientSeed ?? "", String(counter)].join("\n"));
}

// One step's stream of bytes, read as faces by rejection sampling; draws go on where the last
// stopped.
export class StepStream {
  constructor(secret, encounter, sequence, step, clientSeed) {
    Object.assign(this, { secret, encounter, sequence, step, clientSeed });
    this.counter = 0;
    this.block = new Uint8Array(0);
    this.offset = 0;
  }

  draw(count, sides) {
    const limit = 256 - (256 % sides);
    const faces = [];
    while (faces.length < count) {
      if (this.offset === this.block.length) {
        this.block = hmacSha256(this.secret, message(this.encounter, this.sequence, this.step, this.clientSeed, this.counter));
        this.counter += 1;
        this.offset = 0;
      }
      const byte = this.block[this.offset++];
      if (byte < limit) faces.push((byte % sides) + 1);
    }
    return faces;
  }
}

// The event's `seed` under the HMAC version: the empty step's first block, 8 bytes, >> 1.
export function derivedSeed(secret, encounter, sequence, clientSeed) {
  const first = hmacSha256(secret, message(encounter, sequence, "", clientSeed, 0));
  let value = 0n;
  for (const byte of first.subarray(0, 8)) value = (value << 8n) | BigInt(byte);
  return value >> 1n;
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

// Every die record of a result, but in what went off from an earlier event's seed.
function diceRecords(value, found = []) {
  if (Array.isArray(value)) value.forEach((item) => diceRecords(item, found));
  else if (isObject(value)) {
    if (typeof value.step === "string" && Array.isArray(value.values)) found.push(value);
    else for (const [key, item] of Object.entries(value)) if (key !== "went_off") diceRecords(item, found);
  }
  return found;
}

// Whether a result shows dice of what went off from an earlier event's seed.
function wentOff(value) {
  if (Array.isArray(value)) return value.some(wentOff);
  if (!isObject(value)) return false;
  return Object.entries(value).some(([key, item]) => (key === "went_off" ? diceRecords(item).length > 0 : wentOff(item)));
}

function seeds(value, found = []) {
  if (Array.isArray(value)) value.forEach((item) => seeds(item, found));
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "seed") found.push(item);
      else if (key !== "went_off") seeds(item, found);
    }
  }
  return found;
}

const sameValues = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);
const same = (record, roll) =>
  record.step === roll.step && record.sides === roll.sides && sameValues(record.values, roll.values) && record.given === roll.given;

// The events of an exported fight log, a page of GET .../events, or a list.
export function eventsOf(document) {
  const events = Array.isArray(document) ? document : document?.events;
  if (!Array.isArray(events) || !events.every(isObject)) throw new Error("expected a list of events, or an object whose `events` is one");
  return events;
}

class Check {
  constructor(secrets) {
    this.secrets = new Map(secrets.map((secret) => [commitment(secret), secret]));
    this.ranges = new Map();
    this.inForce = null;
    this.lastSequence = 0;
  }

  reveal(event, report) {
    const result = event.result ?? {};
    if (!isObject(result) || result.kind !== "dice_revealed") return;
    const opened = String(result.commitment);
    const secret = fromHex(String(result.secret)) ?? new Uint8Array(0);
    if (commitment(secret) !== opened) {
      report.status = "failed";
      report.notes.push(`the revealed secret does not open commitment ${opened}`);
      return;
    }
    this.secrets.set(opened, secret);
    const int = (value) => (Number.isInteger(value) ? value : -1);
    this.ranges.set(opened, [int(result.first_sequence), int(result.last_sequence)]);
    report.status = "verified";
    report.notes.push(`the revealed secret opens commitment ${opened}`);
  }

  rolled(event, proof, report) {
    const { sequence, commitment: used } = proof;
    report.sequence = Number.isInteger(sequence) ? sequence : null;
    if (!Number.isInteger(sequence) || typeof used !== "string") {
      report.status = "failed";
      report.notes.push("the proof names no sequence or no commitment");
      return;
    }
    const failed = [];
    if (sequence <= this.lastSequence) failed.push(`sequence ${sequence} comes after ${this.lastSequence}: events reordered, repeated or made up`);
    this.lastSequence = Math.max(this.lastSequence, sequence);
    if (this.inForce !== null && used !== this.inForce) failed.push(`rolled with commitment ${used}, but ${this.inForce} was in force`);
    const span = this.ranges.get(used);
    if (span && !(span[0] <= sequence && sequence <= span[1])) failed.push(`sequence ${sequence} is outside the revealed span ${span[0]}-${span[1]}`);
    const secret = this.secrets.get(used);
    const rolls = (Array.isArray(proof.rolls) ? proof.rolls : []).filter(isObject);
    report.given = rolls.filter((roll) => roll.given).map((roll) => String(roll.step));
    if (!secret) {
      report.status = failed.length ? "failed" : "unverifiable";
      report.notes.push(...(failed.length ? failed : [`the secret of commitment ${used} is not revealed`]));
      return;
    }
    const clientSeed = proof.client_seed ?? null;
    const encounter = String(event.encounter);
    const streams = new Map();
    for (const roll of rolls) {
      const { step, sides, values } = roll;
      if (roll.given || !Number.isInteger(sides) || !Array.isArray(values)) continue;
      if (sides < 1 || sides > MAX_SIDES) {
        failed.push(`step '${step}': a d${sides} is no die of this version`);
        continue;
      }
      const key = String(step);
      if (!streams.has(key)) streams.set(key, new StepStream(secret, encounter, sequence, key, clientSeed));
      const expected = streams.get(key).draw(values.length, sides);
      expected.forEach((want, index) => {
        if (want === values[index]) report.verified += 1;
        else report.mismatches.push({ step: key, index, expected: want, found: values[index] });
      });
    }
    for (const record of diceRecords(event.result)) {
      if (!rolls.some((roll) => same(record, roll))) failed.push(`the result shows dice of step '${record.step}' the proof does not hold`);
    }
    const seed = derivedSeed(secret, encounter, sequence, clientSeed);
    // A 63-bit seed is read from JSON as the nearest double, on both sides of the comparison.
    if (seeds(event.result).some((shown) => shown !== null && shown !== undefined && Number(shown) !== Number(seed))) {
      failed.push(`the result's seed is not the secret's (${seed})`);
    }
    report.notes.push(...failed);
    report.status = failed.length || report.mismatches.length ? "failed" : "verified";
  }
}

// The check of `events` (oldest first), with `secrets` (Uint8Arrays) known besides the revealed
// ones: { ok, events: [{ id, type, status, sequence, verified, given, mismatches, notes }] }.
export function verifyEvents(events, secrets = []) {
  const check = new Check(secrets);
  for (const event of events) check.reveal(event, { notes: [] });
  const reports = [];
  for (const event of events) {
    const report = { id: String(event.id ?? ""), type: String(event.type ?? ""), status: "", sequence: null, verified: 0, given: [], mismatches: [], notes: [] };
    check.reveal(event, report);
    const opened = isObject(event.result) && event.result.kind === "dice_revealed" ? event.result.commitment : null;
    if (opened !== null && check.inForce !== null && opened !== check.inForce) {
      report.status = "failed";
      report.notes.push(`reveals commitment ${opened}, but ${check.inForce} was in force`);
    }
    const proof = event.dice;
    if (isObject(proof) && proof.version === HMAC_VERSION) check.rolled(event, proof, report);
    else if (isObject(proof) || diceRecords(event.result).length) {
      report.status ||= "unverifiable";
      report.notes.push("not verifiable (mt19937 seed)");
    }
    if (wentOff(event.result)) {
      report.status ||= "unverifiable";
      report.notes.push("a held grenade's blast: seeded (mt19937), not verifiable");
    }
    const committed = event.commitment;
    if (isObject(committed) && typeof committed.commitment === "string") {
      check.inForce = committed.commitment;
      report.status ||= "verified";
      report.notes.push(`commitment ${check.inForce} takes over`);
    }
    if (report.status) reports.push(report);
  }
  return { ok: reports.every((report) => report.status !== "failed"), events: reports };
}
