/**
 * The one door (issue 36): only src/operations/door.ts calls the platform's irreversible endpoints, and
 * only the evidence makers make evidence. This test reads the source: a new call to `branches.remove`,
 * a merge, an upload finish, staging turned off or `stopDevMode` anywhere else fails it, as does a new
 * maker of evidence (`attest`), a new reader of ledgers (`RunLedger.of`), a recorder called by code that
 * did not act, or a cast to an evidence type. docs/faults.md's table is checked against the door's steps.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OpContext } from '../src/operations/context.js';
import { acceptBuild, deleteBranch, deleteFork, DOOR_STEPS, doorTable, mergeIntoDeployBranch, turnStagingOff } from '../src/operations/door.js';

const REPO = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.ts$/.test(e.name) ? [rel] : [];
  });
}

/** The code of a file without its comments, whitespace squeezed out around punctuation (a call split over lines is still found). */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/\s+/g, ' ')
    .replace(/\s*([.(){}[\]:,;=])\s*/g, '$1');
}

/** The irreversible calls, as they appear in code with whitespace removed. */
const IRREVERSIBLE: [string, RegExp][] = [
  ['delete a branch', /branches\.remove\(|\.remove\(\{deploymentId[^}]*query:\{branchName/],
  ['merge into the deploy branch', /\.mergeToDefault\(/],
  ['merge into a parent branch', /branches\.merge\(/],
  ['finish an upload (prunes files)', /\.finishUpload\(/],
  ['turn staging off', /setStagingEnvironment\([^)]*enabled:(?!true)/],
  ['end a dev-mode session', /\.stopDevMode\(/],
  ['remove files', /\.removeFiles\(/],
  ['reach an endpoint by its name', /\[['"`](remove|mergeToDefault|merge|finishUpload|stopDevMode|removeFiles)['"`]\]/],
];

/** Every place in `files` where `pattern` matches, as `file: what`. */
function offenders(files: string[], checks: [string, RegExp][]): string[] {
  return files.flatMap((f) => {
    const c = code(readFileSync(join(REPO, f), 'utf8'));
    return checks.filter(([, re]) => re.test(c)).map(([what]) => `${f}: ${what}`);
  });
}

const product = sources('src').filter((f) => !f.startsWith(join('src', 'client')));
const DOOR = join('src', 'operations', 'door.ts');

describe('the one door', () => {
  it('finds an irreversible call it checks (the scanner itself works)', () => {
    const sample =
      "await ctx.client.branches\n  .remove({ deploymentId: 1, query: { branchName: 'x' } });\nclient.branches.setStagingEnvironment({ body: { enabled: false } })";
    const c = code(sample);
    expect(IRREVERSIBLE.filter(([, re]) => re.test(c)).map(([w]) => w)).toEqual(['delete a branch', 'turn staging off']);
    expect(code('x.setStagingEnvironment({ body: { enabled: true, branchName } })')).not.toMatch(IRREVERSIBLE[4]![1]);
    // The door itself makes every one of those calls it guards.
    expect(offenders([DOOR], IRREVERSIBLE.slice(0, 5)).length).toBe(4);
  });

  it("no module but src/operations/door.ts calls an irreversible endpoint (src/commands/api.ts is the user's own raw request)", () => {
    expect(
      offenders(
        product.filter((f) => f !== DOOR),
        IRREVERSIBLE,
      ),
    ).toEqual([]);
  });

  it('only the evidence makers make evidence: the run ledger, the build marks, the upload plan, and the door (an accepted build)', () => {
    const makers = ['ledger.ts', 'branch-build.ts', 'upload-transaction.ts', 'door.ts'].map((f) => join('src', 'operations', f));
    const calling = product.filter(
      (f) => f !== join('src', 'operations', 'evidence.ts') && /(^|[^\w$.])attest\(/.test(code(readFileSync(join(REPO, f), 'utf8'))),
    );
    expect(calling.sort()).toEqual(makers.sort());
  });

  it('no module casts a value to an evidence type', () => {
    const cast = /\bas (unknown as )?(CreatedBranch|OrphanRelease|UpstreamRef|StagingTurnedOn|OwnFork|ChangeBuild|AcceptedBuild|MergeReady|PrunePlan|Kinds)\b/;
    expect(offenders(product, [['a cast to evidence', cast]]).filter((o) => !o.startsWith(join('src', 'operations', 'evidence.ts')))).toEqual([]);
  });

  it("only the ledger's readers make a run ledger from facts: the pull request's comment, and the sweep's reading of other pull requests' comments", () => {
    const readers = product.filter((f) => /RunLedger\.of\(/.test(code(readFileSync(join(REPO, f), 'utf8'))));
    expect(readers.sort()).toEqual(
      [join('src', 'operations', 'ledger.ts'), join('src', 'operations', 'sweep-branches.ts'), join('src', 'pr', 'pull-request.ts')].sort(),
    );
  });

  it('each recorder is called only by the code that did what it records', () => {
    const allowed: Record<string, string[]> = {
      recordCreated: ['operations/start-dev-branch.ts', 'operations/doctor.ts', 'operations/doctor-checks.ts'],
      recordFork: ['operations/start-dev-branch.ts', 'operations/repository-feed.ts'],
      recordStagingOn: ['operations/enable-staging.ts'],
      recordLanded: ['operations/upload-preview.ts', 'commands/upload-model.ts'],
      recordValidated: ['operations/upload-preview.ts', 'operations/repository-feed.ts', 'commands/validate.ts'],
      // The close reads production's build status right before its own merge (the proof after it waits for a newer build).
      recordProduction: ['operations/repository-feed.ts', 'operations/merge-to-default.ts'],
    };
    for (const [recorder, files] of Object.entries(allowed)) {
      const calling = product
        .filter((f) => f !== join('src', 'operations', 'ledger.ts') && new RegExp(`\\.${recorder}\\(`).test(code(readFileSync(join(REPO, f), 'utf8'))))
        .map((f) => relative('src', f).split('\\').join('/'));
      expect(calling.sort(), recorder).toEqual([...files].sort());
    }
  });

  it('a step without its evidence does not compile (tsc checks these lines: each must stay an error)', () => {
    const ctx = {} as OpContext;
    const unchecked = { branch: 'staging', manifest: {}, source: 'checkout' as const };
    const steps = [
      // @ts-expect-error a plain object is no evidence that a run created the branch
      () => deleteBranch(ctx, { branch: 'staging', by: 'ledger' }),
      // @ts-expect-error nor that a run opened the fork
      () => deleteFork(ctx, { fork: 'dev-someone', parent: 'preview-pr-1' }),
      // @ts-expect-error nor that a run turned the staging environment on
      () => turnStagingOff(ctx, { branch: 'staging' }),
      // @ts-expect-error nor that the branch holds a checked model
      () => mergeIntoDeployBranch(ctx, unchecked, { deployBranch: 'main', message: 'm', settle: () => Promise.resolve(undefined) }),
      // @ts-expect-error nor that a build is the change's
      () => acceptBuild({ branch: 'b', status: { status: 'built' }, proof: 'job id' }),
    ];
    expect(steps).toHaveLength(5);
  });

  it("docs/faults.md's table is the door's (npm run generate-actions writes it)", () => {
    const faults = readFileSync(join(REPO, 'docs', 'faults.md'), 'utf8');
    expect(faults).toContain(doorTable());
    for (const step of Object.values(DOOR_STEPS)) expect(faults).toContain(`| ${step.step} |`);
  });
});
