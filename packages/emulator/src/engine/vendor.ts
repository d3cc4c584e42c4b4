/**
 * Cube's schema compiler, loaded on first use (loading it costs about 0.6 s), and the few internals
 * of the compiler the engine touches, typed narrowly (PGlite is loaded by its own thread: database.ts).
 * The method names below are internal to `@cubejs-backend/schema-compiler` 1.7.43: the version is
 * pinned exactly in package.json, and test/emulator-engine.test.ts fails if one of them disappears.
 */
import { createRequire } from 'node:module';
import type { Compiler } from '@cubejs-backend/schema-compiler';
import { transpileInProcess } from './transpiler.js';

export type CompilerModule = typeof import('@cubejs-backend/schema-compiler');

/** What `prepareCompiler` returns: the compiler, the meta transformer and the evaluators. */
export type CubeCompilers = Compiler;

/** A model file as the compiler reads it: its path under the model root and its text. */
export interface CompilerFile {
  fileName: string;
  content: string;
}

/** One error the compiler collected. */
export interface ReportedError {
  message: string;
  plainMessage?: string;
  fileName?: string | null;
}

/** The compiler's error reporter (one per compile). */
export interface Reporter {
  error(e: unknown, fileName?: string | null, lineNumber?: number, position?: number): void;
  getErrors(): ReportedError[];
}

/** A cube or view as the first compile phase hands it to the name compilers. */
export interface NamedDefinition {
  name: string;
  fileName: string;
}

/** The internals of `DataSchemaCompiler` the engine reads or wraps, on one instance only. */
export interface CompilerInternals {
  compile(): Promise<unknown>;
  errorReportOptions: { logger: (...args: unknown[]) => void } | undefined;
  errorsReporter: Reporter | undefined;
  workerPool: { terminate(force?: boolean): Promise<unknown> } | null;
  cubeNameCompilers: { compile(defs: NamedDefinition[], reporter: Reporter): void }[];
  transpileFile(file: CompilerFile, reporter: Reporter, options: unknown): Promise<unknown>;
  transpileJsFile(file: CompilerFile, reporter: Reporter, options: unknown): Promise<unknown>;
  compileJsFile(file: CompilerFile, reporter: Reporter, options?: unknown): void;
  compileObjects(services: unknown[], objects: unknown, reporter: Reporter): Promise<unknown>;
  withQuery<T>(query: unknown, fn: () => T): T;
}

/** The methods above, checked at run time before the first compile. */
export const INTERNAL_METHODS = ['compile', 'transpileFile', 'transpileJsFile', 'compileJsFile', 'compileObjects', 'withQuery'] as const;

export function internals(compilers: CubeCompilers): CompilerInternals {
  return compilers.compiler as unknown as CompilerInternals;
}

// Loaded with require, not import(): the bin and the scripts run under Vite's module runner, which
// is closed once the entry module has loaded, so a later dynamic import() would fail there.
const requireVendor = createRequire(import.meta.url);

/** The schema compiler, loaded once; its environment set first (no native module, transpiled in this thread). */
export function loadCompiler(): CompilerModule {
  // The compiler reads these on every compile; its native transpiler is not installable here.
  process.env.CUBEJS_TRANSPILATION_NATIVE ??= 'false';
  process.env.CUBEJS_TRANSPILATION_WORKER_THREADS_COUNT ??= '1';
  transpileInProcess(requireVendor.resolve('@cubejs-backend/schema-compiler'));
  return requireVendor('@cubejs-backend/schema-compiler') as CompilerModule;
}
