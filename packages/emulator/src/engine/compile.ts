/**
 * One compile of a data model by Cube's own compiler, without its native module: Jinja and Python
 * are refused up front (they need it), every error comes back with the compiler's own message and,
 * where it can be told, its file. A valid model keeps the compiler's objects for /meta and SQL.
 */
import { attributeErrors, type CubePreparer } from './attribution.js';
import { INTERNAL_METHODS, internals, loadCompiler, type CompilerFile, type CubeCompilers } from './vendor.js';

/** An error of a compile: the compiler's message, and the file (as the compiler names it) when known. */
export interface ModelError {
  fileName: string | null;
  message: string;
}

export interface Compilation {
  valid: boolean;
  errors: ModelError[];
  /** The compiler's objects (meta transformer, evaluators): valid models only. */
  compilers?: CubeCompilers;
  /** What the compile threw, as the data API reports it (`Error: Compile errors: …`). */
  failure?: string;
  /** Wall time of the compile. */
  ms: number;
}

/** What a file that needs Jinja or Python gets instead of a compile. */
export const TEMPLATES_REFUSED =
  'The emulator cannot compile Jinja or Python templates (Cube needs its native module for them, which is not available here): this file was not checked';

/** The compiler's own test for a YAML file that goes through Jinja first. */
const JINJA_SYNTAX = /{%|%}|{{|}}/;

/** A file Cube would hand to its native module: `.jinja`, YAML with Jinja syntax, `globals.py` at the root. */
export function needsTemplates(file: CompilerFile): boolean {
  const n = file.fileName;
  return n.endsWith('.jinja') || n === 'globals.py' || (/\.ya?ml$/.test(n) && JINJA_SYNTAX.test(file.content));
}

/** Thrown by the native stand-in, should a template reach the compiler after all. */
class TemplatesRefused extends Error {
  constructor(readonly fileName: string) {
    super(TEMPLATES_REFUSED);
  }
}

/** The compiler calls this in place of its native module: a Jinja engine on every compile, Python for `globals.py`. */
export function nativeStandIn() {
  const refuse = (fileName: string): never => {
    throw new TemplatesRefused(fileName);
  };
  return {
    newJinjaEngine: () => ({ loadTemplate: refuse, renderTemplate: refuse }),
    loadPythonContext: refuse,
  };
}

// Babel's code frames are coloured when FORCE_COLOR is set (as some CI runners and test tools do).
// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

/** What a compile threw, as an Error (model code may throw anything, from a context of its own). */
function asError(thrown: unknown): Error {
  if (typeof thrown === 'object' && thrown !== null && typeof (thrown as Error).message === 'string') return thrown as Error;
  return new Error(typeof thrown === 'string' ? thrown : JSON.stringify(thrown));
}

/** A compile that threw something else than the report of its errors (`CompileError`, not exported by Cube). */
const aborted = (thrown: unknown) => thrown !== undefined && thrown?.constructor?.name !== 'CompileError';

/**
 * The file of an error that ended the compile. A YAML syntax error's file carries the parser's line,
 * `cubes/users.yml:32`, as Cube's answer does (docs/api-assumptions.md).
 */
function thrownFile(thrown: unknown, file: string | undefined): string | null {
  if (thrown instanceof TemplatesRefused) return thrown.fileName;
  if (!file) return null;
  const yaml = (thrown as { name?: unknown } | null)?.name === 'YAMLException' ? /\((\d+):\d+\)\s*(?:\n|$)/.exec(asError(thrown).message) : null;
  return yaml ? `${file}:${yaml[1]}` : file;
}

let checked = false;

/** Fail clearly, once, if the compiler lacks an internal method the engine wraps (a different version). */
function checkInternals(compilers: CubeCompilers): void {
  if (checked) return;
  const c = internals(compilers) as unknown as Record<string, unknown>;
  const missing = [...INTERNAL_METHODS, 'cubeNameCompilers'].filter((m) => c[m] === undefined);
  if (missing.length) {
    throw new Error(`the emulator's engine needs @cubejs-backend/schema-compiler 1.7.43: its compiler has no ${missing.join(', ')}`);
  }
  checked = true;
}

/** Compile `files` (paths relative to the model root) once, with a compiler of its own. */
export async function compileFiles(files: CompilerFile[]): Promise<Compilation> {
  const started = performance.now();
  const templated = files.filter(needsTemplates);
  if (templated.length) {
    const errors = templated.map((f) => ({ fileName: f.fileName, message: TEMPLATES_REFUSED }));
    return { valid: false, errors, ms: performance.now() - started };
  }
  const { prepareCompiler } = loadCompiler();
  const input = files.map((f) => ({ ...f }));
  const repository = { localPath: () => '/emulated-model', dataSchemaFiles: () => Promise.resolve(input.map((f) => ({ ...f }))) };
  // A compiler compiles once (compile() keeps its first promise): one per compile.
  const compilers = prepareCompiler(repository, { allowNodeRequire: false, nativeInstance: nativeStandIn() as never, compileContext: {} });
  checkInternals(compilers);
  const compiler = internals(compilers);
  // Warnings would go to console.log.
  compiler.errorReportOptions = { logger: () => undefined };
  const attribution = attributeErrors(compiler, compilers.cubeEvaluator as unknown as CubePreparer, new Set(input.map((f) => f.fileName)));

  let thrown: unknown;
  try {
    await compiler.compile();
  } catch (e) {
    thrown = e;
  } finally {
    // On a failed compile the compiler leaves its transpiler pool open (a thread, with useTranspilerThread).
    await compiler.workerPool?.terminate();
  }
  // Cube ends a compile that throws (a file it cannot transpile) with that one error; else it throws what it reported.
  const errors = aborted(thrown)
    ? [{ fileName: thrownFile(thrown, attribution.thrownIn(thrown)), message: stripAnsi(asError(thrown).message) }]
    : (compiler.errorsReporter?.getErrors() ?? []).map((e) => ({ fileName: attribution.fileOf(e), message: stripAnsi(e.message) }));
  const ms = performance.now() - started;
  if (thrown === undefined && errors.length === 0) return { valid: true, errors, compilers, ms };
  const failure = thrown === undefined ? `Error: Compile errors:\n${errors.map((e) => e.message).join('\n')}` : asError(thrown).toString();
  return { valid: false, errors, failure: stripAnsi(failure), ms };
}
