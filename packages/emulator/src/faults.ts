/**
 * Fault injection for reliability tests: `5xx=0.1,429=0.05,reset=0.02,hang=0.01`, reproducible with a
 * seed. `lost=p` lets a request take effect and then drops its answer (the connection resets).
 */

export type FaultKind = '5xx' | '429' | 'reset' | 'hang' | 'lost';
const KINDS: readonly FaultKind[] = ['5xx', '429', 'reset', 'hang', 'lost'];

export type FaultSpec = Partial<Record<FaultKind, number>>;

/** Parse a fault spec; the error names the part, the value and what is expected. */
export function parseFaults(spec: string | undefined): FaultSpec {
  const out: FaultSpec = {};
  if (!spec) return out;
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=');
    if (!KINDS.includes(name as FaultKind)) {
      throw new Error(`--faults: got "${part}", expected one of ${KINDS.join(', ')} as name=probability`);
    }
    const p = Number(value);
    if (value === undefined || !Number.isFinite(p) || p < 0 || p > 1) {
      throw new Error(`--faults: got "${part}", expected a probability between 0 and 1`);
    }
    out[name as FaultKind] = p;
  }
  const total = Object.values(out).reduce((a, b) => a + b, 0);
  if (total > 1) throw new Error(`--faults: got "${spec}", expected probabilities that add up to at most 1`);
  return out;
}

/** mulberry32: a small, fast, seeded PRNG. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A fault for chosen requests (tests): `lost` lets the request take effect, then resets the connection
 * instead of answering (a write whose answer never arrives).
 */
export interface PlannedFault {
  kind: FaultKind;
  method?: string;
  /** A request path (without query) that contains this text, or matches this pattern. */
  path: string | RegExp;
  /** How many matching requests get it (default 1). */
  times?: number;
}

/** Decides, request by request, whether to inject a fault. */
export class FaultInjector {
  private readonly random: () => number;
  private readonly planned: PlannedFault[] = [];
  /** Count of faults injected, by kind. */
  readonly injected: Record<FaultKind, number> = { '5xx': 0, '429': 0, reset: 0, hang: 0, lost: 0 };

  constructor(
    private spec: FaultSpec,
    seed = 1,
  ) {
    this.random = seededRandom(seed);
  }

  set(spec: FaultSpec): void {
    this.spec = spec;
  }

  /** Inject `fault.kind` into the next matching requests, before any random fault. */
  plan(fault: PlannedFault): void {
    this.planned.push({ ...fault, times: fault.times ?? 1 });
  }

  /** The planned fault of this request, if one matches (counted down). */
  plannedFor(method: string, path: string): PlannedFault['kind'] | undefined {
    const i = this.planned.findIndex((f) => (!f.method || f.method === method) && (typeof f.path === 'string' ? path.includes(f.path) : f.path.test(path)));
    if (i < 0) return undefined;
    const f = this.planned[i]!;
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) this.planned.splice(i, 1);
    this.injected[f.kind] += 1;
    return f.kind;
  }

  next(): FaultKind | undefined {
    const r = this.random();
    let acc = 0;
    for (const kind of KINDS) {
      acc += this.spec[kind] ?? 0;
      if (r < acc) {
        this.injected[kind] += 1;
        return kind;
      }
    }
    return undefined;
  }
}
