/**
 * Cube's compiler as Cube runs it, the reference the emulator's engine must equal: the whole model
 * compiled at once through `prepareCompiler`, none of its steps wrapped. Its answer is what the compile
 * throws: the report of every error (`CompileError`), or the one error that ended it (a file Cube
 * cannot transpile). Cube names the file of few errors itself; what it knows after the compile names
 * some more, and only that is used here:
 * - the file the reporter was given;
 * - an error that ended the compile: the file Cube's own YAML compiler rejects with that message, with
 *   the parser's line for a YAML syntax error (`cubes/users.yml:32`, docs/api-assumptions.md);
 * - `<name> cube: …`: the file of the definition the compiler keeps under that name.
 * Any other error's file is left unknown (`undefined`); the parity test checks those against the
 * corpus's hand-marked files instead. Its transpilers run in this thread, as the engine's do
 * (test/emulator-engine.test.ts holds that equal to Cube's own transpiler thread).
 */
import { encodeFile } from '../../packages/emulator/src/build/trees.js';
import { compileTree } from '../../packages/emulator/src/engine/model.js';
import { loadCompiler, type CompilerFile } from '../../packages/emulator/src/engine/vendor.js';
import type { BrokenModel } from './broken-models.js';

export interface ReferenceError {
  /** The file as the compiler names it (relative to the model folder); null when it names none; undefined when unknown. */
  fileName: string | null | undefined;
  message: string;
}

interface Definition {
  fileName?: string;
}

/** The compiler objects this file reads after a compile (internal to 1.7.43, like the engine's). */
interface ReferenceCompilers {
  compiler: {
    compile(): Promise<unknown>;
    errorReportOptions?: unknown;
    errorsReporter?: { getErrors(): { message: string; fileName?: string | null }[] };
    workerPool?: { terminate(): Promise<unknown> } | null;
    yamlCompiler: { transpileYamlFile(file: CompilerFile, reporter: unknown): unknown };
  };
  cubeEvaluator: { cubeDefinitions?: Record<string, Definition> };
}

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

/** A reporter that keeps nothing: the YAML compiler is asked only whether a file throws. */
const silentReporter = {
  error: () => undefined,
  warning: () => undefined,
  syntaxError: () => undefined,
  inContext() {
    return silentReporter;
  },
};

/** The file (with the parser's line for a YAML syntax error) that Cube's YAML compiler rejects with `message`. */
function rejectingFile(compilers: ReferenceCompilers, files: CompilerFile[], thrown: unknown): string | null {
  const message = plain(String((thrown as Error)?.message ?? thrown));
  for (const file of files.filter((f) => /\.ya?ml$/.test(f.fileName))) {
    try {
      compilers.compiler.yamlCompiler.transpileYamlFile({ ...file }, silentReporter);
    } catch (e) {
      if (plain(String((e as Error)?.message ?? e)) !== message) continue;
      const line = (e as Error)?.name === 'YAMLException' ? /\((\d+):\d+\)\s*(?:\n|$)/.exec(message)?.[1] : undefined;
      return line ? `${file.fileName}:${line}` : file.fileName;
    }
  }
  return null;
}

/** Compile `files` (paths relative to the model folder) once, as Cube does; errors in its order. */
export async function referenceCompile(files: CompilerFile[]): Promise<ReferenceError[]> {
  const { prepareCompiler } = loadCompiler();
  const refuse = () => {
    throw new Error('no templates in the corpus');
  };
  const repository = { localPath: () => '/reference-model', dataSchemaFiles: () => Promise.resolve(files.map((f) => ({ ...f }))) };
  const nativeInstance = { newJinjaEngine: () => ({ loadTemplate: refuse, renderTemplate: refuse }), loadPythonContext: refuse };
  const compilers = prepareCompiler(repository, {
    allowNodeRequire: false,
    nativeInstance: nativeInstance as never,
    compileContext: {},
  }) as unknown as ReferenceCompilers;
  compilers.compiler.errorReportOptions = { logger: () => undefined };
  let thrown: unknown;
  try {
    await compilers.compiler.compile();
  } catch (e) {
    thrown = e;
  } finally {
    await compilers.compiler.workerPool?.terminate();
  }
  if (thrown === undefined) return [];
  if ((thrown as { constructor?: { name?: string } })?.constructor?.name !== 'CompileError') {
    return [{ fileName: rejectingFile(compilers, files, thrown), message: plain(String((thrown as Error)?.message ?? thrown)) }];
  }
  const definitions = compilers.cubeEvaluator.cubeDefinitions ?? {};
  return (compilers.compiler.errorsReporter?.getErrors() ?? []).map((e) => {
    const message = plain(e.message);
    if (e.fileName) return { fileName: e.fileName, message };
    const named = /^(\S+) cube(?: -> [^:\n]*)?: /.exec(message)?.[1];
    return { fileName: named ? definitions[named]?.fileName : undefined, message };
  });
}

/** One model of the corpus compiled both ways: the emulator's list, and the list it must equal. */
export interface Parity {
  model: BrokenModel;
  emulator: { fileName: string | null; message: string }[];
  expected: { fileName: string | null; message: string }[];
  equal: boolean;
}

/**
 * Compile a model by the emulator's engine and by Cube's compiler. The expected file of each error is
 * Cube's where it tells (`model/` prefixed, as the emulator names files in the repository), else the
 * corpus's hand-marked one (`reported`, else `file`).
 */
export async function compareWithCompiler(model: BrokenModel): Promise<Parity> {
  const tree: Record<string, string> = {};
  for (const [path, text] of model.files) tree[path] = encodeFile(text);
  const emulator = (await compileTree(tree)).errors;
  const reference = await referenceCompile([...model.files].map(([path, content]) => ({ fileName: path.replace(/^model\//, ''), content })));
  const expected = reference.map((r, i) => {
    const marked = model.intended[i];
    const fileName =
      r.fileName !== undefined
        ? r.fileName === null
          ? null
          : `model/${r.fileName}`
        : marked?.reported !== undefined
          ? marked.reported
          : (marked?.file ?? null);
    return { fileName, message: r.message };
  });
  const equal = emulator.length === expected.length && emulator.every((e, i) => e.message === expected[i]!.message && e.fileName === expected[i]!.fileName);
  return { model, emulator, expected, equal };
}
