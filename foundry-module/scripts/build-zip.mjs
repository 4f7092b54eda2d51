#!/usr/bin/env node
// Builds the installable package: a zip with module.json at its root and every file the
// manifest names (esmodules and what they import, styles, languages, templates). No
// dependencies: the zip is written by hand (stored + deflate, CRC-32), as PKWARE's APPNOTE
// describes it.
//
// With a base URL, the zip's module.json names where it and its zip are published
// (`manifest`: <base>/module.json, `download`: <base>/module.zip), as the installed copy's
// update check needs; the service does the same for the zip it serves (service/api/foundry.py).
//
//   node scripts/build-zip.mjs [out.zip] [--base-url https://host/path]   (default: dist/module.zip)

import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// What the package holds: the manifest and the folders the module loads at run time.
export const PACKAGE_ENTRIES = ["module.json", "src", "styles", "lang", "templates"];

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(buffer) {
  let crc = 0xffffffff;
  for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function listFiles(root, entry) {
  const path = join(root, entry);
  if (statSync(path).isDirectory()) {
    return readdirSync(path).sort().flatMap((name) => listFiles(root, join(entry, name)));
  }
  return [entry];
}

/** The zip's bytes for files [{name, data}] (names with forward slashes). */
export function zip(files, { date = new Date(Date.UTC(2024, 0, 1)) } = {}) {
  const dosTime = ((date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1)) & 0xffff;
  const dosDate = (((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate()) & 0xffff;
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of files) {
    const nameBytes = Buffer.from(name, "utf8");
    const deflated = deflateRawSync(data, { level: 9 });
    const useDeflate = deflated.length < data.length;
    const body = useDeflate ? deflated : data;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(useDeflate ? 8 : 0, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, nameBytes, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(useDeflate ? 8 : 0, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + body.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** Every file of the package, module.json first. */
export function packageFiles(root = ROOT) {
  const names = PACKAGE_ENTRIES.flatMap((entry) => listFiles(root, entry)).map((name) => name.split(sep).join("/"));
  return names.map((name) => ({ name, data: readFileSync(join(root, name)) }));
}

/** The manifest naming `<base>/module.json` and `<base>/module.zip`; as it is without a base. */
export function withUrls(manifest, baseUrl = null) {
  if (!baseUrl) return manifest;
  let base;
  try {
    base = new URL(baseUrl);
  } catch {
    base = null;
  }
  if (!base || !["http:", "https:"].includes(base.protocol)) throw new Error(`the base URL must be an http(s) URL, not "${baseUrl}"`);
  const at = base.href.replace(/\/+$/, "");
  return { ...manifest, manifest: `${at}/module.json`, download: `${at}/module.zip` };
}

export function buildPackage(out, root = ROOT, { baseUrl = null } = {}) {
  const manifest = JSON.parse(readFileSync(join(root, "module.json"), "utf8"));
  const named = withUrls(manifest, baseUrl);
  const files = packageFiles(root).map((file) => (file.name === "module.json" && baseUrl ? { ...file, data: Buffer.from(`${JSON.stringify(named, null, 2)}\n`) } : file));
  const present = new Set(files.map((f) => f.name));
  for (const path of [...manifest.esmodules, ...manifest.styles, ...manifest.languages.map((l) => l.path)]) {
    if (!present.has(path)) throw new Error(`module.json names ${path}, which the package does not hold`);
  }
  const bytes = zip(files);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  return { out, files: files.map((f) => f.name), bytes: bytes.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = args.indexOf("--base-url");
  const baseUrl = flag >= 0 ? args.splice(flag, 2)[1] : null;
  const out = resolve(args[0] ?? join(ROOT, "dist", "module.zip"));
  const built = buildPackage(out, ROOT, { baseUrl });
  console.log(`${relative(process.cwd(), built.out)}: ${built.files.length} files, ${built.bytes} bytes`);
  if (!baseUrl) console.log("no --base-url: the installed module.json names no manifest or download URL, so Foundry cannot check it for updates");
}
