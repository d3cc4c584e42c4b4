/** Fault injection for reliability tests: `5xx=0.1,429=0.05,reset=0.02,hang=0.01`, reproducible with a seed. */

export type FaultKind = '5xx' | '429' | 'reset' | 'hang';
const KINDS: readonly FaultKind[] = ['5xx', '429', 'reset', 'hang'];

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

/** Decides, request by request, whether to inject a fault. */
export class FaultInjector {
  private readonly random: () => number;
  /** Count of faults injected, by kind. */
  readonly injected: Record<FaultKind, number> = { '5xx': 0, '429': 0, reset: 0, hang: 0 };

  constructor(
    private spec: FaultSpec,
    seed = 1,
  ) {
    this.random = seededRandom(seed);
  }

  set(spec: FaultSpec): void {
    this.spec = spec;
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
