/**
 * A policy condition (`conditions: [{ if: … }]`) evaluated without running the model's code: only the
 * small expressions teams write over the security context (`{ securityContext.is_full_time_employee }`,
 * `securityContext.region === 'EU' && !securityContext.contractor`, `securityContext.teams.includes('x')`).
 * Anything else is "unknown": a reviewer is told it was not evaluated, never a guess.
 */

export type ConditionValue = { value: unknown } | { unknown: string };

type Token = { t: 'num' | 'str' | 'id' | 'op'; v: string };

const ROOTS = new Set(['securityContext', 'security_context', 'SECURITY_CONTEXT']);
const OPS = ['===', '!==', '==', '!=', '>=', '<=', '&&', '||', '?.', '>', '<', '!', '(', ')', '.', '[', ']', ','];

class Unsupported extends Error {}

function tokens(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0 || src.slice(i + 1, end).includes('\\')) throw new Unsupported('a string it cannot read');
      out.push({ t: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const num = /^\d+(\.\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ t: 'num', v: num[0] });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_$][\w$]*/.exec(src.slice(i));
    if (id) {
      out.push({ t: 'id', v: id[0] });
      i += id[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new Unsupported(`the operator ${JSON.stringify(c)}`);
    out.push({ t: 'op', v: op });
    i += op.length;
  }
  return out;
}

/** A recursive-descent reader of the subset: || over && over comparisons over unary over paths and literals. */
class Reader {
  private at = 0;
  /** Attributes the expression reads that the context does not set. */
  readonly missing: string[] = [];
  constructor(
    private readonly toks: Token[],
    private readonly context: Record<string, unknown>,
  ) {}

  run(): unknown {
    const v = this.or();
    if (this.at < this.toks.length) throw new Unsupported(`${JSON.stringify(this.toks[this.at]!.v)} where the expression should end`);
    return v;
  }
  private peek(v: string): boolean {
    const t = this.toks[this.at];
    return !!t && t.t === 'op' && t.v === v;
  }
  private take(v: string): void {
    if (!this.peek(v)) throw new Unsupported(`a missing ${JSON.stringify(v)}`);
    this.at += 1;
  }
  private or(): unknown {
    let v = this.and();
    while (this.peek('||')) {
      this.at += 1;
      const r = this.and();
      v = v || r;
    }
    return v;
  }
  private and(): unknown {
    let v = this.compare();
    while (this.peek('&&')) {
      this.at += 1;
      const r = this.compare();
      v = v && r;
    }
    return v;
  }
  private compare(): unknown {
    const a = this.unary();
    const op = this.toks[this.at];
    if (!op || op.t !== 'op' || !['===', '!==', '==', '!=', '>=', '<=', '>', '<'].includes(op.v)) return a;
    this.at += 1;
    const b = this.unary();
    switch (op.v) {
      case '===':
      case '==':
        return a === b;
      case '!==':
      case '!=':
        return a !== b;
      default:
        if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))) return false;
        return op.v === '>' ? a > b : op.v === '<' ? a < b : op.v === '>=' ? a >= b : a <= b;
    }
  }
  private unary(): unknown {
    if (this.peek('!')) {
      this.at += 1;
      return !this.unary();
    }
    if (this.peek('(')) {
      this.at += 1;
      const v = this.or();
      this.take(')');
      return v;
    }
    const t = this.toks[this.at];
    if (!t) throw new Unsupported('an expression that ends early');
    this.at += 1;
    if (t.t === 'num') return Number(t.v);
    if (t.t === 'str') return t.v;
    if (t.t === 'id' && t.v === 'true') return true;
    if (t.t === 'id' && t.v === 'false') return false;
    if (t.t === 'id' && (t.v === 'null' || t.v === 'undefined')) return t.v === 'null' ? null : undefined;
    if (t.t === 'id' && ROOTS.has(t.v)) return this.path(t.v);
    throw new Unsupported(`${JSON.stringify(t.v)}, which is not the security context`);
  }
  /** `securityContext.a.b`, `securityContext['a']`, optional chaining, and `.includes(literal)`. */
  private path(root: string): unknown {
    let v: unknown = this.context;
    let name = root;
    for (;;) {
      if (this.peek('.') || this.peek('?.')) {
        this.at += 1;
        const key = this.toks[this.at];
        if (!key || key.t !== 'id') throw new Unsupported('a member access it cannot read');
        this.at += 1;
        if (key.v === 'includes' && this.peek('(')) {
          this.at += 1;
          const arg = this.unary();
          this.take(')');
          return Array.isArray(v) || typeof v === 'string' ? v.includes(arg as string) : false;
        }
        v = this.step(v, key.v, (name = `${name}.${key.v}`));
      } else if (this.peek('[')) {
        this.at += 1;
        const key = this.toks[this.at];
        if (!key || (key.t !== 'str' && key.t !== 'num')) throw new Unsupported('an index it cannot read');
        this.at += 1;
        this.take(']');
        v = this.step(v, key.v, (name = `${name}.${key.v}`));
      } else return v;
    }
  }
  private step(v: unknown, key: string, name: string): unknown {
    const next = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    if (next === undefined && !this.missing.includes(name)) this.missing.push(name);
    return next;
  }
}

/** The expression inside a YAML `if` (`"{ securityContext.x }"`) or a JS one (`securityContext.x`, or an arrow over it). */
export function conditionSource(text: string): string {
  let s = text.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  const arrow = /^\(?\s*(?:\{\s*)?(securityContext|security_context|SECURITY_CONTEXT)?\s*(?:\}\s*)?\)?\s*=>\s*/.exec(s);
  if (arrow) s = s.slice(arrow[0].length).trim();
  return s;
}

/** Evaluate one condition's text against a security context; `missing` names attributes it read that were not set. */
export function evaluateCondition(text: string, context: Record<string, unknown>): ConditionValue & { missing?: string[] } {
  const src = conditionSource(text);
  try {
    const reader = new Reader(tokens(src), context);
    const value = reader.run();
    return reader.missing.length ? { value, missing: reader.missing } : { value };
  } catch (e) {
    if (e instanceof Unsupported) return { unknown: `the condition ${JSON.stringify(src)} was not evaluated (it uses ${e.message})` };
    throw e;
  }
}
