/** Check runs (the Checks API): create, update with annotations appended, list for a ref, read back. */
import type { JsonObject } from './description.js';
import { json } from '../https-server.js';
import { pageOf } from './paging.js';
import { bodyOf, notFound, unprocessable, type Route } from './service.js';
import { ACTIONS_APP, appId, appJson, timestamp } from './shapes.js';
import { forbidden } from './tokens.js';

export type CheckStatus = 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
export type CheckConclusion = 'action_required' | 'cancelled' | 'failure' | 'neutral' | 'success' | 'skipped' | 'stale' | 'timed_out';

export interface StandinAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  startColumn: number | null;
  endColumn: number | null;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title: string | null;
  rawDetails: string | null;
}

export interface StandinCheckRun {
  id: number;
  name: string;
  headSha: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  startedAt: string | null;
  completedAt: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Every annotation, in the order they were sent (creation, then each update). */
  annotations: StandinAnnotation[];
  /** Slug of the app that created it: `github-actions` for GITHUB_TOKEN. */
  app: string;
  /** `owner/repo`. */
  repository: string;
}

/** A check run made by someone else (another workflow, another app), e.g. a pending CI job. */
export interface NewCheckRun {
  name: string;
  headSha: string;
  status?: CheckStatus;
  conclusion?: CheckConclusion;
  /** App slug; default `github-actions`. */
  app?: string;
  /** `owner/repo`; default the stand-in's repository. */
  repository?: string;
}

const DOCS_CREATE = 'https://docs.github.com/rest/checks/runs#create-a-check-run';

/** The most annotations GitHub takes in one request. */
export const MAX_ANNOTATIONS = 50;

interface AnnotationBody {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: StandinAnnotation['level'];
  message: string;
  title?: string;
  raw_details?: string;
}

interface CheckRunBody {
  name: string;
  head_sha: string;
  details_url: string;
  external_id: string;
  status: CheckStatus;
  started_at: string;
  conclusion: CheckConclusion;
  completed_at: string;
  output: { title?: string; summary: string; text?: string; annotations?: AnnotationBody[] };
}

/** What the stand-in's other parts tell the checks about refs and pulls. */
export interface CheckLinks {
  knownRepo: (fullName: string) => boolean;
  resolveRef: (fullName: string, ref: string) => string | undefined;
  minimalAt: (fullName: string, sha: string, base: string) => JsonObject[];
}

export interface Checks {
  route: Route;
  hasRepo: (fullName: string) => boolean;
  addCheckRun: (run: NewCheckRun) => StandinCheckRun;
  /** Every check run of the repository, oldest first, with all their annotations (copies). */
  checkRuns: (repository?: string) => StandinCheckRun[];
  /** The latest run of each name on `sha` as deployment contexts: `success`, `pending` or `failure`. */
  contexts: (fullName: string, sha: string) => { context: string; state: string }[];
  /** The latest run of each name on `sha` (any app), as branch protection reads it. */
  latestRuns: (fullName: string, sha: string) => { name: string; status: CheckStatus; conclusion: CheckConclusion | null }[];
}

/** Rules GitHub enforces on check-run bodies beyond the description's schema. */
export function checkRunRules(operationId: string, body: unknown): string[] {
  if (operationId !== 'checks/create') return [];
  const b = (body ?? {}) as Partial<CheckRunBody>;
  if ((b.status === 'completed' || b.completed_at !== undefined) && b.conclusion === undefined) {
    return ['body conclusion is required when status is completed or completed_at is given'];
  }
  return [];
}

/** GitHub's wording of a 422 from the Checks API ("Invalid request."), or undefined for other operations. */
export function checkRunMessage(operationId: string, body: unknown, errors: string[]): string | undefined {
  if (operationId !== 'checks/create' && operationId !== 'checks/update') return undefined;
  const annotations = ((body ?? {}) as Partial<CheckRunBody>).output?.annotations;
  if (Array.isArray(annotations) && annotations.length > MAX_ANNOTATIONS) {
    return `Invalid request.\n\nNo more than ${MAX_ANNOTATIONS} items are allowed; ${annotations.length} were supplied.`;
  }
  return `Invalid request.\n\n${errors.join('\n')}`;
}

const toAnnotation = (a: AnnotationBody): StandinAnnotation => ({
  path: a.path,
  startLine: a.start_line,
  endLine: a.end_line,
  startColumn: a.start_column ?? null,
  endColumn: a.end_column ?? null,
  level: a.annotation_level,
  message: a.message,
  title: a.title ?? null,
  rawDetails: a.raw_details ?? null,
});

const copy = (r: StandinCheckRun): StandinCheckRun => ({ ...r, output: { ...r.output }, annotations: r.annotations.map((a) => ({ ...a })) });

/** The latest run of each app and name (GitHub's `filter=latest`), or of each `key`. */
function latest(runs: StandinCheckRun[], key = (r: StandinCheckRun) => `${r.app}\n${r.name}`): StandinCheckRun[] {
  const byKey = new Map<string, StandinCheckRun>();
  for (const r of runs) byKey.set(key(r), r);
  return [...byKey.values()];
}

export function createChecks(defaultRepo: string, links: CheckLinks): Checks {
  const runs = new Map<string, StandinCheckRun[]>();
  const suites = new Map<string, number>();
  // Real check-run ids passed 2^32 long ago: clients must not squeeze them into 32 bits.
  let nextId = 20_000_000_001;

  const runsOf = (fullName: string): StandinCheckRun[] => {
    const key = fullName.toLowerCase();
    let list = runs.get(key);
    if (!list) runs.set(key, (list = []));
    return list;
  };
  const suiteOf = (r: StandinCheckRun): number => {
    const key = `${r.repository.toLowerCase()} ${r.headSha} ${r.app}`;
    let id = suites.get(key);
    if (id === undefined) suites.set(key, (id = 10_000_000_001 + suites.size));
    return id;
  };
  const add = (spec: Omit<StandinCheckRun, 'id'>): StandinCheckRun => {
    const run = { id: nextId++, ...spec };
    runsOf(spec.repository).push(run);
    return run;
  };

  const runJson = (base: string, fullName: string, r: StandinCheckRun): JsonObject => {
    const url = `${base}/repos/${fullName}/check-runs/${r.id}`;
    const htmlUrl = `https://github.com/${fullName}/runs/${r.id}`;
    return {
      id: r.id,
      name: r.name,
      node_id: `CR_kwDO${r.id}`,
      head_sha: r.headSha,
      external_id: r.externalId ?? '',
      url,
      html_url: htmlUrl,
      details_url: r.detailsUrl ?? htmlUrl,
      status: r.status,
      conclusion: r.conclusion,
      started_at: r.startedAt,
      completed_at: r.completedAt,
      output: { ...r.output, annotations_count: r.annotations.length, annotations_url: `${url}/annotations` },
      check_suite: { id: suiteOf(r) },
      app: appJson(base, r.app),
      pull_requests: links.minimalAt(fullName, r.headSha, base),
    };
  };
  const annotationJson = (fullName: string, r: StandinCheckRun, a: StandinAnnotation): JsonObject => ({
    path: a.path,
    blob_href: `https://github.com/${fullName}/blob/${r.headSha}/${a.path}`,
    start_line: a.startLine,
    end_line: a.endLine,
    start_column: a.startColumn,
    end_column: a.endColumn,
    annotation_level: a.level,
    title: a.title,
    message: a.message,
    raw_details: a.rawDetails,
  });

  const route: Route = ({ req, res, operationId, params, fullName, caller, base }) => {
    if (!operationId.startsWith('checks/')) return false;
    if (!links.knownRepo(fullName)) return (notFound(res), true);
    const found = params.check_run_id === undefined ? undefined : runsOf(fullName).find((r) => r.id === Number(params.check_run_id));
    switch (operationId) {
      case 'checks/create': {
        const b = bodyOf<CheckRunBody>(req);
        const sha = b.head_sha ?? '';
        if (!/^[0-9a-f]{40}$/i.test(sha)) return (unprocessable(res, `No commit found for SHA: ${sha}`, DOCS_CREATE), true);
        const now = timestamp();
        const completed = b.conclusion !== undefined;
        const run = add({
          name: b.name ?? '',
          headSha: sha.toLowerCase(),
          status: completed ? 'completed' : (b.status ?? 'queued'),
          conclusion: b.conclusion ?? null,
          startedAt: b.started_at ?? now,
          completedAt: completed ? (b.completed_at ?? now) : null,
          detailsUrl: b.details_url ?? null,
          externalId: b.external_id ?? null,
          output: { title: b.output?.title ?? null, summary: b.output?.summary ?? null, text: b.output?.text ?? null },
          annotations: (b.output?.annotations ?? []).map(toAnnotation),
          app: caller.app ?? ACTIONS_APP,
          repository: fullName,
        });
        json(res, 201, runJson(base, fullName, run));
        return true;
      }
      case 'checks/update': {
        if (!found) return (notFound(res), true);
        if (found.app !== caller.app) {
          const message = `Invalid app_id \`${appId(found.app)}\` - check run can only be modified by the GitHub App that created it.`;
          return (forbidden(res, message, 'https://docs.github.com/rest/checks/runs#update-a-check-run'), true);
        }
        const b = bodyOf<CheckRunBody>(req);
        const now = timestamp();
        if (b.name !== undefined) found.name = b.name;
        if (b.details_url !== undefined) found.detailsUrl = b.details_url;
        if (b.external_id !== undefined) found.externalId = b.external_id;
        if (b.started_at !== undefined) found.startedAt = b.started_at;
        if (b.conclusion !== undefined) {
          found.status = 'completed';
          found.conclusion = b.conclusion;
          found.completedAt = b.completed_at ?? now;
        } else if (b.status !== undefined) {
          found.status = b.status;
          if (b.status !== 'completed') Object.assign(found, { conclusion: null, completedAt: null });
        }
        if (b.output) {
          found.output = {
            title: b.output.title ?? found.output.title,
            summary: b.output.summary ?? found.output.summary,
            text: b.output.text ?? found.output.text,
          };
          // Each update appends its annotations to those already there.
          found.annotations.push(...(b.output.annotations ?? []).map(toAnnotation));
        }
        json(res, 200, runJson(base, fullName, found));
        return true;
      }
      case 'checks/get':
        if (!found) notFound(res);
        else json(res, 200, runJson(base, fullName, found));
        return true;
      case 'checks/list-annotations': {
        if (!found) return (notFound(res), true);
        const { items, headers } = pageOf(req, base, found.annotations);
        json(
          res,
          200,
          items.map((a) => annotationJson(fullName, found, a)),
          headers,
        );
        return true;
      }
      case 'checks/list-for-ref': {
        const ref = params.ref ?? '';
        const sha = links.resolveRef(fullName, ref);
        if (!sha)
          return (unprocessable(res, `No commit found for SHA: ${ref}`, 'https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference'), true);
        const name = req.query.get('check_name');
        const status = req.query.get('status');
        const app = req.query.get('app_id');
        let list = runsOf(fullName).filter((r) => r.headSha === sha);
        if (req.query.get('filter') !== 'all') list = latest(list);
        list = list
          .filter((r) => (name === null || r.name === name) && (status === null || r.status === status) && (app === null || appId(r.app) === Number(app)))
          .sort((a, b) => b.id - a.id);
        const { items, headers } = pageOf(req, base, list);
        json(res, 200, { total_count: list.length, check_runs: items.map((r) => runJson(base, fullName, r)) }, headers);
        return true;
      }
      default:
        return false;
    }
  };

  return {
    route,
    hasRepo: (fullName) => (runs.get(fullName.toLowerCase())?.length ?? 0) > 0,
    addCheckRun(spec) {
      const now = timestamp();
      const completed = spec.conclusion !== undefined;
      const run = add({
        name: spec.name,
        headSha: spec.headSha,
        status: completed ? 'completed' : (spec.status ?? 'queued'),
        conclusion: spec.conclusion ?? null,
        startedAt: now,
        completedAt: completed ? now : null,
        detailsUrl: null,
        externalId: null,
        output: { title: null, summary: null, text: null },
        annotations: [],
        app: spec.app ?? ACTIONS_APP,
        repository: spec.repository ?? defaultRepo,
      });
      return copy(run);
    },
    checkRuns: (repository = defaultRepo) => (runs.get(repository.toLowerCase()) ?? []).map(copy),
    latestRuns(fullName, sha) {
      const runs = latest(
        runsOf(fullName).filter((x) => x.headSha === sha),
        (r) => r.name,
      );
      return runs.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion }));
    },
    contexts(fullName, sha) {
      return latest(runsOf(fullName).filter((r) => r.headSha === sha)).map((r) => ({
        context: r.name,
        state: r.status !== 'completed' ? 'pending' : r.conclusion === 'success' ? 'success' : 'failure',
      }));
    },
  };
}
