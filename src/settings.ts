/**
 * One module reads every input into typed settings: from a `--flag`, else its `DATAMODEL_CI_*`
 * variable (how action.yml passes inputs), else the default of the action table. A bad value is an
 * InputError naming the input, the value and the expected form.
 */
import { InputError } from './client/errors.js';
import { parseBaseUrl, type AuthScheme } from './client/http.js';
import { actionSpec, envName, inputsOf, type CommandName } from './action-spec.js';

export type Source = (name: string) => string | undefined;

/** Flags first, then the environment; empty counts as unset. */
export function sourceOf(flags: Record<string, string | boolean>, env: NodeJS.ProcessEnv): Source {
  return (name) => {
    const f = flags[name];
    if (typeof f === 'string' && f !== '') return f;
    if (f === true) return 'true';
    const e = env[envName(name)];
    return e === undefined || e.trim() === '' ? undefined : e.trim();
  };
}

export class InputReader {
  private readonly defaults: Map<string, string | undefined>;
  constructor(
    private readonly source: Source,
    command: CommandName,
  ) {
    this.defaults = new Map(inputsOf(actionSpec(command)).map((i) => [i.name, i.default]));
  }

  /**
   * The raw value (flag, variable, or the table's default unless it is an expression). An input the
   * command does not declare reads as unset: a stray variable in the job cannot change its behaviour.
   */
  raw(name: string): string | undefined {
    if (!this.defaults.has(name)) return undefined;
    const v = this.source(name);
    if (v !== undefined) return v;
    const d = this.defaults.get(name);
    return d === undefined || d === '' || d.includes('${{') ? undefined : d;
  }

  string(name: string): string | undefined {
    return this.raw(name);
  }

  required(name: string, expected: string): string {
    const v = this.raw(name);
    if (v === undefined) throw new InputError(name, undefined, `${expected} (input ${name} or ${envName(name)})`);
    return v;
  }

  bool(name: string): boolean {
    const v = this.raw(name) ?? 'false';
    const lower = v.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    throw new InputError(name, v, 'true or false');
  }

  int(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      throw new InputError(name, v, max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`);
    }
    return Number(v);
  }

  /** A positive number (fractions allowed), e.g. minutes. */
  positive(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!/^\d+(\.\d+)?$/.test(v) || !(n > 0)) throw new InputError(name, v, 'a positive number');
    return n;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T {
    const v = this.raw(name);
    if (v === undefined || !values.includes(v as T)) throw new InputError(name, v, values.map((x) => JSON.stringify(x)).join(' or '));
    return v as T;
  }

  /** `90s`, `30m`, `12h`, `7d` -> ms. */
  duration(name: string): number {
    const v = this.raw(name) ?? '0s';
    const m = /^(\d+)\s*(s|m|h|d)$/.exec(v);
    if (!m) throw new InputError(name, v, 'a duration such as 90s, 30m, 12h or 7d');
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
    return Number(m[1]) * unit;
  }
}

export interface ConnectionSettings {
  apiUrl: string;
  /** Undefined when not given: operations skip with a notice (fork PRs get no secrets). */
  apiKey: string | undefined;
  authScheme: AuthScheme;
  caCert: string | undefined;
}

export interface CommonSettings {
  connection: ConnectionSettings;
  deploymentId: number;
  githubToken: string | undefined;
  modelDir: string;
  branchPrefix: string;
  dryRun: boolean;
  failWithoutCredentials: boolean;
  /** Per-request timeout, ms. */
  requestTimeoutMs: number;
}

/** Platform branch names the toolkit makes: lower-case letters, digits, `-`, `_`, `.`, `/`. */
const PREFIX = /^[a-z0-9][a-z0-9._/-]*$|^$/;

export function readCommon(r: InputReader): CommonSettings {
  const apiUrl = r.required('api-url', "the platform's https:// address");
  parseBaseUrl(apiUrl, 'api-url');
  const branchPrefix = r.raw('branch-prefix') ?? '';
  if (!PREFIX.test(branchPrefix) || branchPrefix.includes('..') || branchPrefix.startsWith('dev-')) {
    throw new InputError('branch-prefix', branchPrefix, 'lower-case letters, digits, ".", "_", "-" or "/", not starting with "dev-" and without ".."');
  }
  const deploymentId = r.int('deployment-id', 1);
  if (deploymentId === undefined) throw new InputError('deployment-id', undefined, 'the id of the platform deployment (a positive integer)');
  const modelDir = r.raw('model-dir') ?? '.';
  if (modelDir.split(/[\\/]/).includes('..')) {
    throw new InputError('model-dir', modelDir, 'a folder inside the repository, without ".." segments');
  }
  return {
    connection: {
      apiUrl,
      apiKey: r.raw('api-key'),
      authScheme: r.oneOf('auth-scheme', ['bearer', 'api-key'] as const),
      caCert: r.raw('ca-cert'),
    },
    deploymentId,
    githubToken: r.raw('github-token'),
    modelDir,
    branchPrefix,
    dryRun: r.bool('dry-run'),
    failWithoutCredentials: r.bool('fail-without-credentials'),
    requestTimeoutMs: (r.positive('request-timeout') ?? 30) * 1000,
  };
}

/** Check a branch name given as input. */
export function checkBranchInput(name: string, value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(value) || value.includes('..') || value.endsWith('/')) {
    throw new InputError(name, value, 'a branch name of letters, digits, ".", "_", "-" and "/" (no spaces, no "..")');
  }
  return value;
}
