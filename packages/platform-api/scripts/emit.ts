/**
 * Emit the generated contract: `schemas.ts` (every component the operations reach, in the mode
 * they are used in, dependencies first), `endpoints.ts` (the endpoint table keyed by operationId)
 * and `areas.ts` (the client's area tables and `routeTable`, from the overlay's metadata).
 */
import type { OperationMeta, Overlay } from './overlay.js';
import { call, literal, object, seq, statement, str, type Code } from './printer.js';
import { checkRules, refName, unwrapNull, zodOf, type Ctx, type Mode, type Schema } from './translate.js';

/** The HTTP methods a path item may hold, lower-case as OpenAPI spells them. */
export const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** One operation of the patched document. */
interface Op {
  method: string;
  path: string;
  item: Schema;
  op: Schema;
  meta: OperationMeta;
}

/** Every string `$ref` under a value. */
function refsIn(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => refsIn(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.add(refName(x));
      else if (k !== 'x-mint' && k !== 'example' && k !== 'examples') refsIn(x, out);
    }
  }
  return out;
}

function operations(doc: Schema, overlay: Overlay): Op[] {
  const meta = new Map(overlay.operations.map((m) => [m.id, m]));
  if (meta.size !== overlay.operations.length) throw new Error('overlay/operations.yaml names an operation twice');
  const found: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    for (const method of METHODS) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const id = String(op.operationId);
      const m = meta.get(id);
      if (found.some((f) => f.meta.id === id)) throw new Error(`operationId ${id} is used twice`);
      if (!m) throw new Error(`operation ${id} (${method.toUpperCase()} ${path}) has no entry in overlay/operations.yaml`);
      found.push({ method: method.toUpperCase(), path, item, op, meta: m });
    }
  }
  const ids = new Set(found.map((o) => o.meta.id));
  const stale = overlay.operations.filter((m) => !ids.has(m.id)).map((m) => m.id);
  if (stale.length) throw new Error(`overlay/operations.yaml names operations the contract lacks: ${stale.join(', ')}`);
  // The overlay's order: area by area, as the client lists them.
  const order = new Map(overlay.operations.map((m, i) => [m.id, i]));
  return found.sort((a, b) => (order.get(a.meta.id) ?? 0) - (order.get(b.meta.id) ?? 0));
}

const parameters = (o: Op): Schema[] => [...((o.item.parameters as Schema[]) ?? []), ...((o.op.parameters as Schema[]) ?? [])];
const jsonBody = (o: Op): Schema | undefined => {
  const content = ((o.op.requestBody as Schema | undefined)?.content ?? {}) as Record<string, Schema>;
  return (content['application/json'] ?? content['multipart/form-data'])?.schema as Schema | undefined;
};

/** The success answer: a 204 wins (bodyless); else the lowest 2xx, by content type. */
function success(o: Op): { status: number; type: 'json' | 'csv' | 'binary' | 'empty'; schema?: Schema } {
  const responses = (o.op.responses ?? {}) as Record<string, Schema>;
  if (responses['204']) return { status: 204, type: 'empty' };
  const code = Object.keys(responses)
    .filter((c) => /^2\d\d$/.test(c))
    .sort()[0];
  if (!code) throw new Error(`${o.meta.id}: no 2xx response`);
  const content = (responses[code]?.content ?? {}) as Record<string, Schema>;
  const types = Object.keys(content);
  if (types.includes('text/csv')) return { status: Number(code), type: 'csv' };
  if (types.length && !types.includes('application/json')) return { status: Number(code), type: 'binary' };
  return { status: Number(code), type: 'json', schema: content['application/json']?.schema as Schema | undefined };
}

/** Components each mode needs, from the operations' roots (requests: parameters and bodies; responses: answers). */
function usage(doc: Schema, ops: Op[]): Record<Mode, Set<string>> {
  const schemas = (doc.components as Schema).schemas as Record<string, Schema>;
  const close = (roots: Set<string>) => {
    const seen = new Set<string>();
    const stack = [...roots];
    while (stack.length) {
      const n = stack.pop() as string;
      if (seen.has(n)) continue;
      if (!schemas[n]) throw new Error(`$ref to a missing component ${n}`);
      seen.add(n);
      stack.push(...refsIn(schemas[n]));
    }
    return seen;
  };
  const req = new Set<string>();
  const res = new Set<string>();
  for (const o of ops) {
    refsIn([parameters(o), o.op.requestBody], req);
    refsIn(o.op.responses, res);
  }
  return { request: close(req), response: close(res) };
}

export interface Emitted {
  schemas: string;
  endpoints: string;
  areas: string;
}

/** Generate the three modules from the patched document. */
export function emit(doc: Schema, overlay: Overlay, header: string): Emitted {
  const ops = operations(doc, overlay);
  const schemas = (doc.components as Schema).schemas as Record<string, Schema>;
  const used = usage(doc, ops);
  const ident = (name: string, mode: Mode) => (mode === 'request' && used.response.has(name) ? `${name}In` : name);
  const resolve = (ref: string) => {
    const s = schemas[refName(ref)];
    if (!s) throw new Error(`$ref to a missing component ${ref}`);
    return s;
  };

  // Components, dependencies first (alphabetical otherwise); a reference back into the chain being emitted is lazy.
  const done = new Set<string>();
  const active = new Set<string>();
  const out: string[] = [];
  const visit = (name: string, mode: Mode) => {
    const node = `${mode}:${name}`;
    if (done.has(node) || active.has(node)) return;
    active.add(node);
    const deps = [...refsIn(schemas[name])].sort();
    for (const d of deps) visit(d, mode);
    const ctx: Ctx = {
      mode,
      at: `components.schemas.${name}`,
      resolve,
      ref: (n) => (active.has(`${mode}:${n}`) ? call('z.lazy', `(): z.ZodType => ${ident(n, mode)}`) : ident(n, mode)),
    };
    const id = ident(name, mode);
    const decl = statement(`export const ${id} = `, zodOf(schemas[name] as Schema, ctx));
    out.push(mode === 'response' ? `${decl}\nexport type ${id} = z.infer<typeof ${id}>;` : decl);
    active.delete(node);
    done.add(node);
  };
  for (const mode of ['response', 'request'] as Mode[]) for (const name of [...used[mode]].sort()) visit(name, mode);
  const body = out.join('\n\n');
  const schemasTs = [header, "import { z } from 'zod';", primitives(body), '', body, ''].join('\n');

  const inline = (mode: Mode, at: string): Ctx => ({ mode, at, resolve, ref: (n) => `S.${ident(n, mode)}` });
  const entries = ops.map((o): [string, Code] => [o.meta.id, endpointCode(o, inline)]);
  const table = statement('export const endpoints = ', seq(object(entries), ' as const'));
  const endpointsTs = [
    header,
    "import { z } from 'zod';",
    "import { endpoint } from '../endpoint.js';",
    primitives(table),
    "import * as S from './schemas.js';",
    '',
    '/** Every operation of the contract, keyed by operationId. */',
    table,
    '',
  ].join('\n');
  return { schemas: schemasTs, endpoints: endpointsTs, areas: areasCode(ops, overlay, header) };
}

const PRIMITIVES = ['Bool', 'FileBytes', 'Int', 'Name', 'NonNegInt', 'PosInt', 'ReadDate', 'ReadInt', 'ReadNumber', 'alias', 'intBetween', 'refine', 'unwrap'];

/** The import of the hand-written primitives a generated module uses. */
function primitives(code: string): string {
  // An identifier, not a method: `refine(` counts, `.refine(` does not.
  const used = PRIMITIVES.filter((p) => new RegExp(`(?<![.\\w])${p}\\b`).test(code));
  return `import { ${used.join(', ')} } from '../primitives.js';`;
}

/** A path or query value: integers and booleans also as text, path ids positive, path strings non-empty. */
function paramCode(p: Schema, ctx: Ctx): Code {
  const { schema } = unwrapNull((p.schema ?? {}) as Schema, ctx);
  const inPath = p.in === 'path';
  let base: Code;
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum as number | undefined;
    const max = schema.maximum as number | undefined;
    if (inPath || (min === 1 && max === undefined)) base = 'PosInt';
    else if (min === 0 && max === undefined) base = 'NonNegInt';
    else if (min === undefined && max === undefined) base = 'Int';
    else base = `intBetween(${min}, ${max})`;
  } else if (schema.type === 'boolean') base = 'Bool';
  else if (inPath && schema.type === 'string' && Object.keys(schema).every((k) => k === 'type' || k === 'description')) base = 'Name';
  else base = zodOf(schema, ctx);
  if (p.required === true || inPath) return base;
  // A query value is absent or present: null has no spelling on the wire, so nullable parameters are only optional.
  return seq(base, '.optional()');
}

function endpointCode(o: Op, inline: (mode: Mode, at: string) => Ctx): Code {
  const at = `${o.meta.id}`;
  const e: [string, Code][] = [
    ['id', str(o.meta.id)],
    ['method', str(o.method)],
    ['path', str(o.path)],
    ['section', str(o.meta.section)],
    ['summary', str(o.meta.summary)],
  ];
  const params = parameters(o);
  const group = (where: string) =>
    params
      .filter((p) => p.in === where)
      .map((p): [string, Code] => {
        const name = String(p.name);
        return [name, paramCode(p, inline('request', `${at} ${where} ${name}`))];
      });
  const path = group('path');
  const query = group('query');
  if (path.length) e.push(['params', call('z.object', object(path))]);
  if (query.length) {
    let q: Code = call('z.object', object(query));
    if (o.op['x-refine'] !== undefined) {
      checkRules(o.op['x-refine'], `${at} query`);
      q = seq(q, call('.superRefine', call('refine', literal(o.op['x-refine']))));
    }
    e.push(['query', q]);
  }
  const body = jsonBody(o);
  if (body) {
    const ctx = inline('request', `${at} body`);
    const code = zodOf(body, ctx);
    const resolved = typeof body.$ref === 'string' ? ctx.resolve(body.$ref) : body;
    // The vendor marks most bodies optional, even those with required fields: those are required here.
    const required =
      (o.op.requestBody as Schema).required === true || ((resolved.required as string[] | undefined) ?? []).length > 0 || Array.isArray(resolved.allOf);
    e.push(['body', required ? code : seq(code, '.optional()')]);
    const content = (o.op.requestBody as Schema).content as Schema;
    if (content['multipart/form-data']) e.push(['bodyType', str('multipart')]);
  }
  const ok = success(o);
  if (ok.type === 'empty') e.push(['response', 'z.void()']);
  else if (ok.type === 'csv') e.push(['response', 'z.string()']);
  else if (ok.type === 'binary' || !ok.schema || Object.keys(ok.schema).length === 0) e.push(['response', 'z.unknown()']);
  else {
    const answer = zodOf(ok.schema, inline('response', `${at} response`));
    // A delete (204 with no body) and a write whose answer the toolkit can do without (202, nothing in it) may come empty.
    e.push(['response', o.method === 'DELETE' || o.meta.emptyAnswer ? seq(answer, '.optional()') : answer]);
  }
  if (ok.type !== 'json') e.push(['responseType', str(ok.type)]);
  if (ok.status !== 200) e.push(['status', String(ok.status)]);
  if (o.meta.idempotent) e.push(['idempotent', 'true']);
  if (o.meta.access) e.push(['access', literal(o.meta.access)]);
  if (o.meta.pagination) e.push(['pagination', str(o.meta.pagination)]);
  return call('endpoint', object(e));
}

function areasCode(ops: Op[], overlay: Overlay, header: string): string {
  const lines = [header, "import type { Endpoint } from '../endpoint.js';", "import { endpoints } from './endpoints.js';", ''];
  for (const area of overlay.areas) {
    const entries = ops.filter((o) => o.meta.area === area.key).map((o): [string, Code] => [o.meta.name, `endpoints.${o.meta.id}`]);
    lines.push(statement(`export const ${area.exportName} = `, seq(object(entries), ' as const')), '');
  }
  lines.push('/** Every endpoint of the contract, by area: the client binds it, the emulator serves it. */');
  const table = object(overlay.areas.map((a): [string, Code] => [a.key, a.exportName]));
  lines.push(statement('export const routeTable = ', seq(table, ' as const satisfies Record<string, Record<string, Endpoint>>')), '');
  return lines.join('\n');
}
