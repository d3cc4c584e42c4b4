#!/usr/bin/env node
// Dev-time only: build src/model/cube-keys.json, the model keys (and enumerated values) each published
// patch of the supported minors of Cube's compiler accepts, from the compiler's own validator (keys are
// added within a minor: `memberMasking` came in a 1.6 patch). For each patch it fetches
// @cubejs-backend/schema-compiler with `npm pack` into .tmp/, loads that version's
// dist/src/compiler/CubeValidator.js (its Joi packages resolved from this checkout), and walks the Joi
// `describe()` of its cube and view schemas. Nothing the project builds, tests or runs calls this.
// Usage: node scripts/cube-model-keys.mjs [--minors 0.35,1.3,1.5,1.6,1.7] [--out src/model/cube-keys.json]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const PACKAGE = '@cubejs-backend/schema-compiler';
// The minors Cube Cloud's two channels can still run (see docs/api-assumptions.md, "Cube versions").
const DEFAULT_MINORS = ['0.35', '1.3', '1.5', '1.6', '1.7'];

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const minors = option('minors', DEFAULT_MINORS.join(',')).split(',');
const out = resolve(repo, option('out', 'src/model/cube-keys.json'));
const work = join(repo, '.tmp', 'cube-model-keys');

const semverKey = (v) => v.split('.').map(Number);
const newer = (a, b) => {
  const [x, y] = [semverKey(a), semverKey(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};

/** The registry's published patches of the minors asked for, oldest first. */
function publishedPatches() {
  const all = JSON.parse(execFileSync('npm', ['view', PACKAGE, 'versions', '--json'], { encoding: 'utf8' }));
  const out = minors.flatMap((minor) => {
    const patches = all.filter((v) => /^\d+\.\d+\.\d+$/.test(v) && v.startsWith(`${minor}.`));
    if (!patches.length) throw new Error(`${PACKAGE} has no published ${minor}.x`);
    return patches;
  });
  return out.sort((a, b) => (newer(a, b) ? 1 : newer(b, a) ? -1 : 0));
}

/** `[[first, last], …]`: the runs of consecutive covered versions in which `has` holds. */
function ranges(versions, has) {
  const out = [];
  versions.forEach((v, i) => {
    if (!has(v)) return;
    const last = out.at(-1);
    if (last && last[1] === versions[i - 1]) last[1] = v;
    else out.push([v, v]);
  });
  return out;
}

/** Fetch one version's tarball and extract its compiler folder; returns the validator's path. */
function fetchValidator(version) {
  const dir = join(work, version);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim();
  execFileSync('tar', ['-xzf', join(dir, tarball.split('\n').pop()), '-C', dir, 'package/package.json', 'package/dist/src/compiler']);
  return join(dir, 'package/dist/src/compiler/CubeValidator.js');
}

/** The validator's (unexported) cube and view schemas: its source run as a module that also hands them out. */
function loadSchemas(file) {
  const local = createRequire(file);
  const ours = createRequire(join(repo, 'package.json'));
  const m = new Module(file);
  m.filename = file;
  m.paths = [];
  // Relative files come from the fetched version; Joi and the other packages from this checkout.
  m.require = (id) => (id.startsWith('.') ? local(id) : ours(id));
  const source = readFileSync(file, 'utf8');
  const tail = `\nmodule.exports.__schemas = { cube: typeof cubeSchema === 'undefined' ? undefined : cubeSchema, view: typeof viewSchema === 'undefined' ? undefined : viewSchema };\n`;
  m._compile(source + tail, file);
  return m.exports.__schemas;
}

/**
 * Walk a Joi description: every key path (`measures.*.type`; `*` is any name or list item), the values
 * a key allows, and the paths where some alternative takes any text (there every value is accepted).
 */
function walk(desc, path, keys, values, free) {
  if (!desc || typeof desc !== 'object') return;
  if (desc.flags?.presence === 'forbidden') return;
  if (path) keys.add(path);
  const text = desc.type === 'string' || desc.type === 'any';
  if (text && desc.flags?.only && Array.isArray(desc.allow)) {
    const set = values.get(path) ?? new Set();
    for (const v of desc.allow) if (typeof v === 'string') set.add(v);
    values.set(path, set);
  } else if (text) free.add(path);
  const child = (p) => (path ? `${path}.${p}` : p);
  for (const [key, sub] of Object.entries(desc.keys ?? {})) walk(sub, child(key), keys, values, free);
  for (const p of desc.patterns ?? []) walk(p.rule, child('*'), keys, values, free);
  for (const item of desc.items ?? []) walk(item, child('*'), keys, values, free);
  for (const match of desc.matches ?? []) {
    for (const branch of [match.schema, match.then, match.otherwise]) walk(branch, path, keys, values, free);
    for (const s of match.switch ?? []) for (const branch of [s.then, s.otherwise]) walk(branch, path, keys, values, free);
  }
  // `when` on a key's own schema (Joi keeps those under `whens`).
  for (const w of desc.whens ?? []) {
    for (const branch of [w.then, w.otherwise]) walk(branch, path, keys, values, free);
    for (const s of w.switch ?? []) for (const branch of [s.then, s.otherwise]) walk(branch, path, keys, values, free);
  }
}

function describeVersion(version) {
  const schemas = loadSchemas(fetchValidator(version));
  const keys = new Set();
  const values = new Map();
  const free = new Set();
  for (const kind of ['cube', 'view']) {
    // Before views had a schema of their own, a view was validated as a cube.
    const schema = schemas[kind] ?? schemas.cube;
    if (!schema) throw new Error(`${PACKAGE}@${version}: no ${kind} schema in CubeValidator.js`);
    walk(schema.describe(), kind, keys, values, free);
  }
  return {
    keys: [...keys].sort(),
    values: Object.fromEntries([...values].sort(([a], [b]) => a.localeCompare(b)).map(([p, s]) => [p, [...s].sort()])),
    free,
  };
}

const covered = publishedPatches();
const read = new Map();
for (const version of covered) {
  process.stderr.write(`${PACKAGE}@${version}\n`);
  read.set(version, describeVersion(version));
}
const allKeys = [...new Set([...read.values()].flatMap((r) => r.keys))].sort();
const keys = Object.fromEntries(allKeys.map((k) => [k, ranges(covered, (v) => read.get(v).keys.includes(k))]));
const valuePaths = [...new Set([...read.values()].flatMap((r) => Object.keys(r.values)))].sort();
const values = Object.fromEntries(
  valuePaths.map((p) => {
    const all = [...new Set([...read.values()].flatMap((r) => r.values[p] ?? []))].sort();
    // A version accepts a value it lists, or any value where one of its alternatives takes any text.
    const accepts = (v, value) => (read.get(v).values[p] ?? []).includes(value) || read.get(v).free.has(p);
    return [p, Object.fromEntries(all.map((value) => [value, ranges(covered, (v) => accepts(v, value))]))];
  }),
);
const table = {
  about: `Model keys and values each version of ${PACKAGE} accepts, read from its CubeValidator's Joi schemas by scripts/cube-model-keys.mjs; do not edit. Paths as the compiler spells them (camelCase), * for any member name or list item; each key or value lists the runs [first, last] of covered versions that accept it.`,
  package: PACKAGE,
  versions: covered,
  keys,
  values,
};
// One key per line: the table's diffs stay readable when a version is added.
const lines = JSON.stringify(table, (k, v) => (Array.isArray(v) && Array.isArray(v[0]) ? JSON.stringify(v) : v), 1).replace(/"(\[\[.*?\]\])"/g, (_, r) =>
  r.replace(/\\"/g, '"'),
);
writeFileSync(out, `${lines}\n`);
process.stderr.write(`wrote ${out}: ${covered.join(', ')}\n`);
