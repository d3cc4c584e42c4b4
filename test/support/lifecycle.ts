/**
 * One PR's lifecycle against the emulator and the GitHub stand-in, as the soak runs it: a checkout on
 * disk (the deploy branch plus the PR's files), and `run(action)` running the real `pr` command for a
 * pull_request event, returning its exit code and every line it printed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runActionCommand } from '../../src/commands/index.js';
import type { CommandName } from '../../src/action-spec.js';
import { startEmulator, startGitHubStandin, type Emulator, type FileMap, type GitHubStandin } from '../../packages/emulator/src/index.js';
import { pullRequestEvent, writeEvent } from './payloads.js';

export const sha1 = (b: Buffer | string): string => createHash('sha1').update(b).digest('hex');

/** path -> sha1 of a branch's files. */
export function hashes(files: FileMap): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([p, b64]) => [p, sha1(Buffer.from(b64, 'base64'))]));
}

export function cube(name: string, version: number): string {
  return `cubes:\n  - name: ${name}\n    sql_table: public.${name}\n    measures:\n      - name: count\n        type: count\n    dimensions:\n      - name: id\n        sql: id\n        type: number\n        primary_key: true\n      - name: v${version}\n        sql: v${version}\n        type: string\n`;
}

export interface Run {
  code: number;
  lines: string[];
}

export interface Lifecycle {
  em: Emulator;
  gh: GitHubStandin;
  /** The checkout's model folder. */
  dir: string;
  work: string;
  caFile: string;
  /** Write the checkout: the deploy branch as it is now plus `extra` files. */
  checkout(extra: Record<string, string>): void;
  /** Run a command for PR `pr` (event `action`); `env` adds or overrides variables. */
  run(
    pr: number,
    action: string,
    opts?: { headSha?: string; headRef?: string; mergeCommitSha?: string; merged?: boolean; env?: NodeJS.ProcessEnv; command?: CommandName; argv?: string[] },
  ): Promise<Run>;
  /** The deploy branch's files, hashed. */
  main(): Record<string, string>;
  close(): Promise<void>;
}

export async function startLifecycle(options: { faults?: string; emulator?: Parameters<typeof startEmulator>[0] } = {}): Promise<Lifecycle> {
  const em = await startEmulator({ seed: 'demo', ...(options.faults ? { faults: options.faults } : {}), ...options.emulator });
  const gh = await startGitHubStandin();
  const work = mkdtempSync(join(tmpdir(), 'dmci-life-'));
  const caFile = join(work, 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  const dir = join(work, 'checkout');
  const d = () => em.state.deployments[0]!;
  return {
    em,
    gh,
    dir,
    work,
    caFile,
    checkout(extra) {
      rmSync(dir, { recursive: true, force: true });
      const files: Record<string, Buffer> = {};
      for (const [p, b64] of Object.entries(d().branches.main!.head)) files[p] = Buffer.from(b64, 'base64');
      for (const [p, text] of Object.entries(extra)) files[p] = Buffer.from(text);
      for (const [p, data] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), data);
      }
    },
    async run(pr, action, opts = {}) {
      const lines: string[] = [];
      const headSha = opts.headSha ?? `${pr}a`.padEnd(40, '0');
      const env: NodeJS.ProcessEnv = {
        DATAMODEL_CI_API_URL: em.baseUrl,
        DATAMODEL_CI_API_KEY: em.credentials.admin,
        DATAMODEL_CI_CA_CERT: caFile,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_lifecycle_token_0123456789',
        DATAMODEL_CI_MODEL_DIR: dir,
        DATAMODEL_CI_REQUEST_TIMEOUT: '60', // no emulator fault here: a busy machine's slow answer is not a hang
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
        GITHUB_RUN_ID: String(pr),
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: writeEvent(
          pullRequestEvent(action, {
            number: pr,
            headSha,
            merged: opts.merged ?? false,
            ...(opts.headRef ? { headRef: opts.headRef } : {}),
            ...(opts.mergeCommitSha ? { mergeCommitSha: opts.mergeCommitSha } : {}),
          }),
        ),
        ...opts.env,
      };
      const code = await runActionCommand(opts.command ?? 'pr', opts.argv ?? ['--verbose'], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
      return { code, lines };
    },
    main: () => hashes(d().branches.main!.head),
    async close() {
      await gh.close();
      await em.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
