/** Called once for every secret the client learns (the API key, every token it mints or receives). */
export type SecretHook = (secret: string) => void;

const MASK = '***';

/** Field names whose string values are secrets wherever they appear in a body. */
const SECRET_KEY =
  /^(token|accessToken|access_token|refreshToken|refresh_token|idToken|id_token|cubeApiToken|apiKey|api_key|password|secret|clientSecret|client_secret|privateKey|private_key|sessionId|jwt)$/i;
const SECRET_SUFFIX = /(Token|Secret|Password)$/;

/**
 * Strings that look like credentials wherever they appear in outside text (a platform's error message,
 * a validation message): JWTs, platform API keys, GitHub tokens, and whatever follows an auth scheme.
 * A token the client never saw is masked too.
 */
const SECRET_LOOKING: readonly RegExp[] = [
  /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
  /(?<=\b(?:Bearer|Api-Key) )[A-Za-z0-9._~+/=-]{16,}/g,
];

/** The secret-looking strings of a text. */
export function secretsIn(text: string): string[] {
  return SECRET_LOOKING.flatMap((re) => text.match(re) ?? []);
}

/** Mask every secret-looking string of an outside text (what goes to a comment, a summary or a log). */
export function maskSecretLooking(text: string): string {
  return SECRET_LOOKING.reduce((out, re) => out.replace(re, MASK), text);
}

/** Does a field with this name hold a secret? */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || SECRET_SUFFIX.test(key);
}

/**
 * The one place that knows every secret: it reports each new one to the hook (the action layer wires
 * this to `core.setSecret`) and scrubs them from anything the client prints or attaches to errors.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly hooks: SecretHook[] = [];

  constructor(hook?: SecretHook) {
    if (hook) this.hooks.push(hook);
  }

  /** Register another hook; it is told about every secret already known too. */
  onSecret(hook: SecretHook): void {
    this.hooks.push(hook);
    for (const s of this.secrets) hook(s);
  }

  /** Record a secret. Short values are ignored: masking "1" would mask every digit in the logs. */
  add(secret: string | undefined | null): void {
    if (typeof secret !== 'string') return;
    const s = secret.trim();
    if (s.length < 6 || this.secrets.has(s)) return;
    this.secrets.add(s);
    for (const hook of this.hooks) hook(s);
  }

  /** Record every secret-looking string field of a received body. */
  harvest(value: unknown, depth = 0): void {
    if (depth > 8 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) this.harvest(item, depth + 1);
      return;
    }
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === 'string' && isSecretKey(k)) this.add(v);
      else if (v && typeof v === 'object') this.harvest(v, depth + 1);
    }
  }

  /** Replace every known secret inside a text, and anything in it that looks like one (it is learned too). */
  redactText(text: string): string {
    for (const found of secretsIn(text)) this.add(found);
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(MASK);
    return out;
  }

  /** A deep copy with secret-looking fields and known secrets replaced. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (value === null || typeof value !== 'object' || depth > 8) return value;
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = typeof v === 'string' && isSecretKey(k) ? MASK : this.redactValue(v, depth + 1);
    }
    return out;
  }

  /** Number of secrets known (for tests). */
  get size(): number {
    return this.secrets.size;
  }
}
