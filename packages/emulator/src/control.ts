/**
 * The control API under `/_emulator/` (admin key): the clock, fault injection, the tenant's
 * behaviour, the next build's or dbt sync's failure, older deployments, the Cube Store's builds, the state.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from './auth.js';
import type { Clock } from './clock.js';
import { failNextBuild } from './build/runtime.js';
import { behaviourWith, HttpError, type Controls } from './context.js';
import type { DeploymentRec } from './deployments/models.js';
import { parseFaults, type FaultInjector } from './faults.js';
import { decodeFile, encodeFile } from './build/trees.js';
import { serveDriftControl } from './drift/routes.js';
import { pushRef, newSha, setProjectRoot } from './deployments/repository.js';
import { applyProfiles } from './profile-state.js';
import { parseProfiles, PROFILE_SUMMARY, PROFILES } from './profiles.js';
import { send } from './http.js';
import { textOf } from './json.js';
import type { State } from './state.js';

/** What the control routes steer. */
export interface Steering {
  state: State;
  clock: Clock;
  controls: Controls;
  faults: FaultInjector;
}

export function serveControl(s: Steering, req: IncomingMessage, res: ServerResponse, method: string, path: string, raw: Buffer): void {
  const { clock, controls, faults } = s;
  const principal = authenticate(s.state, clock, undefined, req.headers.authorization);
  if (!principal.user.isAdmin) throw new HttpError(403, 'the control API needs the admin key');
  let body: Record<string, unknown> = {};
  if (raw.length) {
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new HttpError(400, 'body: malformed JSON');
    }
  }
  if (method === 'POST' && path === '/_emulator/clock/advance') {
    const ms = Number(body.ms);
    if (!(ms >= 0)) throw new HttpError(400, `ms: got ${JSON.stringify(body.ms)}, expected a non-negative number`);
    clock.advance(ms);
    return send(res, 200, clock.describe());
  }
  if (method === 'GET' && path === '/_emulator/clock') return send(res, 200, clock.describe());
  if (method === 'POST' && path === '/_emulator/faults') {
    faults.set(parseFaults(textOf(body.spec ?? '')));
    return send(res, 200, { injected: faults.injected });
  }
  if (method === 'GET' && path === '/_emulator/faults') return send(res, 200, { injected: faults.injected });
  if (method === 'POST' && path === '/_emulator/dbt-sync/fail-next') {
    controls.failNextDbtSync = { phase: textOf(body.phase ?? 'parse'), message: textOf(body.message ?? 'dbt parse failed') };
    return send(res, 200, controls.failNextDbtSync);
  }
  if (method === 'GET' && path === '/_emulator/tenant') return send(res, 200, controls.behaviour);
  if (method === 'POST' && path === '/_emulator/tenant') {
    controls.behaviour = behaviourWith(controls.behaviour, body);
    return send(res, 200, controls.behaviour);
  }
  if (method === 'POST' && path === '/_emulator/builds/fail-next') {
    const d = deploymentOf(s, body.deploymentId);
    const branch = text(body.branchName, 'branchName', 'a branch name');
    const status = body.status ?? 'failed';
    if (status !== 'failed' && status !== 'cancelled') throw new HttpError(400, `status: got ${JSON.stringify(status)}, expected "failed" or "cancelled"`);
    const errorText = body.errorText === undefined ? `Build failed: injected failure of branch ${branch}` : text(body.errorText, 'errorText', 'a text');
    failNextBuild(s, d, branch, status, errorText);
    return send(res, 200, { deploymentId: d.id, branchName: branch, status, errorText });
  }
  if (method === 'POST' && path === '/_emulator/dbt-sync/older') {
    const d = deploymentOf(s, body.deploymentId);
    if (typeof body.older !== 'boolean') throw new HttpError(400, `older: got ${JSON.stringify(body.older)}, expected true or false`);
    d.olderDeployment = body.older;
    if (body.savedRef !== undefined) d.dbtSavedRef = text(body.savedRef, 'savedRef', 'a branch of the dbt project');
    return send(res, 200, { deploymentId: d.id, older: d.olderDeployment, savedRef: d.dbtSavedRef ?? 'main' });
  }
  if (method === 'GET' && path === '/_emulator/evals/answers') return send(res, 200, { answers: controls.evalAnswers ?? {} });
  if (method === 'POST' && path === '/_emulator/evals/answers') {
    controls.evalAnswers = { ...(body.replace === true ? {} : controls.evalAnswers), ...recordedAnswers(body.answers) };
    return send(res, 200, { answers: controls.evalAnswers });
  }
  if (method === 'GET' && path === '/_emulator/profiles') return send(res, 200, { on: controls.profiles, available: PROFILE_SUMMARY });
  if (method === 'POST' && path === '/_emulator/profiles') {
    const given: unknown = body.profiles;
    if (!Array.isArray(given) && typeof given !== 'string')
      throw new HttpError(
        400,
        `profiles: got ${JSON.stringify(given) ?? 'undefined'}, expected a list of profile names (from: ${PROFILES.join(', ')}), [] for none`,
      );
    let names;
    try {
      names = parseProfiles(given as string | unknown[], 'profiles');
    } catch (e) {
      throw new HttpError(400, (e as Error).message);
    }
    applyProfiles(s, names);
    return send(res, 200, { on: controls.profiles });
  }
  if (method === 'GET' && path === '/_emulator/repository') {
    const params = new URL(req.url ?? '', 'https://x').searchParams;
    const d = deploymentOf(s, Number(params.get('deploymentId')));
    if (!d.connected) throw new HttpError(400, `deployment ${d.id} is not connected to a repository (turn on the github-connected profile)`);
    const branch = params.get('branch');
    // One ref with its tree as text: what GitHub holds there (a prune that reached the repository shows).
    if (branch !== null) {
      const ref = d.connected.refs[branch];
      if (!ref) throw new HttpError(404, `branch ${JSON.stringify(branch)} not found in ${d.connected.repository}`);
      const files = Object.fromEntries(Object.entries(ref.files).map(([p, b64]) => [p, decodeFile(b64).toString('utf8')]));
      return send(res, 200, { repository: d.connected.repository, branch, sha: ref.sha, files });
    }
    return send(res, 200, { repository: d.connected.repository, refs: Object.fromEntries(Object.entries(d.connected.refs).map(([k, r]) => [k, r.sha])) });
  }
  if (method === 'POST' && path === '/_emulator/repository/push') {
    const d = deploymentOf(s, body.deploymentId);
    const branch = text(body.branch, 'branch', 'a branch name');
    const files = body.files;
    if (!files || typeof files !== 'object' || Array.isArray(files) || !Object.values(files).every((v) => typeof v === 'string')) {
      throw new HttpError(400, `files: got ${JSON.stringify(files)?.slice(0, 80)}, expected an object of path -> text`);
    }
    const sha = body.sha === undefined ? newSha() : text(body.sha, 'sha', 'a commit id');
    const tree = Object.fromEntries(Object.entries(files as Record<string, string>).map(([p, t]) => [p, encodeFile(t)]));
    // `synced`: a platform branch took the commit (production always, an added branch under push-syncs-added-branches).
    const { synced } = pushRef(s, d, branch, tree, sha);
    return send(res, 200, { branch, sha, synced });
  }
  if (method === 'POST' && path === '/_emulator/repository/project-root') {
    const d = deploymentOf(s, body.deploymentId);
    setProjectRoot(d, text(body.projectRoot, 'projectRoot', 'a folder of the repository, such as /analytics (/ for its root)'));
    return send(res, 200, { projectRoot: d.connected!.projectRoot });
  }
  if (method === 'POST' && path === '/_emulator/repository/delete') {
    const d = deploymentOf(s, body.deploymentId);
    const branch = text(body.branch, 'branch', 'a branch name');
    if (d.connected) delete d.connected.refs[branch];
    return send(res, 200, { branch, deleted: true });
  }
  if (method === 'GET' && path === '/_emulator/rollup-builds') {
    // The deployment's Cube Store: the tables built, and the builds each environment's /load triggered.
    const d = deploymentOf(s, Number(new URL(req.url ?? '', 'https://x').searchParams.get('deploymentId')));
    return send(res, 200, { deploymentId: d.id, tables: d.cubeStore?.tables ?? {}, builds: d.cubeStore?.builds ?? [] });
  }
  if (method === 'GET' && path === '/_emulator/state') return send(res, 200, s.state);
  // The ways production can differ from a validated model, and the controls that must not count (issue 37).
  const drift = serveDriftControl(s, method, path, body, new URL(req.url ?? '', 'https://x').searchParams);
  if (drift !== undefined) return send(res, 200, drift);
  throw new HttpError(404, `no such control route: ${method} ${path}`);
}

function text(value: unknown, name: string, expected: string): string {
  if (typeof value !== 'string' || value === '') throw new HttpError(400, `${name}: got ${JSON.stringify(value)}, expected ${expected}`);
  return value;
}

function deploymentOf(s: Steering, id: unknown): DeploymentRec {
  const d = s.state.deployments.find((x) => x.id === id);
  if (!d)
    throw new HttpError(400, `deploymentId: got ${JSON.stringify(id)}, expected the id of a deployment (${s.state.deployments.map((x) => x.id).join(', ')})`);
  return d;
}

/** The fixture agent's answers: question text or name -> a REST query (an object), or null (the agent runs no query). */
function recordedAnswers(given: unknown): Record<string, unknown> {
  if (!given || typeof given !== 'object' || Array.isArray(given)) {
    throw new HttpError(400, `answers: got ${JSON.stringify(given)}, expected an object of question text or name -> REST query (or null)`);
  }
  for (const [question, query] of Object.entries(given)) {
    if (query !== null && (typeof query !== 'object' || Array.isArray(query))) {
      throw new HttpError(400, `answers[${JSON.stringify(question)}]: got ${JSON.stringify(query)}, expected a REST query object or null`);
    }
  }
  return given as Record<string, unknown>;
}
