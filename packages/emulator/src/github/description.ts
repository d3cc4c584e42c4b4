/**
 * GitHub's published REST description (from @octokit/openapi), compiled once per process: finds the
 * operation of a request and lists what GitHub would reject it for (parameters, JSON body).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { textOf } from '../json.js';
import type { RecordedRequest } from '../https-server.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

interface ParamCheck {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  validate: ValidateFunction;
}

interface Operation {
  method: string;
  template: string;
  operationId: string;
  regex: RegExp;
  literals: number;
  params: ParamCheck[];
  bodyRequired: boolean;
  body?: ValidateFunction;
  /** JSON pointer of the operation in the description. */
  pointer: string;
}

export interface Description {
  /** The operation for a method and a concrete path, or undefined when GitHub has none. */
  find(method: string, path: string): { operation: Operation; path: Record<string, string> } | undefined;
  /** Problems GitHub would reject the request for (empty when none). */
  check(req: RecordedRequest): { operation?: Operation; errors: string[] };
  /** Problems with an answer against the schema GitHub documents for its status (empty when none, or none documented). */
  checkResponse(method: string, path: string, status: number, body: unknown): string[];
}

const DOC_ID = 'https://api.github.com/openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

let cached: Description | undefined;

/** GitHub's REST description, loaded and compiled once per process (13 MB of JSON). */
export function githubDescription(): Description {
  cached ??= loadDescription();
  return cached;
}

/** OpenAPI 3.0 `nullable` → JSON Schema: `type: [t, 'null']`, `null` in `enum`, or `anyOf` with null when untyped. */
function normaliseNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(normaliseNullable);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = normaliseNullable(v);
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  if (Array.isArray(out.type)) return out.type.includes('null') ? out : { ...out, type: [...out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

function pointerPart(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolveLocal(doc: JsonObject, ref: string): { value: JsonObject; pointer: string } {
  const pointer = ref.replace(/^#/, '');
  let node: Json = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as JsonObject)[part] as Json;
  }
  return { value: node as JsonObject, pointer };
}

function loadDescription(): Description {
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  } catch {
    // An optional peer of the emulator's package: only the GitHub stand-in needs it (a large download).
    throw new Error("the GitHub stand-in checks every request against GitHub's REST description: install it with `npm install @octokit/openapi`");
  }
  const doc = normaliseNullable(JSON.parse(readFileSync(file, 'utf8')) as Json) as JsonObject;
  const options = { strict: false, allErrors: true, validateFormats: false, validateSchema: false } as const;
  const bodies = new Ajv(options);
  bodies.addSchema(doc, DOC_ID);
  // Query and path values are strings on the wire: let Ajv coerce them to the declared type.
  const params = new Ajv({ ...options, coerceTypes: true });
  params.addSchema(doc, DOC_ID);

  const paramCache = new Map<string, ValidateFunction>();
  const compileParam = (pointer: string): ValidateFunction => {
    let v = paramCache.get(pointer);
    if (!v) {
      v = params.compile({ type: 'object', properties: { value: { $ref: `${DOC_ID}#${pointer}` } } });
      paramCache.set(pointer, v);
    }
    return v;
  };

  const byMethod = new Map<
    string,
    { template: string; method: string; pointer: string; op: JsonObject; pathItem: JsonObject; regex: RegExp; literals: number }[]
  >();
  for (const [template, pathItem] of Object.entries(doc.paths as JsonObject)) {
    const segments = template.split('/');
    const regex = new RegExp(`^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '([^/]+)' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
    const literals = segments.filter((s) => s && !s.startsWith('{')).length;
    for (const method of HTTP_METHODS) {
      const op = (pathItem as JsonObject)[method];
      if (!op || typeof op !== 'object') continue;
      const list = byMethod.get(method.toUpperCase()) ?? [];
      list.push({
        template,
        method: method.toUpperCase(),
        pointer: `/paths/${pointerPart(template)}/${method}`,
        op: op as JsonObject,
        pathItem: pathItem as JsonObject,
        regex,
        literals,
      });
      byMethod.set(method.toUpperCase(), list);
    }
  }
  // A literal segment beats a parameter: `/issues/comments` is not issue number "comments".
  for (const list of byMethod.values()) list.sort((a, b) => b.literals - a.literals);

  const compiled = new Map<string, Operation>();
  const compileOperation = (entry: NonNullable<ReturnType<typeof byMethod.get>>[number]): Operation => {
    const key = `${entry.method} ${entry.template}`;
    const hit = compiled.get(key);
    if (hit) return hit;
    const checks: ParamCheck[] = [];
    const declared = [
      ...((entry.pathItem.parameters as Json[] | undefined) ?? []).map((p, i) => ({ p, pointer: `/paths/${pointerPart(entry.template)}/parameters/${i}` })),
      ...((entry.op.parameters as Json[] | undefined) ?? []).map((p, i) => ({ p, pointer: `${entry.pointer}/parameters/${i}` })),
    ];
    for (const { p, pointer } of declared) {
      const ref = (p as JsonObject).$ref;
      const { value, pointer: at } = typeof ref === 'string' ? resolveLocal(doc, ref) : { value: p as JsonObject, pointer };
      if (value.in !== 'path' && value.in !== 'query') continue;
      checks.push({
        name: textOf(value.name),
        in: value.in,
        required: value.required === true || value.in === 'path',
        validate: compileParam(`${at}/schema`),
      });
    }
    let body: ValidateFunction | undefined;
    let bodyRequired = false;
    let rb = entry.op.requestBody as JsonObject | undefined;
    let rbPointer = `${entry.pointer}/requestBody`;
    if (rb && typeof rb.$ref === 'string') ({ value: rb, pointer: rbPointer } = resolveLocal(doc, rb.$ref));
    const content = rb?.content as JsonObject | undefined;
    if (rb && content && content['application/json']) {
      bodyRequired = rb.required === true;
      body = bodies.compile({ $ref: `${DOC_ID}#${rbPointer}/content/application~1json/schema` });
    }
    const op: Operation = {
      method: entry.method,
      template: entry.template,
      operationId: textOf(entry.op.operationId),
      regex: entry.regex,
      literals: entry.literals,
      params: checks,
      bodyRequired,
      ...(body ? { body } : {}),
      pointer: entry.pointer,
    };
    compiled.set(key, op);
    return op;
  };

  const find: Description['find'] = (method, path) => {
    for (const entry of byMethod.get(method.toUpperCase()) ?? []) {
      const m = entry.regex.exec(path);
      if (!m) continue;
      const operation = compileOperation(entry);
      const names = [...entry.template.matchAll(/\{([^}]+)\}/g)].map((x) => x[1] as string);
      const values: Record<string, string> = {};
      names.forEach((n, i) => (values[n] = decodeURIComponent(m[i + 1] as string)));
      return { operation, path: values };
    }
    return undefined;
  };

  const describe = (errors: ErrorObject[] | null | undefined, where: string): string[] =>
    (errors ?? []).map(
      (e) =>
        `${where}${e.instancePath.replace(/^\/value(?=\/|$)/, '')} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    );

  const responses = new Map<string, ValidateFunction | undefined>();
  const responseSchema = (operation: Operation, status: number): ValidateFunction | undefined => {
    const key = `${operation.pointer} ${status}`;
    if (responses.has(key)) return responses.get(key);
    let answer = resolveLocal(doc, `#${operation.pointer}/responses/${status}`);
    if (answer.value && typeof answer.value.$ref === 'string') answer = resolveLocal(doc, answer.value.$ref);
    const content = answer.value?.content as JsonObject | undefined;
    const validate = content?.['application/json'] ? bodies.compile({ $ref: `${DOC_ID}#${answer.pointer}/content/application~1json/schema` }) : undefined;
    responses.set(key, validate);
    return validate;
  };

  return {
    find,
    checkResponse(method, path, status, body) {
      const found = find(method, path);
      if (!found) return [`${method} ${path}: no such operation in GitHub's REST description`];
      const validate = responseSchema(found.operation, status);
      if (!validate || validate(body)) return [];
      return describe(validate.errors, `${found.operation.operationId} ${status} answer`);
    },
    check(req) {
      const errors: string[] = [];
      const found = find(req.method, req.path);
      if (!found) return { errors: [`${req.method} ${req.path}: no such operation in GitHub's REST description`] };
      const { operation } = found;
      for (const p of operation.params) {
        const raw = p.in === 'path' ? found.path[p.name] : (req.query.get(p.name) ?? undefined);
        if (raw === undefined) {
          if (p.required) errors.push(`${p.in} parameter ${p.name} is required`);
          continue;
        }
        const holder = { value: raw };
        if (!p.validate(holder)) errors.push(...describe(p.validate.errors, `${p.in} parameter ${p.name}`));
      }
      if (!req.headers['user-agent']) errors.push('the User-Agent header is required');
      const hasBody = req.body.length > 0;
      if (operation.body && (hasBody || operation.bodyRequired)) {
        const type = String(req.headers['content-type'] ?? '');
        if (!hasBody) errors.push('a JSON request body is required');
        else if (!type.includes('application/json')) errors.push(`the body must be application/json, not ${JSON.stringify(type)}`);
        else if (req.json === undefined) errors.push('the body is not valid JSON');
        else if (!operation.body(req.json)) errors.push(...describe(operation.body.errors, 'body'));
      }
      return { operation, errors };
    },
  };
}
