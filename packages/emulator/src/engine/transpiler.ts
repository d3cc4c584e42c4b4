/**
 * Cube's JavaScript and YAML transpilers, run in this thread instead of a thread of their own.
 * Without its native module the compiler starts a transpiler thread on every compile and ends it after
 * (0.4 s of every compile: the thread loads Babel again); here the same functions of Cube's own
 * transpiler script (`transpilers/transpiler_worker.js`) are loaded once and called directly.
 * test/emulator-engine.test.ts compiles models both ways and requires the same answers.
 */
import { createRequire } from 'node:module';

type Transpile = (data: unknown) => { errors: unknown[]; warnings: unknown[] } & Record<string, unknown>;

/** The part of `workerpool` the compiler calls (`pool(script, options)`, then `exec` and `terminate`). */
interface WorkerpoolModule {
  pool(script: string, options?: unknown): { exec(method: string, params: unknown[]): Promise<unknown>; terminate(force?: boolean): Promise<unknown> };
  worker(this: void, methods: Record<string, Transpile>): void;
}

const TRANSPILER_SCRIPT = /[\\/]transpilers[\\/]transpiler_worker(\.js)?$/;

let threadPool: WorkerpoolModule['pool'] | undefined;
let inThread = false;

/** Cube's transpile functions, read from its script by catching what it registers with `workerpool.worker`. */
function loadTranspilers(requireFromCompiler: NodeJS.Require, workerpool: WorkerpoolModule, script: string): Record<string, Transpile> {
  let registered: Record<string, Transpile> | undefined;
  const register = workerpool.worker;
  workerpool.worker = (methods) => {
    registered = methods;
  };
  try {
    requireFromCompiler(script);
  } finally {
    workerpool.worker = register;
  }
  if (!registered) throw new Error(`the emulator's engine could not read Cube's transpilers from ${script}`);
  return registered;
}

/** The error and warning lists of the script's one reporter, which every answer hands back as they are. */
interface ReporterLists {
  errors: unknown[];
  warnings: unknown[];
}

/** The reporter's lists, read from the answer to a file with nothing in it. */
function reporterLists(fns: Record<string, Transpile>): ReporterLists {
  const answer = fns.transpileJs!({ fileName: 'empty.js', content: '', transpilers: [], cubeNames: [], cubeSymbols: {} });
  return { errors: answer.errors, warnings: answer.warnings };
}

/**
 * One call of a transpile function. The script keeps one error reporter for the life of its thread: what
 * it reported is copied out, then its lists are emptied (also when the call throws), so that no file's
 * errors reach another compile (a thread of its own per compile gave Cube the same isolation).
 */
function callOnce(fn: Transpile, lists: ReporterLists, data: unknown): Record<string, unknown> {
  try {
    const answer = fn(data);
    return { ...answer, errors: [...answer.errors], warnings: [...answer.warnings] };
  } finally {
    lists.errors.length = 0;
    lists.warnings.length = 0;
  }
}

/** Answers kept by their call (function and input): a file transpiled again with the same input gets its answer again, errors included. */
const answers = new Map<string, Record<string, unknown>>();
const ANSWERS_KEPT = 1_000;
/** How many calls were answered by transpiling, and how many from `answers`. */
export const transpileCounts = { transpiled: 0, kept: 0 };

/**
 * One call, answered from `answers` when the same function had the same input (a copy each time: the
 * compiler may change what it gets). A transpile is a function of its input alone (the file, its name,
 * the cube names and symbols: callOnce empties what it shares), and most compiles of a process repeat
 * files another compile read: Cube's transpilers were a tenth of the test suite's CPU.
 */
function callKept(method: string, fn: Transpile, lists: ReporterLists, data: unknown): Record<string, unknown> {
  let key: string;
  try {
    key = `${method}\0${JSON.stringify(data)}`;
  } catch {
    return callOnce(fn, lists, data);
  }
  const kept = answers.get(key);
  if (kept) {
    transpileCounts.kept++;
    return structuredClone(kept);
  }
  const answer = callOnce(fn, lists, data);
  transpileCounts.transpiled++;
  try {
    answers.set(key, structuredClone(answer));
    if (answers.size > ANSWERS_KEPT) answers.delete(answers.keys().next().value as string);
  } catch {
    // An answer no thread could have sent (not cloneable) is not kept: the next call transpiles again.
  }
  return answer;
}

/**
 * A transpile's failure as it reaches the compiler from Cube's thread: turned into JSON in the thread (its
 * own properties only, or its `toJSON`) and made an `Error` again (so a Babel `SyntaxError` arrives named
 * `Error`, and the compiler reports its bare message, as it does with a thread).
 */
function transported(thrown: unknown): Error {
  const names = thrown !== null && typeof thrown === 'object' ? Object.getOwnPropertyNames(thrown) : undefined;
  const hasToJson = typeof (thrown as { toJSON?: unknown } | null)?.toJSON === 'function';
  const plain = JSON.parse(JSON.stringify(thrown, hasToJson ? undefined : names) ?? 'null') as unknown;
  return Object.assign(new Error(''), plain);
}

/** Make the compiler resolved beside `compilerEntry` transpile in this thread (once per process). */
export function transpileInProcess(compilerEntry: string): void {
  if (threadPool) return;
  const requireFromCompiler = createRequire(compilerEntry);
  const workerpool = requireFromCompiler('workerpool') as WorkerpoolModule;
  threadPool = workerpool.pool.bind(workerpool);
  const loaded = new Map<string, { fns: Record<string, Transpile>; lists: ReporterLists }>();
  workerpool.pool = (script, options) => {
    if (inThread || !TRANSPILER_SCRIPT.test(script)) return threadPool!(script, options);
    let transpilers = loaded.get(script);
    if (!transpilers) {
      const fns = loadTranspilers(requireFromCompiler, workerpool, script);
      loaded.set(script, (transpilers = { fns, lists: reporterLists(fns) }));
    }
    const { fns, lists } = transpilers;
    return {
      exec: (method, params) => {
        const fn = fns[method];
        if (!fn) return Promise.reject(new Error(`Cube's transpiler script has no ${method}`));
        try {
          return Promise.resolve(callKept(method, fn, lists, params[0]));
        } catch (e) {
          return Promise.reject(transported(e));
        }
      },
      terminate: () => Promise.resolve(),
    };
  };
}

/** Use Cube's own transpiler thread again (or not): the test that holds the two paths equal. */
export function useTranspilerThread(on: boolean): void {
  inThread = on;
}
