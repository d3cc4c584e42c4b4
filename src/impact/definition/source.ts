/**
 * Model files as plain values: YAML as the `yaml` package reads it, JS `cube(name, {…})` and
 * `view(name, {…})` calls through acorn, where anything that is code (a template with `${…}`, an
 * arrow function, a reference) keeps its source text. Cube's compiler is ~130 MB with its
 * dependencies, too large for the action's bundle: this reads the same files with the same rules
 * (test/definition-compiler.test.ts holds the outcome against the compiler's own view).
 */
import { parse as parseYaml } from 'yaml';
import { modelCalls, parseJs, type EsNode } from '../../model/locate/js-model.js';
import { isMap, resolveModel, type ModelDefinition, type RawMap, type Raw, type ReadModel } from '../base/model-definition.js';

/** The compiler's own test for a YAML file that goes through Jinja first. */
const TEMPLATE = /{%|%}|{{|}}/;

function readYaml(file: string, text: string, out: ReadModel): void {
  if (TEMPLATE.test(text)) return void out.skipped.push({ file, why: 'a Jinja template (its output is known only to the platform)' });
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: false });
  } catch (e) {
    return void out.skipped.push({ file, why: `not valid YAML (${(e as Error).message.split('\n')[0]})` });
  }
  if (!doc || typeof doc !== 'object') return;
  for (const [key, kind] of [
    ['cubes', 'cube'],
    ['views', 'view'],
  ] as const) {
    const list = (doc as Record<string, unknown>)[key];
    for (const item of Array.isArray(list) ? list : []) {
      const body = item as RawMap;
      if (isMap(body) && typeof body.name === 'string') out.entities.push({ kind, name: body.name, body, file });
    }
  }
}

const kids = (n: EsNode, f: string) => ((n[f] as (EsNode | null)[] | undefined) ?? []).filter((x): x is EsNode => !!x);

/** A template's text with each `${expr}` written `{expr}`, as YAML writes references. */
function templateText(n: EsNode, src: string): string {
  const quasis = kids(n, 'quasis');
  const exprs = kids(n, 'expressions');
  let out = '';
  quasis.forEach((q, i) => {
    out += (q.value as { cooked?: string; raw: string }).cooked ?? (q.value as { raw: string }).raw;
    const e = exprs[i];
    if (e) out += `{${src.slice(e.start, e.end)}}`;
  });
  return out;
}

/** An ESTree expression as a plain value; code stays source text. */
function valueOf(n: EsNode, src: string): Raw {
  switch (n.type) {
    case 'Literal':
      return typeof n.value === 'string' || typeof n.value === 'number' || typeof n.value === 'boolean' || n.value === null
        ? n.value
        : { code: src.slice(n.start, n.end) };
    case 'TemplateLiteral':
      return templateText(n, src);
    case 'ArrayExpression':
      return kids(n, 'elements').map((e) => valueOf(e, src));
    case 'ObjectExpression': {
      const out: RawMap = {};
      for (const p of kids(n, 'properties')) {
        if (p.type !== 'Property' || p.computed) continue;
        const key = p.key as EsNode;
        const name = key.type === 'Identifier' ? (key.name as string) : key.type === 'Literal' ? String(key.value) : undefined;
        if (name !== undefined) out[name] = valueOf(p.value as EsNode, src);
      }
      return out;
    }
    case 'ArrowFunctionExpression':
    case 'FunctionExpression': {
      // `sql: () => \`…\`` reads as its template, as the compiler's transpiler makes of `sql: \`…\``.
      const body = n.body as EsNode;
      if (body.type !== 'BlockStatement') return valueOf(body, src);
      const ret = kids(body, 'body');
      const only = ret.length === 1 && ret[0]?.type === 'ReturnStatement' ? (ret[0].argument as EsNode | null) : null;
      return only ? valueOf(only, src) : { code: src.slice(n.start, n.end) };
    }
    case 'Identifier':
      // `extends: orders` names a cube; other identifiers are references kept as text.
      return { code: n.name as string };
    default:
      return { code: src.slice(n.start, n.end) };
  }
}

function readJs(file: string, text: string, out: ReadModel): void {
  const program = parseJs(text);
  if (!program) return void out.skipped.push({ file, why: 'not valid JavaScript' });
  for (const { kind, nameArg, bodyArg } of modelCalls(program)) {
    const name = valueOf(nameArg, text);
    if (typeof name !== 'string' || name.includes('{')) {
      out.skipped.push({ file, why: `a ${kind} whose name is computed (${src(nameArg, text)})` });
      continue;
    }
    const body = bodyArg ? valueOf(bodyArg, text) : {};
    out.entities.push({ kind, name, body: isMap(body) ? body : {}, file });
  }
}

const src = (n: EsNode, text: string) => text.slice(n.start, Math.min(n.end, n.start + 60));

/** The model files (paths under the model folder): every cube and view they define. */
export function readModelFiles(files: ReadonlyMap<string, string>): ReadModel {
  const out: ReadModel = { entities: [], skipped: [] };
  for (const [file, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (/\.ya?ml$/i.test(file)) readYaml(file, text, out);
    else if (/\.js$/i.test(file)) readJs(file, text, out);
    else if (/\.(jinja|py)$/i.test(file)) out.skipped.push({ file, why: 'a Jinja or Python file (its output is known only to the platform)' });
  }
  return out;
}

/** Definitions already read, by the files' map: the whole-layer read and the definition diff read one side once. */
const read = new WeakMap<ReadonlyMap<string, string>, ModelDefinition>();

/** Read and resolve the model files (paths under the model folder); the same map gives the same definition. */
export function modelDefinition(files: ReadonlyMap<string, string>): ModelDefinition {
  const known = read.get(files);
  if (known) return known;
  const def = resolveModel(readModelFiles(files));
  read.set(files, def);
  return def;
}
