#!/usr/bin/env node
// Copies the package's files (what build-zip.mjs zips) into service/foundry/, where the service
// finds them as package data: the Docker image runs the installed package without this folder,
// and setuptools packages only files inside a package. tests/test_foundry_served.py fails when
// the copy differs from this folder, and names this script.
//
//   node scripts/copy-to-service.mjs

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packageFiles } from "./build-zip.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TARGET = resolve(ROOT, "..", "service", "foundry");

rmSync(TARGET, { recursive: true, force: true });
const files = packageFiles(ROOT);
for (const { name, data } of files) {
  const path = join(TARGET, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}
console.log(`service/foundry: ${files.length} files`);
