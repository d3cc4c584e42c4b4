/**
 * `datamodel-ci doctor`: check a real tenant in one command (upload path, hashes, build states,
 * validation errors, staging URL, auth scheme, Content-Length), on a throwaway branch it removes.
 * One line per check, or one JSON document with --json; --dry-run only reads.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { dispatcherTo } from '../client/proxy.js';
import { PlatformClient } from '../client/client.js';
import { readAgentsFolderInput } from '../agents-input.js';
import { InputError } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import { HttpClient, authSchemeFor } from '../client/http.js';
import { loadCa, trustStore } from '../client/trust.js';
import type { ModelTarget } from '../deployments-input.js';
import type { Io } from '../io.js';
import { JsonReporter } from '../report/json.js';
import { TerminalReporter } from '../report/terminal.js';
import type { Reporter } from '../report/reporter.js';
import { InputReader, readConnection, sourceOf, type ConnectionSettings } from '../settings.js';
import { runDoctor, type Check, type DoctorReport } from '../operations/doctor.js';
import type { UploadVia } from '../operations/upload-model.js';
import { plural } from '../report/plural.js';
import { retryNotice } from '../report/retry-notice.js';
import { StepFailed } from './exit-codes.js';
import { parseFor } from './spec.js';
import { DOCTOR_INPUTS, doctorSpec } from './specs.js';

const MARK = { ok: '✓', failed: '✗', 'not checked': '-' } as const;

/** A check's line, and what the toolkit does about it (none for a check with nothing to do: clean-up, a skipped one). */
export function checkLines(c: Check): string[] {
  return [`${MARK[c.state]} ${c.name}: ${c.seen}`, ...(c.action ? [`    → the toolkit ${c.action}`] : [])];
}

/** The last line: what failed, else what was not checked (a dry run's writes), else that every check passed. */
export function doctorVerdict(r: Pick<DoctorReport, 'checks' | 'dryRun'>): string {
  const failed = r.checks.filter((c) => c.state === 'failed').length;
  const skipped = r.checks.filter((c) => c.state === 'not checked').map((c) => c.name);
  const unchecked = skipped.length ? `${plural(skipped.length, 'check')} not made: ${skipped.join(', ')}` : '';
  if (failed) return `${plural(failed, 'check')} failed: read the lines marked ✗${unchecked ? `; ${unchecked}` : ''}`;
  if (!unchecked) return 'every check passed';
  const passed = r.checks.length - skipped.length;
  return `${plural(passed, 'check')} passed, ${unchecked}${r.dryRun ? ' (a dry run only reads: run without --dry-run to make them)' : ''}`;
}

export function renderDoctor(r: DoctorReport): string[] {
  const lines = [
    `datamodel-ci doctor: deployment ${r.deploymentId}${r.checks.some((c) => c.name === 'upload' && c.state !== 'not checked') ? `, throwaway branch ${r.branch}` : ''}`,
  ];
  for (const c of r.checks) lines.push(...checkLines(c));
  lines.push(doctorVerdict(r));
  return lines;
}

/**
 * Run the doctor with a connection's settings (the command, and the `preflight` input of the actions);
 * `onCheck` prints each check as it is made, by default as a log line.
 */
export async function doctorFor(
  connection: ConnectionSettings,
  deploymentId: number,
  reporter: Reporter,
  dryRun: boolean,
  onCheck: (check: Check) => void = (c) => checkLines(c).forEach((l) => reporter.info(l)),
  agentsFolder: string = DEFAULTS.agentsFolder,
): Promise<DoctorReport> {
  const apiKey = connection.apiKey;
  if (!apiKey) throw new InputError('api-key', undefined, 'an API key (--api-key or DATAMODEL_CI_API_KEY)');
  reporter.secret(apiKey);
  const options = {
    baseUrl: connection.apiUrl,
    apiKey,
    timeoutMs: connection.requestTimeoutMs,
    ca: connection.caCert,
    onSecret: (s: string) => reporter.secret(s),
    onRetry: retryNotice(reporter, connection.apiUrl),
  };
  const client = new PlatformClient({ ...options, authScheme: connection.authScheme });
  const scheme = connection.authScheme ?? authSchemeFor(apiKey);
  const ca = connection.caCert ? trustStore(loadCa(connection.caCert)) : undefined;
  try {
    return await runDoctor(
      { client, deploymentId, reporter, dryRun, requestTimeoutMs: connection.requestTimeoutMs, ...(connection.caCert ? { ca: connection.caCert } : {}) },
      {
        apiKey,
        authScheme: scheme,
        agentsFolder,
        onCheck,
        probes: {
          otherScheme: async () => {
            const other = new HttpClient({ ...options, authScheme: scheme === 'api-key' ? 'bearer' : 'api-key', retry: { maxAttempts: 1 } });
            try {
              return (await other.send({ method: 'GET', path: `/api/v1/deployments/${deploymentId}` })).status;
            } catch (e) {
              return (e as { status?: number }).status ?? 0;
            } finally {
              await other.close();
            }
          },
          // undici leaves Content-Length out of a bodyless DELETE: what a client that does not send it gets. The
          // DELETE names a branch that does not exist: nothing is removed, and no dev-mode session (per credential,
          // perhaps another run's) is ended.
          bodylessWithoutLength: async () => {
            const { dispatcher } = dispatcherTo(new URL(connection.apiUrl), ca ? { ca } : {});
            const none = `datamodel-ci-doctor-probe-${randomBytes(4).toString('hex')}`;
            try {
              const res = await request(
                new URL(
                  `${new URL(connection.apiUrl).pathname.replace(/\/+$/, '')}/build/api/v1/deployments/${deploymentId}/branches?branchName=${none}`,
                  connection.apiUrl,
                ),
                {
                  method: 'DELETE',
                  headers: { authorization: scheme === 'api-key' ? `Api-Key ${apiKey}` : `Bearer ${apiKey}` },
                  dispatcher,
                },
              );
              await res.body.text();
              return res.statusCode;
            } finally {
              await dispatcher.close();
            }
          },
        },
      },
    );
  } finally {
    await client.close();
  }
}

/**
 * The `preflight` input of the PR lifecycle: the doctor's checks on a model's deployment, once, before its
 * preview (in the job summary); `upload-via: auto` takes the way it found.
 */
export async function preflight(
  reporter: Reporter,
  connection: ConnectionSettings,
  target: ModelTarget,
  via: UploadVia,
  agentsFolder: string = DEFAULTS.agentsFolder,
): Promise<UploadVia> {
  const report = await reporter.group('Preflight: datamodel-ci doctor', () =>
    doctorFor({ ...connection, apiUrl: target.apiUrl }, target.deploymentId, reporter, false, undefined, agentsFolder),
  );
  reporter.summary(`### datamodel-ci: preflight\n\n\`\`\`text\n${renderDoctor(report).join('\n')}\n\`\`\``);
  if (!report.uploadVia) throw new StepFailed('preflight: no way to upload a model to a shared branch with this key (see the doctor lines above)');
  return via === 'auto' ? report.uploadVia : via;
}

export async function doctorCommand(argv: string[], io: Io): Promise<number> {
  const { flags } = parseFor(doctorSpec, argv);
  const r = new InputReader(sourceOf(flags, io.env), DOCTOR_INPUTS);
  const connection = readConnection(r);
  const deploymentId = r.int('deployment-id', 1);
  if (deploymentId === undefined) throw new InputError('deployment-id', undefined, 'the id of the platform deployment (a positive integer)');
  const dryRun = r.bool('dry-run');
  const agentsFolder = readAgentsFolderInput(r);
  if (!connection.apiKey) throw new InputError('api-key', undefined, 'an API key (--api-key or DATAMODEL_CI_API_KEY)');
  const json = flags.json === true;
  const reporter = json ? new JsonReporter(io.err, flags.verbose === true, io.status) : new TerminalReporter(io.err, io.err, flags.verbose === true, io.status);
  // In a terminal each check is printed once, as it is made (a full run takes minutes); --json prints one document at the end.
  if (!json) io.out(`datamodel-ci doctor: deployment ${deploymentId}${dryRun ? ' (dry run: reads only)' : ''}`);
  const onCheck = json ? (c: Check) => reporter.progress('doctor', `${MARK[c.state]} ${c.name}`) : (c: Check) => checkLines(c).forEach((l) => io.out(l));
  const report = await doctorFor(connection, deploymentId, reporter, dryRun, onCheck, agentsFolder);
  if (json) io.out(JSON.stringify(report));
  else io.out(doctorVerdict(report));
  return report.checks.some((c) => c.state === 'failed') ? 1 : 0;
}
