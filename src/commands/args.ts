/**
 * A small, strict flag parser: `--name value`, `--name=value`, positionals, and switches: `--flag`,
 * `--flag=false`, or `--flag true|false` (the form older docs showed; a following word that is neither
 * stays a positional).
 */
import { didYouMean, didYouMeanText } from '../model/did-you-mean.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface FlagSpec {
  /** Boolean flags take no value. */
  boolean?: readonly string[];
  /** Flags that take a value. */
  string?: readonly string[];
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean>;
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const booleans = new Set(spec.boolean ?? []);
  const strings = new Set(spec.string ?? []);
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (booleans.has(name)) {
      if (eq !== -1) {
        const v = arg.slice(eq + 1);
        if (v !== 'true' && v !== 'false') throw new UsageError(`--${name}: got "${v}", expected true or false`);
        flags[name] = v === 'true';
      } else if (argv[i + 1] === 'true' || argv[i + 1] === 'false') flags[name] = argv[++i] === 'true';
      else flags[name] = true;
    } else if (strings.has(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name}: expected a value`);
      flags[name] = value;
    } else {
      const known = [...booleans, ...strings];
      const near = didYouMean(name, known);
      // A short list helps; a long one (an action's fifty inputs) is --help's job, which the caller points to.
      const list = known.length <= 10 ? ` (known: ${known.map((f) => `--${f}`).join(', ') || 'none'})` : '';
      throw new UsageError(`unknown flag --${name}${near.length ? didYouMeanText(near, (f) => `--${f}`) : list}`);
    }
  }
  return { positionals, flags };
}
