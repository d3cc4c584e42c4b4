/**
 * A real compile of a data model, the way the platform's validation endpoint does it: the YAML
 * model files under `model/` (or a top-level `schema/`) are parsed and checked against the Cube
 * data-model conventions, `*.js` files are syntax-checked (never run), and every error names the
 * file and, when known, the 1-based line: `"<path>:<line>: <text>"`. A valid model also yields
 * the compiled cubes and views, with members named `cube.member`, as served by `/meta`.
 */
import vm from 'node:vm';
import type { EntityDef, MemberDef, MemberKind, RawError } from './definitions.js';
import { parseModelFile } from './model-file.js';
import { Model } from './model.js';

export interface CompileError {
  message: string;
  fileName: string | null;
}

export interface CompiledMember {
  /** Full name, `cube.member`. */
  name: string;
  type: string;
  title?: string;
  sql?: string;
}

export interface CompiledCube {
  name: string;
  type: 'cube' | 'view';
  title?: string;
  sqlTable?: string;
  sql?: string;
  measures: CompiledMember[];
  dimensions: CompiledMember[];
  segments: CompiledMember[];
  fileName: string;
}

export interface CompileResult {
  valid: boolean;
  errors: CompileError[];
  cubes: CompiledCube[];
}

const isModelPath = (p: string): boolean => /\.ya?ml$/i.test(p) && (p.startsWith('model/') || p.startsWith('schema/'));
const isScriptPath = (p: string): boolean => /\.js$/i.test(p) && !p.split('/').includes('node_modules');

function normalisePath(p: string): string {
  let out = p.replace(/\\/g, '/');
  while (out.startsWith('./')) out = out.slice(2);
  return out.replace(/^\/+/, '');
}

function decode(raw: Buffer | string | Uint8Array): string | null {
  if (typeof raw === 'string') return raw.replace(/^\uFEFF/, '');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return null;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function checkScript(file: string, source: string, sink: RawError[]): void {
  try {
    new vm.Script(source, { filename: file });
  } catch (e) {
    const err = e as Error;
    const m = new RegExp(`^${escapeRegExp(file)}:(\\d+)`, 'm').exec(err.stack ?? '');
    const line = m?.[1] ? Number(m[1]) : null;
    sink.push({ file, line, text: `${err.name ?? 'Error'}: ${err.message}` });
  }
}

function compiledMembers(owner: string, members: MemberDef[], kind: MemberKind): CompiledMember[] {
  return members
    .filter((m) => m.kind === kind)
    .map((m) => {
      const c: CompiledMember = { name: `${owner}.${m.name}`, type: m.type };
      if (m.title !== undefined) c.title = m.title;
      if (m.sql !== undefined) c.sql = m.sql;
      return c;
    });
}

function compileEntity(e: EntityDef, members: MemberDef[], sql?: string, sqlTable?: string): CompiledCube {
  const name = e.name!;
  const c: CompiledCube = {
    name,
    type: e.kind,
    measures: compiledMembers(name, members, 'measure'),
    dimensions: compiledMembers(name, members, 'dimension'),
    segments: compiledMembers(name, members, 'segment'),
    fileName: e.file,
  };
  if (e.title !== undefined) c.title = e.title;
  if (sqlTable !== undefined) c.sqlTable = sqlTable;
  if (sql !== undefined) c.sql = sql;
  return c;
}

/** Compile a data model given as `path → bytes`. See the module comment for the rules. */
export function compileModel(files: Record<string, Buffer | string>): CompileResult {
  const sink: RawError[] = [];
  const entities: EntityDef[] = [];
  const paths = Object.keys(files)
    .map((raw) => ({ raw, path: normalisePath(raw) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  for (const { raw, path } of paths) {
    const model = isModelPath(path);
    const script = isScriptPath(path);
    if (!model && !script) continue;
    const source = decode(files[raw]!);
    if (source === null) {
      sink.push({ file: path, line: null, text: 'file is not valid UTF-8' });
      continue;
    }
    if (model) entities.push(...parseModelFile(path, source, sink));
    else checkScript(path, source, sink);
  }

  const model = new Model(entities, sink);
  model.register();
  const viewMembers = new Map<EntityDef, MemberDef[]>();
  for (const e of entities) {
    if (e.kind === 'cube') model.checkCube(e);
    else viewMembers.set(e, model.resolveView(e));
  }

  const errors = sink
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => {
      const fa = a.file ?? '\uffff';
      const fb = b.file ?? '\uffff';
      if (fa !== fb) return fa < fb ? -1 : 1;
      const la = a.line ?? 0;
      const lb = b.line ?? 0;
      return la !== lb ? la - lb : a.i - b.i;
    })
    .map<CompileError>((e) => ({
      message: e.file === null ? e.text : e.line === null ? `${e.file}: ${e.text}` : `${e.file}:${e.line}: ${e.text}`,
      fileName: e.file,
    }));

  const valid = errors.length === 0;
  const cubes: CompiledCube[] = [];
  if (valid) {
    for (const e of entities) {
      if (e.kind === 'cube') {
        const eff = model.resolveCube(e);
        cubes.push(compileEntity(e, eff.members, eff.sql, eff.sqlTable));
      } else {
        cubes.push(compileEntity(e, viewMembers.get(e) ?? []));
      }
    }
  }
  return { valid, errors, cubes };
}
