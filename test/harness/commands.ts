/**
 * What the runner reads back from a step: workflow commands on stdout/stderr (`::error file=...::msg`),
 * the environment files (GITHUB_OUTPUT, GITHUB_ENV, ...), and the secret masker. Same parsing rules as
 * actions/runner (ActionCommand.cs, FileCommandManager.cs, SecretMasker), on Linux.
 */

/** Commands the runner knows; any other `::name::` line is plain output. */
export const REGISTERED_COMMANDS = [
  'add-mask',
  'add-matcher',
  'add-path',
  'debug',
  'echo',
  'endgroup',
  'error',
  'group',
  'notice',
  'remove-matcher',
  'save-state',
  'set-env',
  'set-output',
  'stop-commands',
  'warning',
] as const;

/** A parsed workflow command. */
export interface WorkflowCommand {
  /** Command name, lower case (`error`, `add-mask`...). */
  command: string;
  /** Properties (`file`, `line`, `title`...), unescaped; keys lower case. */
  properties: Record<string, string>;
  /** Text after the second `::`, unescaped. */
  data: string;
}

const DATA_ESCAPES: Array<[string, string]> = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%25', '%'],
];
const PROPERTY_ESCAPES: Array<[string, string]> = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%3A', ':'],
  ['%2C', ','],
  ['%25', '%'],
];
const LEGACY_ESCAPES: Array<[string, string]> = [
  ['%3B', ';'],
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%5D', ']'],
  ['%25', '%'],
];

// In this order, case-sensitive, as the runner's String.Replace chain.
const unescape = (text: string, table: Array<[string, string]>) => table.reduce((s, [from, to]) => s.split(from).join(to), text);

/** Escape command data as @actions/core does (`%`, CR, LF). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escape a command property as @actions/core does (data escapes plus `:` and `,`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Parse one output line as a workflow command: `::name k=v,k=v::data` (leading blanks allowed), or the
 * legacy `##[name k=v;k=v]data` anywhere in the line. `extra` adds names (the stop-commands token).
 */
export function parseWorkflowCommand(line: string, extra: readonly string[] = []): WorkflowCommand | undefined {
  const known = new Set<string>([...REGISTERED_COMMANDS, ...extra.map((e) => e.toLowerCase())]);
  const message = line.trimStart();
  if (message.startsWith('::')) {
    const end = message.indexOf('::', 2);
    if (end >= 0) {
      const info = message.slice(2, end);
      const space = info.indexOf(' ');
      const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
      if (!known.has(name)) return undefined;
      const properties: Record<string, string> = {};
      if (space > 0) {
        for (const prop of info
          .slice(space + 1)
          .trim()
          .split(',')
          .filter(Boolean)) {
          const eq = prop.indexOf('=');
          // The runner splits with RemoveEmptyEntries: `k=` and `=v` are dropped.
          if (eq > 0 && eq < prop.length - 1) properties[prop.slice(0, eq).toLowerCase()] = unescape(prop.slice(eq + 1), PROPERTY_ESCAPES);
        }
      }
      return { command: name, properties, data: unescape(message.slice(end + 2), DATA_ESCAPES) };
    }
  }
  const prefix = line.indexOf('##[');
  if (prefix < 0) return undefined;
  const rb = line.indexOf(']', prefix);
  if (rb < 0) return undefined;
  const info = line.slice(prefix + 3, rb);
  const space = info.indexOf(' ');
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (!known.has(name)) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const prop of info
      .slice(space + 1)
      .split(';')
      .filter(Boolean)) {
      const eq = prop.indexOf('=');
      if (eq > 0 && eq < prop.length - 1) properties[prop.slice(0, eq).toLowerCase()] = unescape(prop.slice(eq + 1), LEGACY_ESCAPES);
    }
  }
  return { command: name, properties, data: unescape(line.slice(rb + 1), LEGACY_ESCAPES) };
}

/**
 * Parse an environment file (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE): `NAME=value` lines and
 * `NAME<<DELIMITER` heredocs, LF line ends (Linux runner). Throws as the runner does on a bad line or a
 * missing delimiter (the step then fails).
 */
export function parseEnvFile(text: string): Array<[string, string]> {
  const result: Array<[string, string]> = [];
  let index = 0;
  const readLine = (): { line: string; newline: boolean } | undefined => {
    if (index >= text.length) return undefined;
    const lf = text.indexOf('\n', index);
    const start = index;
    if (lf < 0) {
      index = text.length;
      return { line: text.slice(start), newline: false };
    }
    index = lf + 1;
    return { line: text.slice(start, lf), newline: true };
  };
  for (let next = readLine(); next; next = readLine()) {
    const line = next.line;
    if (line === '') continue;
    const eq = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (eq >= 0 && (heredoc < 0 || eq < heredoc)) {
      const name = line.slice(0, eq);
      if (name === '') throw new Error(`Invalid format '${line}'. Name must not be empty`);
      result.push([name, line.slice(eq + 1)]);
    } else if (heredoc >= 0 && (eq < 0 || heredoc < eq)) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (name === '' || delimiter === '') throw new Error(`Invalid format '${line}'. Name must not be empty and delimiter must not be empty`);
      const start = index;
      let end = index;
      let inner = readLine();
      while (!inner || inner.line !== delimiter) {
        if (!inner) throw new Error(`Invalid value. Matching delimiter not found '${delimiter}'`);
        end = index - (inner.newline ? 1 : 0);
        inner = readLine();
      }
      result.push([name, end > start ? text.slice(start, end) : '']);
    } else {
      throw new Error(`Invalid format '${line}'`);
    }
  }
  return result;
}

/**
 * The runner's secret masker: every registered value (and each line of a multi-line one), plus the
 * encodings the runner also masks (JSON string escape, URI escape, base64, expression-string escape),
 * replaced by `***` in every line written after it was registered.
 */
export class SecretMasker {
  private readonly values = new Set<string>();
  private readonly patterns = new Set<string>();
  private sorted: string[] = [];

  /** Register a secret. Blank values are ignored. */
  add(value: string): void {
    if (value.trim() === '') return;
    this.values.add(value);
    const parts = new Set([value, ...value.split(/\r?\n/)]);
    for (const part of parts) {
      if (part.trim() === '') continue;
      for (const encoded of [
        part,
        JSON.stringify(part).slice(1, -1),
        encodeURIComponent(part).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
        Buffer.from(part, 'utf8').toString('base64').replace(/=+$/, ''),
        part.replace(/'/g, "''"),
        part.replace(/^"+|"+$/g, ''),
      ]) {
        if (encoded !== '') this.patterns.add(encoded);
      }
    }
    // Longest first, so a secret that contains another is masked whole.
    this.sorted = [...this.patterns].sort((a, b) => b.length - a.length);
  }

  /** The text with every registered secret replaced by `***`. */
  mask(text: string): string {
    let out = text;
    for (const p of this.sorted) if (out.includes(p)) out = out.split(p).join('***');
    return out;
  }

  /** The values registered so far (not their encodings). */
  list(): string[] {
    return [...this.values];
  }
}
