/**
 * How an input is read: from a `--flag`, else its `DATAMODEL_CI_*` variable (how action.yml passes
 * inputs), else the action table's default; each typed read checks the value and throws an InputError
 * naming the input, the value and what was expected. src/settings.ts reads every command's inputs with it.
 */
import { branchNameProblem } from '@datamodel-ci/platform-api';
import { envName, type InputSpec } from './action-spec.js';
import { InputError } from './client/errors.js';

export type Source = (name: string) => string | undefined;

/** Flags first, then the environment; empty counts as unset. */
export function sourceOf(flags: Record<string, string | boolean>, env: NodeJS.ProcessEnv): Source {
  return (name) => {
    const f = flags[name];
    if (typeof f === 'string' && f !== '') return f;
    if (f === true) return 'true';
    if (f === false) return 'false';
    const e = env[envName(name)];
    return e === undefined || e.trim() === '' ? undefined : e.trim();
  };
}

/** Typed reads of declared inputs; records which were read so a test can prove none is forgotten. */
export class InputReader {
  private readonly defaults: Map<string, string | undefined>;
  /** Every input name this reader was asked for. */
  readonly read = new Set<string>();
  constructor(
    private readonly source: Source,
    inputs: readonly InputSpec[],
  ) {
    this.defaults = new Map(inputs.map((i) => [i.name, i.default]));
  }

  /**
   * The raw value (flag, variable, or the table's default unless it is an expression). An input the
   * command does not declare reads as unset: a stray variable in the job cannot change its behaviour.
   */
  raw(name: string): string | undefined {
    this.read.add(name);
    if (!this.defaults.has(name)) return undefined;
    const v = this.source(name);
    if (v !== undefined) return v;
    const d = this.defaults.get(name);
    return d === undefined || d === '' || d.includes('${{') ? undefined : d;
  }

  string(name: string): string | undefined {
    return this.raw(name);
  }

  /** Whether the command takes the input at all (the root action's own, such as `deployments`). */
  declares(name: string): boolean {
    return this.defaults.has(name);
  }

  required(name: string, expected: string): string {
    const v = this.raw(name);
    if (v === undefined) throw new InputError(name, undefined, `${expected} (input ${name}, --${name} or ${envName(name)})`);
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

  oneOf<T extends string>(name: string, values: readonly T[]): T;
  oneOf<T extends string>(name: string, values: readonly T[], options: { optional: true }): T | undefined;
  oneOf<T extends string>(name: string, values: readonly T[], options?: { optional: true }): T | undefined {
    const v = this.raw(name);
    if (v === undefined && options?.optional) return undefined;
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

  /** A list of globs: one per line or comma-separated; blanks dropped. */
  globs(name: string): string[] {
    const v = this.raw(name);
    if (v === undefined) return [];
    const list = v
      .split(/[\n,]/)
      .map((g) => g.trim())
      .filter(Boolean);
    for (const g of list) {
      if (g.startsWith('/') || g.split('/').includes('..')) throw new InputError(name, g, 'globs of paths relative to model-dir (no leading "/", no "..")');
    }
    return list;
  }

  /** A GitHub environment name (or prefix): letters, digits, `-`, `_`, `.`, `/`, at most 200. */
  environmentName(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (!/^[\w.\-/ ]{1,200}$/.test(v)) throw new InputError(name, v, 'letters, digits, "-", "_", ".", "/" or spaces, at most 200 characters');
    return v;
  }

  /** A branch name, checked against the platform's rule. */
  branch(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const problem = branchNameProblem(v);
    if (problem) throw new InputError(name, v, problem);
    return v;
  }
}
