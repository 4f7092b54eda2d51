// The package: a valid manifest whose version is the Python package's, every file it names
// present, every localization key the code and templates use defined, and a zip that unpacks
// with module.json at its root.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { MODULE_ROOT, LANG, localize } from "./foundry-stubs.mjs";
import { buildPackage, crc32 } from "../scripts/build-zip.mjs";

const manifest = JSON.parse(readFileSync(join(MODULE_ROOT, "module.json"), "utf8"));

function pyprojectVersion() {
  const text = readFileSync(join(MODULE_ROOT, "..", "pyproject.toml"), "utf8");
  const project = text.split(/^\[/m).find((section) => section.startsWith("project]"));
  const match = /^version\s*=\s*"([^"]+)"/m.exec(project ?? "");
  assert.ok(match, "pyproject.toml has a [project] version");
  return match[1];
}

test("the manifest names the module and its version is the Python package's", () => {
  assert.equal(manifest.id, "firefight");
  assert.equal(typeof manifest.title, "string");
  assert.ok(manifest.title.length > 0);
  assert.equal(manifest.version, pyprojectVersion());
  assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
  const packageJson = JSON.parse(readFileSync(join(MODULE_ROOT, "package.json"), "utf8"));
  assert.equal(packageJson.version, manifest.version);
});

test("the manifest targets Foundry 13 to 14 (a v15 GM cannot enable it untried) with the v10+ fields only", () => {
  assert.deepEqual(manifest.compatibility, { minimum: "13", verified: "14", maximum: "14" });
  for (const legacy of ["name", "minimumCoreVersion", "compatibleCoreVersion", "author", "dependencies", "system"]) {
    assert.equal(manifest[legacy], undefined, `legacy field ${legacy}`);
  }
});

test("the systems whose sheets it reads are recommended, not required, and the module is not restricted to them", () => {
  const rel = manifest.relationships;
  assert.equal(rel.systems, undefined, "relationships.systems would make it a module of those systems only");
  assert.equal(rel.requires, undefined);
  assert.deepEqual(rel.recommends.map((r) => [r.id, r.type]), [
    ["shadowrun5e", "system"],
    ["shadowrun4e", "system"],
    ["sr3e", "system"],
  ]);
  for (const recommended of rel.recommends) assert.ok(recommended.reason.length > 0);
});

test("every file the manifest names exists, and English is its language", () => {
  for (const path of [...manifest.esmodules, ...manifest.styles, ...manifest.languages.map((l) => l.path)]) {
    assert.ok(existsSync(join(MODULE_ROOT, path)), `${path} exists`);
  }
  assert.deepEqual(manifest.languages.map((l) => l.lang), ["en"]);
  assert.equal(manifest.languages[0].path, "lang/en.json");
});

function keysUsed() {
  const keys = new Set();
  const scan = (dir, pattern) => {
    for (const name of readdirSync(join(MODULE_ROOT, dir))) {
      const text = readFileSync(join(MODULE_ROOT, dir, name), "utf8");
      for (const match of text.matchAll(pattern)) keys.add(match[1]);
    }
  };
  scan("templates", /localize "(FIREFIGHT\.[A-Za-z0-9_.]+)"/g);
  scan("src", /"(FIREFIGHT\.[A-Za-z]+\.[A-Za-z0-9_.]+)"/g);
  scan("src", /`(FIREFIGHT\.[A-Za-z]+\.[A-Za-z0-9_.]+)`/g);
  return [...keys];
}

test("every localization key the templates and code use is in lang/en.json", () => {
  const keys = keysUsed();
  assert.ok(keys.length > 30, `found ${keys.length} keys`);
  const missing = keys.filter((key) => localize(key) === key && !/\.$/.test(key));
  assert.deepEqual(missing, []);
  // Keys built at run time: outcomes, tracks, locations, actions and settings.
  for (const outcome of ["hit", "graze", "miss"]) assert.notEqual(localize(`FIREFIGHT.Outcome.${outcome}`), `FIREFIGHT.Outcome.${outcome}`);
  for (const setting of ["serviceUrl", "playerToken", "encounterId", "ruleset", "gmToken", "adminKey", "damagePath"]) {
    assert.equal(typeof LANG.FIREFIGHT.Settings[setting].Name, "string");
  }
});

/** Read a zip's central directory and entries (APPNOTE 4.3), checking each CRC. */
function unzip(bytes) {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, "end of central directory");
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i += 1) {
    assert.equal(bytes.readUInt32LE(at), 0x02014b50);
    const method = bytes.readUInt16LE(at + 10);
    const crc = bytes.readUInt32LE(at + 16);
    const size = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extra = bytes.readUInt16LE(at + 30);
    const comment = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const dataAt = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const raw = bytes.subarray(dataAt, dataAt + size);
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
    assert.equal(crc32(data), crc, `${name} CRC`);
    files.set(name, data);
    at += 46 + nameLength + extra + comment;
  }
  return files;
}

test("the zip holds module.json at its root and everything the module loads", () => {
  const out = join(mkdtempSync(join(tmpdir(), "firefight-zip-")), "module.zip");
  const built = buildPackage(out, undefined, { baseUrl: "https://vtt.example.org/firefight/foundry/" });
  const files = unzip(readFileSync(out));
  assert.deepEqual([...files.keys()].sort(), [...built.files].sort());
  // The installed copy names where its updates are: Foundry's update check reads the installed
  // module.json's `manifest` (and installs its `download`).
  assert.deepEqual(JSON.parse(files.get("module.json").toString("utf8")), {
    ...manifest,
    manifest: "https://vtt.example.org/firefight/foundry/module.json",
    download: "https://vtt.example.org/firefight/foundry/module.zip",
  });
  for (const path of [...manifest.esmodules, ...manifest.styles, "lang/en.json", "templates/chat-card.hbs", "templates/attack-dialog.hbs"]) {
    assert.ok(files.has(path), `${path} in the zip`);
    assert.deepEqual(files.get(path), readFileSync(join(MODULE_ROOT, path)));
  }
  // Tests, tooling and dependencies stay out of the package.
  assert.ok(![...files.keys()].some((name) => name.startsWith("tests/") || name.startsWith("node_modules/") || name.startsWith("scripts/")));
});

test("a zip built without a base URL keeps the module.json as it is, and a base that is not an http(s) URL is refused", () => {
  const out = join(mkdtempSync(join(tmpdir(), "firefight-zip-")), "module.zip");
  buildPackage(out);
  assert.deepEqual(JSON.parse(unzip(readFileSync(out)).get("module.json").toString("utf8")), manifest);
  assert.throws(() => buildPackage(out, undefined, { baseUrl: "vtt.example.org/foundry" }), /base URL/);
});

test("every module the entry point imports is in the package's src/", () => {
  const src = readdirSync(join(MODULE_ROOT, "src"));
  for (const name of src) {
    const text = readFileSync(join(MODULE_ROOT, "src", name), "utf8");
    for (const match of text.matchAll(/from "\.\/([^"]+)"/g)) assert.ok(src.includes(match[1]), `${name} imports ${match[1]}`);
    assert.doesNotMatch(text, /from "(?!\.\/)[^"]+"/, `${name} imports nothing outside the package`);
  }
});
