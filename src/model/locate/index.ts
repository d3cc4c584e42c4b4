/**
 * The error locator: where in the repository's own model files a compiler error belongs. Pure: the
 * files come in as text keyed by repository path under model-dir. When unsure it says less (the
 * cube's line, then the file alone), never a wrong line.
 */
import { swallowingTemplateStart } from './js-model.js';
import { contextPrefix, mistakeClaim, positionHint, referenceOf, stripAnsi, validatorClaims, type Reference } from './message.js';
import { foldEchoes } from './echoes.js';
import { extendsCycle, joinError } from './joins.js';
import { cleanPath, ModelSet, resolveFileName, splitLineSuffix, type ModelTexts } from './model-set.js';
import { keyEntries, resolvePath, type Entry, type ErrorLocation, type ModelFile, type Pos, type Precision } from './model-tree.js';
import { findReference, findThrownLiteral } from './references.js';
import { structureError, yamlStructureError } from './structure.js';
import { folderError, includeError } from './views.js';
import { swallowingQuoteStart, unclosedYamlStart } from './yaml-model.js';

export type { ErrorLocation, Precision } from './model-tree.js';
export type { ModelTexts } from './model-set.js';

/** One error of the platform's validation answer. */
export interface CompilerError {
  fileName?: string | null;
  message: string;
}

/** A locator over one set of files (each parsed once, on first use). */
export function createLocator(texts: ModelTexts): (error: CompilerError) => ErrorLocation {
  const files = new ModelSet(texts);
  return (error) => locate(error, files);
}

export function locateError(error: CompilerError, texts: ModelTexts): ErrorLocation {
  return createLocator(texts)(error);
}

/** An error's place, and the root cause it echoes (its index among the errors) when it is an echo. */
export interface Placed {
  at: ErrorLocation;
  echoOf?: number;
}

/** Place every error of one validation and fold its echoes under their root causes (./echoes.ts). */
export function placeErrors(errors: readonly CompilerError[], texts: ModelTexts): Placed[] {
  const files = new ModelSet(texts);
  const located = errors.map((e) => locate(e, files));
  const echoOf = foldEchoes(
    errors.map((e) => e.message),
    located,
    files,
  );
  return located.map((at, i) => (echoOf[i] === undefined ? { at } : { at, echoOf: echoOf[i] }));
}

const at = (file: ModelFile, pos: Pos, precision: Precision): ErrorLocation => ({ file: file.path, line: pos.line, column: pos.column, precision });

function locate(error: CompilerError, files: ModelSet): ErrorLocation {
  const message = stripAnsi(error.message);
  // Cube names a YAML syntax error's file with the parser's line: `model/cubes/users.yml:32`.
  const named = error.fileName ? splitLineSuffix(error.fileName) : undefined;
  const key = named ? resolveFileName(named.name, files.paths) : undefined;
  // A file that is not in the checkout gets no line: there is nothing to check one against.
  if (named && !key) return { file: cleanPath(named.name), precision: 'file' };
  let file = key ? files.file(key) : undefined;
  if (!error.fileName && message.split('\n', 1)[0] === 'Maximum call stack size exceeded') {
    const cycle = extendsCycle(files);
    if (cycle) return cycle;
  }
  const { entity: entityName, rest } = contextPrefix(message);
  // A syntax error without a file name: the one file the parsers reject.
  if (!error.fileName && positionHint(message, 'other')) {
    const unparsable = files.models().filter((f) => f.unparsable);
    if (unparsable.length === 1) file = unparsable[0];
  }

  if (file) {
    const position = syntaxPosition(file, message, named?.line);
    if (position) return position;
  }

  // The platform's file name wins; without one, the file that defines the named cube.
  const candidates = entityName ? files.entitiesNamed(entityName, file) : [];
  // Only views include members: a cube and a view of one name are told apart by that.
  const found = (/\binclude/.test(rest) ? candidates.find((c) => c.entity.kind === 'view') : undefined) ?? candidates[0];
  file ??= found?.file;
  const entity = found?.entity;

  const structural =
    structureError(rest, files, file, entity) ??
    includeError(rest, files, file, entity) ??
    folderError(rest, files, file) ??
    joinError(rest, files, file, entity);
  if (structural) return structural;
  if (!file) {
    // No file named: a YAML structure error or a thrown message found in exactly one file.
    const places = files.models().flatMap((f) => {
      const thrown = findThrownLiteral(f, message);
      return [yamlStructureError(rest, f) ?? (thrown ? at(f, thrown, 'exact') : undefined)].filter((x) => !!x);
    });
    if (places.length === 1) return places[0] as ErrorLocation;
  }

  if (entity && file) {
    const claim = mistakeClaim(validatorClaims(rest));
    if (claim) {
      const r = resolvePath(entity.body, entity.start, claim.path);
      if (r.depth > 0) return at(file, r.at, r.complete ? 'exact' : 'member');
      // A key the validator names without its path (`"memberMasking" missing required peer`): its one place.
      const anywhere = typeof claim.path.at(-1) === 'string' ? keyEntries(entity.body, claim.path.at(-1) as string) : [];
      if (anywhere.length === 1) return at(file, (anywhere[0] as Entry).at, 'exact');
      // A JS cube's `name` is the call's first argument, not a key.
      if (claim.path[0] === 'name') return at(file, entity.nameAt, 'exact');
      return at(file, entity.start, 'cube');
    }
  }

  const ref = referenceOf(rest, entityName);
  if (ref) {
    const named = ref.path && entity && file ? resolvePath(entity.body, entity.start, ref.path) : undefined;
    if (named?.complete && file) return at(file, named.at, 'exact');
    const hit = referenceHit(files, ref, file);
    if (hit) return hit;
  }

  if (file) {
    const thrown = findThrownLiteral(file, message);
    if (thrown) return at(file, thrown, 'exact');
  }
  if (entity && file) return at(file, entity.start, 'cube');
  return file ? { file: file.path, precision: 'file' } : { precision: 'none' };
}

/** `(line:col)` or a code frame (else the line of the file name), checked against the file and refined where the parser reports too late. */
function syntaxPosition(file: ModelFile, message: string, fileLine?: number): ErrorLocation | undefined {
  const hint =
    positionHint(message, file.language) ?? (fileLine ? { line: fileLine, columnBase: 1 as const, reason: message.split('\n', 1)[0] ?? '' } : undefined);
  if (!hint || hint.line < 1 || hint.line > file.lines.length) return undefined;
  const text = file.lines.join('\n');
  if (file.language === 'yaml') {
    // js-yaml reports an unclosed quote or flow collection at the end of the stream.
    const unclosed = /end of the stream within a (?:double|single) quoted scalar/.test(hint.reason)
      ? 'quoted'
      : /end of the stream within a flow collection/.test(hint.reason)
        ? 'flow'
        : undefined;
    const start = unclosed ? unclosedYamlStart(text, unclosed) : swallowingQuoteStart(text, hint.line);
    if (start) return at(file, start, 'exact');
  }
  const lineText = file.lines[hint.line - 1] ?? '';
  const column = hint.column === undefined ? undefined : Math.min(hint.column + (hint.columnBase === 0 ? 1 : 0), lineText.length + 1);
  if (file.language === 'js' && column !== undefined) {
    const offset = file.lines.slice(0, hint.line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1;
    const start = swallowingTemplateStart(text, offset);
    if (start) return at(file, start, 'exact');
  }
  return { file: file.path, line: hint.line, ...(column !== undefined ? { column } : {}), precision: 'exact' };
}

/** The line that writes the reference: in the named entity or folder, else the platform's file, else the one file that has it. */
function referenceHit(files: ModelSet, ref: Reference, file: ModelFile | undefined): ErrorLocation | undefined {
  const scopes: { file: ModelFile; from: number; to: number }[] = [];
  for (const f of file ? [file] : files.models()) {
    if (ref.folder) {
      for (const e of f.entities) {
        const r = resolvePath(e.body, e.start, ['folders', ref.folder]);
        if (r.complete) scopes.push({ file: f, from: r.node.start.line, to: r.node.endLine });
      }
    } else if (ref.entity && f.entities.some((e) => e.name === ref.entity)) {
      for (const e of f.entities.filter((x) => x.name === ref.entity)) scopes.push({ file: f, from: e.start.line, to: e.endLine });
    } else if (file || !ref.entity) scopes.push({ file: f, from: 1, to: f.lines.length });
  }
  const hits = scopes.flatMap((s) => findReference(s.file, ref, s.from, s.to).map((h) => ({ ...h, file: s.file })));
  const best = Math.max(0, ...hits.map((h) => h.score));
  const top = hits.filter((h) => h.score === best);
  const chosen = ref.last ? top.at(-1) : top[0];
  // Without a file name, a reference found in several files is no evidence for any one of them.
  if (!chosen || (!file && new Set(top.map((h) => h.file.path)).size > 1)) return undefined;
  return at(chosen.file, chosen.at, 'exact');
}
