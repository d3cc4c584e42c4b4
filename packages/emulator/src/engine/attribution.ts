/**
 * Which model file an error of Cube's compiler belongs to. Without its native transpiler the compiler
 * names the file of almost no error (only its native path tells the reporter which file it is in), so
 * a few of its steps are wrapped, on one compiler instance and nowhere else, to hand them a view of the
 * reporter that fills the file in:
 * - transpiling a file (YAML to JS, JS to JS) and running it: that file;
 * - the steps over all cubes (validation, evaluation, joins, meta): the file in the error's stack, as
 *   each file runs as a script named after it;
 * - preparing one cube or view (its folders, hierarchies, access policy): that definition's file;
 * - what is left: the cube or view a message starts with (`orders cube: …`) or quotes, mapped to the
 *   file that defines it.
 * The messages themselves are never changed. A file whose transpiling throws (a YAML syntax error) ends
 * the compile, as it does in Cube: the error is remembered with its file.
 */
import type { CompilerFile, CompilerInternals, NamedDefinition, Reporter, ReportedError } from './vendor.js';

/** A reporter whose `error()` uses `pick` to name the file when the caller named none. */
function reporterView(reporter: Reporter, pick: (e: unknown) => string | undefined): Reporter {
  const view = Object.create(reporter) as Reporter;
  view.error = (e, fileName, line, position) => reporter.error(e, fileName || pick(e), line, position);
  return view;
}

/** A stack frame `(file:line:col)` or `at file:line:col` naming one of the model's files. */
function fileInStack(e: unknown, fileNames: ReadonlySet<string>): string | undefined {
  // Not `instanceof Error`: model files run in a context of their own, with its own Error class.
  const stack = (e as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  for (const m of stack.matchAll(/(?:\(|at )([^()\s]+):\d+:\d+\)?/g)) {
    if (fileNames.has(m[1] as string)) return m[1];
  }
  return undefined;
}

/** `orders cube: …`, `orders cube -> created_at: …`, `g view group: …` (views are called "cube" too). */
const CONTEXT_PREFIX = /^(\S+) (?:cube|view group)(?: -> [^:]*)?: /;
/** Messages without that prefix that still quote the cube or view they are about. */
const NAMED_IN_MESSAGE = [
  /^Found duplicate (?:cube|view|view group) name '([^']+)'/,
  /^Found conflicting cube and view name '([^']+)'/,
  /^View '([^']+)' defines own member/,
  /^Member '([^'.]+)\.[^']+' references foreign cubes/,
  /^Cube '([^']+)' declares \d+ joins/,
];

export interface Attribution {
  /** The file an error belongs to, by the reporter or by the cube its message names; null when neither tells. */
  fileOf(error: ReportedError): string | null;
  /** The file whose transpiling threw `thrown` (and so ended the compile), if it was one. */
  thrownIn(thrown: unknown): string | undefined;
}

/** A cube or view as the evaluator prepares it: Cube sets `fileName` when the file defining it runs. */
interface PreparedDefinition {
  fileName?: string;
}

/** The evaluator's step over one valid cube or view (folders, hierarchies, access policy, view filters). */
export interface CubePreparer {
  prepareCube(cube: PreparedDefinition, reporter: Reporter): unknown;
}

/**
 * Install the hooks on `compiler` and its `evaluator` before the compile; `fileNames` are the files it
 * compiles. A file whose transpiling throws (a YAML syntax error is thrown, not reported) ends the whole
 * compile, as in Cube; the error keeps the file it came from.
 */
export function attributeErrors(compiler: CompilerInternals, evaluator: CubePreparer, fileNames: ReadonlySet<string>): Attribution {
  const definedIn = new Map<string, string>();
  compiler.cubeNameCompilers.push({
    compile(defs: NamedDefinition[]) {
      // A duplicate keeps the last definition seen: the duplicate itself.
      for (const d of defs) definedIn.set(d.name, d.fileName);
    },
  });

  const thrownBy = new WeakMap<object, string>();
  const transpileFile = compiler.transpileFile.bind(compiler);
  compiler.transpileFile = async (file: CompilerFile, reporter: Reporter, options: unknown) => {
    try {
      return await transpileFile(
        file,
        reporterView(reporter, () => file.fileName),
        options,
      );
    } catch (e) {
      if (typeof e === 'object' && e !== null && !thrownBy.has(e)) thrownBy.set(e, file.fileName);
      throw e;
    }
  };
  const transpileJsFile = compiler.transpileJsFile.bind(compiler);
  compiler.transpileJsFile = (file, reporter, options) =>
    transpileJsFile(
      file,
      reporterView(reporter, () => file.fileName),
      options,
    );
  const compileJsFile = compiler.compileJsFile.bind(compiler);
  compiler.compileJsFile = (file, reporter, options) =>
    compileJsFile(
      file,
      reporterView(reporter, () => file.fileName),
      options,
    );
  const compileObjects = compiler.compileObjects.bind(compiler);
  compiler.compileObjects = (services, objects, reporter) =>
    compileObjects(
      services,
      objects,
      reporterView(reporter, (e) => fileInStack(e, fileNames)),
    );
  const prepareCube = evaluator.prepareCube.bind(evaluator);
  // Folder, hierarchy and access-policy errors name no cube: the definition being prepared does.
  evaluator.prepareCube = (cube, reporter) =>
    prepareCube(
      cube,
      reporterView(reporter, (e) => fileInStack(e, fileNames) ?? cube.fileName),
    );

  return {
    fileOf(error) {
      if (error.fileName) return error.fileName;
      const prefix = CONTEXT_PREFIX.exec(error.message);
      if (prefix && definedIn.has(prefix[1] as string)) return definedIn.get(prefix[1] as string) as string;
      for (const re of NAMED_IN_MESSAGE) {
        const m = re.exec(error.message);
        if (m && definedIn.has(m[1] as string)) return definedIn.get(m[1] as string) as string;
      }
      return null;
    },
    thrownIn(thrown) {
      return typeof thrown === 'object' && thrown !== null ? thrownBy.get(thrown) : undefined;
    },
  };
}
