#!/usr/bin/env node
// `npm run lock`: rewrite package-lock.json so that `npm ci` accepts it here.
//
// 1. `npm install --package-lock-only` resolves package.json into the lock
//    (node_modules is not touched).
// 2. Every optional dependency that the lock does not hold gets an entry.
//    npm leaves those out when the registry has no such version (the registry
//    copy on this machine lacks the non-Linux builds of tailwind's oxide and
//    next's swc). `npm ci` then rebuilds the tree, finds them missing and
//    refuses ("Missing: @next/swc-darwin-arm64@ from lock file", npm/cli#9846).
//    The entry carries the exact version the parent asks for and the
//    os/cpu/libc of that package's newest published version not above it, so
//    npm skips it on other platforms without fetching anything; it has no
//    integrity, because no tarball was available to hash.
// See docs/adr/0005-install-and-start-anywhere.md. `--check` only reads the lock and names
// what is missing (exit 1), without asking the registry anything.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = path.join(root, 'package-lock.json');
const checkOnly = process.argv.includes('--check');

function npm(args) {
  return execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Where Node would look for `name` from the package at lock key `from`. */
function resolveKey(packages, from, name) {
  let base = from;
  for (;;) {
    const key = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[key]) return key;
    if (!base) return null;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

function compareVersions(a, b) {
  const pa = a.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const pb = b.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  // A release sorts after its prereleases.
  if (pa.length === 3 || pb.length === 3) return pb.length - pa.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** os/cpu/libc of the newest published version of `name` not above `version`. */
function platformOf(name, version) {
  let out;
  try {
    out = npm(['view', `${name}@<=${version}`, 'version', 'os', 'cpu', 'libc', '--json', '--loglevel=error']);
  } catch {
    return null;
  }
  const rows = [JSON.parse(out || '[]')].flat().filter((r) => r && r.version);
  if (rows.length === 0) return null;
  rows.sort((a, b) => compareVersions(a.version, b.version));
  const { os, cpu, libc } = rows[rows.length - 1];
  return { os, cpu, libc };
}

if (!checkOnly) npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund']);

const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
const added = [];
for (const [key, entry] of Object.entries(packages)) {
  if (!key || !entry.optionalDependencies) continue;
  for (const [name, spec] of Object.entries(entry.optionalDependencies)) {
    if (resolveKey(packages, key, name)) continue;
    if (!EXACT.test(spec)) {
      console.error(`lock: ${key} wants optional ${name}@${spec}, which the registry lacks; pin an exact version or fix the registry`);
      process.exit(1);
    }
    const at = packages[`node_modules/${name}`] ? `${key}/node_modules/${name}` : `node_modules/${name}`;
    const lockEntry = { version: spec };
    const platform = checkOnly ? null : platformOf(name, spec);
    if (platform?.cpu) lockEntry.cpu = platform.cpu;
    if (entry.dev) lockEntry.dev = true;
    if (platform?.libc) lockEntry.libc = platform.libc;
    lockEntry.optional = true;
    if (platform?.os) lockEntry.os = platform.os;
    packages[at] = lockEntry;
    const where = [lockEntry.os, lockEntry.cpu, lockEntry.libc].flat().filter(Boolean).join(' ');
    added.push(checkOnly ? `${name}@${spec}` : `${name}@${spec} (${where || 'platform unknown: npm will try it and skip it'})`);
  }
}

if (checkOnly) {
  console.log(added.length ? `lock: missing optional entries:\n  ${added.join('\n  ')}` : 'lock: complete');
  process.exit(added.length ? 1 : 0);
}

// Keep npm's own order: the root first, then keys sorted as npm sorts them.
const sorted = Object.keys(packages)
  .filter((k) => k !== '')
  .sort((a, b) => a.localeCompare(b, 'en'));
lock.packages = Object.fromEntries([['', packages['']], ...sorted.map((k) => [k, packages[k]])]);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `lock: added ${added.length} optional entries the registry lacks:\n  ${added.join('\n  ')}` : 'lock: nothing to add');
