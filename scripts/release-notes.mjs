#!/usr/bin/env node
// The release notes of a version: its section of CHANGELOG.md, after checking that the tag, package.json
// and the emulator's package.json name the same version. The release workflow runs it on a vX.Y.Z tag.
// Usage: node scripts/release-notes.mjs vX.Y.Z > notes.md
import { readFileSync } from 'node:fs';

/** The body of `## [X.Y.Z]` (up to the next `## `), or undefined when the changelog has no such section. */
export function changelogSection(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^## \\[?${version.replace(/\./g, '\\.')}\\]?(\\s|$)`).test(l));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const body = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim();
  return body || undefined;
}

/** The problems that stop a release of `tag`: a malformed tag, versions that disagree, no changelog section. */
export function releaseProblems(tag, versions, changelog) {
  const m = /^v(\d+\.\d+\.\d+)$/.exec(tag ?? '');
  if (!m) return [`tag ${JSON.stringify(tag)}: expected vX.Y.Z`];
  const version = m[1];
  const problems = Object.entries(versions)
    .filter(([, v]) => v !== version)
    .map(([file, v]) => `${file} says ${v}, the tag ${version}`);
  if (!changelogSection(changelog, version)) problems.push(`CHANGELOG.md has no "## [${version}]" section with notes`);
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tag = process.argv[2];
  const read = (f) => JSON.parse(readFileSync(f, 'utf8')).version;
  const changelog = readFileSync('CHANGELOG.md', 'utf8');
  const problems = releaseProblems(
    tag,
    { 'package.json': read('package.json'), 'packages/emulator/package.json': read('packages/emulator/package.json') },
    changelog,
  );
  if (problems.length) {
    for (const p of problems) console.error(`release-notes: ${p}`);
    process.exit(1);
  }
  console.log(changelogSection(changelog, tag.slice(1)));
}
