/**
 * The overlay: our one hand-written artifact on top of the vendor's OpenAPI file. It holds, in
 * `packages/platform-api/overlay/`, the metadata of every operation (`operations.yaml`) and the
 * decision tables of docs/api-assumptions.md, each row with the Overlay 1.0 actions that make it
 * true in the contract. The actions are applied in order and win over the vendor file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { applyAction, type Action } from './jsonpath.js';

/** Who may call an operation (mirrors `AccessRule` of src/endpoint.ts). */
export interface Access {
  admin?: boolean;
  permissions?: string[];
  scim?: boolean;
  public?: boolean;
}

/** Our metadata for one operation. */
export interface OperationMeta {
  /** The vendor's operationId, or ours for an operation only the spec names. */
  id: string;
  /** Client area (routeTable key) and method name in it. */
  area: string;
  name: string;
  /** Spec section that lists it (`4.15` is the catch-all). */
  section: string;
  summary: string;
  /** False when the spec's section 4 does not name the operation (vendor-only). */
  spec: boolean;
  access?: Access;
  pagination?: 'offset' | 'cursor';
  idempotent?: boolean;
  /** The answer may come with no body (202 or 204): nothing in it is needed. */
  emptyAnswer?: boolean;
}

/** One decision: a row of docs/api-assumptions.md and the actions that apply it (none for behaviour rows). */
export interface Row {
  endpoint: string;
  spec: string;
  chose: string;
  why: string;
  actions: Action[];
}

export interface Table {
  title: string;
  intro?: string;
  rows: Row[];
}

/** A client area: its `routeTable` key and the name its table is exported under. */
export interface Area {
  key: string;
  exportName: string;
}

export interface Overlay {
  /** The vendor file, relative to the repository root. */
  vendor: string;
  doc: { path: string; title: string; intro: string };
  areas: Area[];
  operations: OperationMeta[];
  tables: Table[];
}

type Raw = Record<string, unknown>;

function need<T>(v: T | undefined, what: string): T {
  if (v === undefined || v === null || v === '') throw new Error(`overlay: ${what} is missing`);
  return v;
}

/** A YAML scalar as text (YAML reads `1.0` or `yes` as a number or a boolean); a mapping or a list is an error. */
function text(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`overlay: ${what} is not text`);
}

function readYaml(path: string): Raw {
  return parse(readFileSync(path, 'utf8')) as Raw;
}

/** Read `operations.yaml`: areas, each a map of method name to metadata (`x-export`: the table's name). */
function readOperations(path: string): { areas: Area[]; operations: OperationMeta[] } {
  const out: OperationMeta[] = [];
  const areas: Area[] = [];
  for (const [area, methods] of Object.entries(readYaml(path))) {
    if (area.startsWith('x-')) continue;
    areas.push({ key: area, exportName: need((methods as Raw)['x-export'] as string, `operations.yaml ${area}: x-export`) });
    for (const [name, raw] of Object.entries(methods as Record<string, Raw>)) {
      if (name.startsWith('x-')) continue;
      const where = `operations.yaml ${area}.${name}`;
      const meta: OperationMeta = {
        id: need(raw.id as string, `${where}: id`),
        area,
        name,
        section: need(raw.section as string, `${where}: section`),
        summary: need(raw.summary as string, `${where}: summary`),
        spec: raw.spec !== false,
      };
      if (raw.access) meta.access = raw.access;
      if (raw.pagination) meta.pagination = raw.pagination as OperationMeta['pagination'];
      if (raw.idempotent === true) meta.idempotent = true;
      if (raw.emptyAnswer === true) meta.emptyAnswer = true;
      for (const k of Object.keys(raw)) {
        if (!['id', 'section', 'summary', 'spec', 'access', 'pagination', 'idempotent', 'emptyAnswer'].includes(k))
          throw new Error(`overlay: ${where}: unknown key ${k}`);
      }
      out.push(meta);
    }
  }
  return { areas, operations: out };
}

function readTable(path: string): Table {
  const raw = readYaml(path);
  const rows = (raw.rows as Raw[]).map((r, i): Row => {
    const where = `${path} row ${i + 1}`;
    const actions = ((r.actions as Raw[] | undefined) ?? []).map((a): Action => {
      const action: Action = { target: need(a.target as string, `${where}: action target`) };
      if (a.description) action.description = text(a.description, `${where}: action description`);
      if (a.remove === true) action.remove = true;
      else action.update = need(a.update, `${where}: action update or remove`);
      return action;
    });
    return {
      endpoint: need(r.endpoint as string, `${where}: endpoint`),
      spec: need(r.spec as string, `${where}: spec`),
      chose: need(r.chose as string, `${where}: chose`),
      why: need(r.why as string, `${where}: why`),
      actions,
    };
  });
  const table: Table = { title: need(raw.title as string, `${path}: title`), rows };
  if (raw.intro) table.intro = text(raw.intro, `${path}: intro`).trim();
  return table;
}

/** Load the overlay from its folder (`index.yaml` names the other files). */
export function loadOverlay(dir: string): Overlay {
  const index = readYaml(join(dir, 'index.yaml'));
  const doc = index['x-doc'] as Raw;
  return {
    vendor: need(index.extends as string, 'index.yaml: extends'),
    doc: { path: need(doc.path as string, 'x-doc.path'), title: need(doc.title as string, 'x-doc.title'), intro: text(doc.intro ?? '', 'x-doc.intro').trim() },
    ...readOperations(join(dir, need(index['x-operations'] as string, 'index.yaml: x-operations'))),
    tables: (index['x-tables'] as string[]).map((f) => readTable(join(dir, f))),
  };
}

/** The vendor document with every action of the overlay applied, in order. */
export function applyOverlay(vendor: Record<string, unknown>, overlay: Overlay): Record<string, unknown> {
  const doc = structuredClone(vendor);
  for (const table of overlay.tables) {
    for (const row of table.rows) {
      for (const action of row.actions) {
        // An action that selects nothing is stale: the vendor file changed under it.
        if (applyAction(doc, action) === 0) throw new Error(`overlay: "${action.target}" (${row.endpoint}) selects nothing in the vendor file`);
      }
    }
  }
  return doc;
}
