/**
 * The security rules of our workflows that actionlint does not check: third-party actions pinned to a
 * full commit SHA with their version in a comment; no pull_request_target run that checks out the pull
 * request's code; least permissions (nothing by default, each write grant said why); no `${{ }}` in a
 * `run:` script (values reach scripts through `env:`, where the shell cannot execute them).
 */
import { parse } from 'yaml';

export interface Finding {
  line: number;
  rule: 'pinned' | 'pull_request_target' | 'permissions' | 'run-expression';
  message: string;
}

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  permissions?: unknown;
  steps?: Step[];
}
interface Workflow {
  on?: unknown;
  permissions?: unknown;
  jobs?: Record<string, Job>;
}

/** Actions that are not third-party: the repository's own (local paths, or this project by name). */
const OURS = /^(\.\/|your-org\/datamodel-ci(\/|@))/;
const PINNED = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/;
const VERSION_COMMENT = /^v\d+(\.\d+){0,2}$/;
/** What names the pull request's own code in a pull_request_target run. */
const PR_HEAD = /github\.event\.pull_request\.head\.|github\.head_ref|refs\/pull\//;

function triggers(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.map(String);
  return on && typeof on === 'object' ? Object.keys(on) : [];
}

/** Every finding in one workflow file's text. */
export function workflowFindings(text: string): Finding[] {
  const findings: Finding[] = [];
  const lines = text.split('\n');
  const lineOf = (re: RegExp, from = 0) => lines.findIndex((l, i) => i >= from && re.test(l)) + 1;

  // Pins: read from the text, where the version comment is.
  for (const [i, l] of lines.entries()) {
    const m = /^\s*(?:-\s+)?uses:\s*(['"]?)([^'"\s#]+)\1\s*(?:#\s*(.*?))?\s*$/.exec(l);
    if (!m) continue;
    const uses = m[2] as string;
    if (OURS.test(uses) || uses.startsWith('docker://')) continue;
    if (!PINNED.test(uses)) findings.push({ line: i + 1, rule: 'pinned', message: `${uses}: pin a third-party action to a full commit SHA` });
    else if (!VERSION_COMMENT.test(m[3] ?? '')) findings.push({ line: i + 1, rule: 'pinned', message: `${uses}: say its version in a comment (# vX.Y.Z)` });
  }

  // Permissions: a write grant carries its reason on its line or the line above; no blanket grants.
  for (const [i, l] of lines.entries()) {
    if (/^\s*permissions:\s*(write-all|read-all)\b/.test(l))
      findings.push({ line: i + 1, rule: 'permissions', message: 'no blanket permissions: grant each scope' });
    if (/^\s+[\w-]+:\s*write\s*(#.*)?$/.test(l) && !l.includes('#') && !/^\s*#/.test(lines[i - 1] ?? '')) {
      findings.push({ line: i + 1, rule: 'permissions', message: `${l.trim()}: say why the job needs to write (a comment on the line or above)` });
    }
  }

  const w = parse(text) as Workflow;
  if (JSON.stringify(w.permissions) !== '{}')
    findings.push({ line: lineOf(/^permissions:/) || 1, rule: 'permissions', message: 'top level: permissions: {} (each job grants its own)' });
  const targetRun = triggers(w.on).includes('pull_request_target');
  for (const [name, job] of Object.entries(w.jobs ?? {})) {
    const at = lineOf(new RegExp(`^  ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`));
    if (job.permissions === undefined || job.permissions === null || typeof job.permissions !== 'object') {
      findings.push({ line: at, rule: 'permissions', message: `job ${name}: declare its permissions as a mapping (\`{}\` for none)` });
    }
    for (const step of job.steps ?? []) {
      if (typeof step.run === 'string' && step.run.includes('${{')) {
        findings.push({
          line: lineOf(/^\s*(-\s+)?run:/, at),
          rule: 'run-expression',
          message: `job ${name}: \${{ }} in a run: script; pass the value through env:`,
        });
      }
      if (!targetRun) continue;
      const checkout = step.uses?.startsWith('actions/checkout@') && PR_HEAD.test(JSON.stringify(step.with ?? {}));
      const fetches = typeof step.run === 'string' && (PR_HEAD.test(step.run) || /\bgh pr checkout\b/.test(step.run));
      if (checkout || fetches) {
        findings.push({
          line: at,
          rule: 'pull_request_target',
          message: `job ${name}: a pull_request_target run must not check out the pull request's code (it runs with the base's secrets)`,
        });
      }
    }
  }
  return findings;
}

/** Across files: one action pinned to one SHA with one version everywhere. */
export function pinConflicts(texts: Record<string, string>): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const [file, text] of Object.entries(texts)) {
    for (const m of text.matchAll(/uses:\s*([\w.-]+\/[\w.-]+)(?:\/[\w./-]+)?@([0-9a-f]{40})\s*#\s*(\S+)/g)) {
      const [, action, sha, version] = m as unknown as [string, string, string, string];
      const pin = `${sha} # ${version}`;
      const before = seen.get(action);
      if (before === undefined) seen.set(action, pin);
      else if (before !== pin) out.push(`${file}: ${action}@${pin}, elsewhere @${before}`);
    }
  }
  return out;
}
