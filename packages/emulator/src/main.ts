/** `datamodel-ci-emulator`: run the platform emulator over HTTPS until Ctrl-C (or SIGTERM). */
import { parseArgs } from 'node:util';
import { parseFaults } from './faults.js';
import { parseProfiles, PROFILE_SUMMARY, PROFILES } from './profiles.js';
import { SEEDS, type SeedName } from './seed/index.js';
import { DEFAULT_BEHAVIOUR } from './context.js';
import { startEmulator } from './server.js';

/** Every flag: what parseArgs reads and what --help lists come from this one table (`value: ''` for a switch). */
const FLAGS = [
  { name: 'host', value: 'HOST', text: 'address to listen on (default 127.0.0.1)' },
  { name: 'port', value: 'N', text: 'port (default 0: any free port)' },
  { name: 'state-dir', value: 'DIR', text: 'keep the state (and the CA) in DIR across restarts' },
  { name: 'seed', value: 'demo|empty', text: 'start with the demo deployment and model, or nothing (default demo)' },
  { name: 'latency', value: 'MS', text: 'added to every answer (default 0)' },
  { name: 'faults', value: 'SPEC', text: 'inject faults, e.g. 5xx=0.1,429=0.05,reset=0.02,hang=0.01' },
  { name: 'fault-seed', value: 'N', text: 'seed of the fault draws (default 1)' },
  { name: 'time-scale', value: 'X', text: "speed of the emulator's clock, e.g. 10 runs dbt syncs ten times faster (default 1)" },
  { name: 'build-ms', value: 'MS', text: `emulated time a branch build takes (default ${DEFAULT_BEHAVIOUR.buildMs})` },
  { name: 'warmup-ms', value: 'MS', text: `emulated time a staging or dev-mode runtime takes to start (default ${DEFAULT_BEHAVIOUR.warmupMs})` },
  { name: 'dbt-invisible-ms', value: 'MS', text: `emulated time a dbt sync answers 404 after its start (default ${DEFAULT_BEHAVIOUR.dbtInvisibleMs})` },
  {
    name: 'continue-wait',
    value: 'N',
    text: `polls of each data query answered "Continue wait" before its rows (default ${DEFAULT_BEHAVIOUR.continueWaitPolls}; 0 allowed)`,
  },
  { name: 'older-deployments', value: 'IDS', text: 'comma-separated deployment ids whose dbt sync ignores ref (older deployments)' },
  { name: 'no-direct-uploads', value: '', text: 'refuse uploads to shared and deploy branches (dev-mode branches only), as some tenants do' },
  { name: 'wrap-file-hashes', value: '', text: 'answer file-hashes as { files: {...} } instead of the plain map' },
  { name: 'flat-file-list', value: '', text: "list data-model files flat (relative paths) instead of the vendor's nested tree" },
  { name: 'profile', value: 'A,B', text: 'answer as a tenant with these profiles (below; docs/emulator.md gives the evidence for each)' },
] as const;

const helpLine = (flag: string, text: string) => `  ${flag.padEnd(28)}${text}`;
// A name too long for the column takes a line of its own, its summary below in the column.
const profileLine = (p: (typeof PROFILES)[number]) =>
  p.length < 22 ? `  ${p.padEnd(22)}${PROFILE_SUMMARY[p]}` : `  ${p}\n${' '.repeat(24)}${PROFILE_SUMMARY[p]}`;

const HELP = `datamodel-ci-emulator: the platform API (and its data API) on this machine, over HTTPS.

Usage: datamodel-ci-emulator [--flags]

Prints one JSON line { baseUrl, caFile, credentials, deployments } once it listens, then runs until
Ctrl-C or SIGTERM. Point datamodel-ci at it with --api-url <baseUrl> --ca-cert <caFile> and one of
the printed credentials as --api-key. Tests steer it through control routes under /_emulator/
(the admin key): the clock, faults, tenant behaviour, failing builds and dbt syncs (see the README).

Validation and /meta run Cube's own compiler; /load, /sql and /dry-run its SQL, on an in-process
Postgres per deployment holding demo data, started on the first data query (a few seconds, then fast).
Jinja and Python models cannot be compiled here: they are reported as such.

${[...FLAGS.map((f) => helpLine(`--${f.name} ${f.value}`.trimEnd(), f.text)), helpLine('-h, --help', 'this text')].join('\n')}

Tenant profiles (--profile, or POST /_emulator/profiles {"profiles":[...]}): where the vendor's documents
are silent, each answers as one plausible real tenant does.
${PROFILES.map(profileLine).join('\n')}
`;

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const defaultIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function number(flags: Flags, name: string, min: number, fallback: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n) || n < min) {
    throw new UsageError(`--${name}: got ${JSON.stringify(raw)}, expected a number of at least ${min}`);
  }
  return n;
}

function wholeNumber(flags: Flags, name: string, fallback: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim())) throw new UsageError(`--${name}: got ${JSON.stringify(raw)}, expected a whole number, 0 or more`);
  return Number(raw);
}

function ids(flags: Flags, name: string): number[] {
  const raw = flags[name];
  if (raw === undefined) return [];
  const list = String(raw)
    .split(',')
    .map((p) => p.trim());
  if (!list.every((p) => /^\d+$/.test(p))) throw new UsageError(`--${name}: got ${JSON.stringify(raw)}, expected deployment ids separated by commas, e.g. 1,2`);
  return list.map(Number);
}

/** Parse the flags, start the emulator, print its JSON line, wait for a signal. Returns the exit code. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  let flags: Flags;
  try {
    ({ values: flags } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(FLAGS.map((f) => [f.name, { type: f.value ? 'string' : 'boolean' } as const])),
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    io.err(`datamodel-ci-emulator: ${(e as Error).message}. Run "datamodel-ci-emulator --help" for the flags.`);
    return 2;
  }
  if (flags.help) {
    io.out(HELP);
    return 0;
  }
  let options: Parameters<typeof startEmulator>[0];
  try {
    const seed = (flags.seed ?? 'demo') as string;
    if (!SEEDS.includes(seed as SeedName)) throw new UsageError(`--seed: got ${JSON.stringify(seed)}, expected ${SEEDS.join(' or ')}`);
    const port = number(flags, 'port', 0, 0);
    if (!Number.isInteger(port) || port > 65535) throw new UsageError(`--port: got ${JSON.stringify(flags.port)}, expected an integer from 0 to 65535`);
    let faults;
    let profiles;
    try {
      faults = parseFaults(flags.faults as string | undefined);
      profiles = parseProfiles(flags.profile as string | undefined);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    options = {
      host: (flags.host as string | undefined) ?? '127.0.0.1',
      port,
      stateDir: flags['state-dir'] as string | undefined,
      seed: seed as SeedName,
      latencyMs: number(flags, 'latency', 0, 0),
      faults,
      faultSeed: number(flags, 'fault-seed', 0, 1),
      clock: { scale: number(flags, 'time-scale', 0.001, 1) },
      directUploads: !flags['no-direct-uploads'],
      wrapFileHashes: flags['wrap-file-hashes'] === true,
      flatFileList: flags['flat-file-list'] === true,
      buildMs: number(flags, 'build-ms', 0, DEFAULT_BEHAVIOUR.buildMs),
      warmupMs: number(flags, 'warmup-ms', 0, DEFAULT_BEHAVIOUR.warmupMs),
      dbtInvisibleMs: number(flags, 'dbt-invisible-ms', 0, DEFAULT_BEHAVIOUR.dbtInvisibleMs),
      continueWaitPolls: wholeNumber(flags, 'continue-wait', DEFAULT_BEHAVIOUR.continueWaitPolls),
      olderDeployments: ids(flags, 'older-deployments'),
      profiles,
    };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`datamodel-ci-emulator: ${e.message}`);
    return 2;
  }
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator(options);
  } catch (e) {
    // A deployment id the seed does not have, a port in use: one line, not a stack.
    io.err(`datamodel-ci-emulator: ${(e as Error).message}`);
    return 1;
  }
  // The signals are caught before the line is printed (a caller may stop it as soon as it reads the line),
  // and until the emulator has closed (its temporary CA folder removed).
  let stop = () => undefined as void;
  const stopped = new Promise<void>((resolveStop) => (stop = resolveStop));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    io.out(JSON.stringify({ baseUrl: emulator.baseUrl, caFile: emulator.caFile, credentials: emulator.credentials, deployments: emulator.deployments }));
    await stopped;
    await emulator.close();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return 0;
}
