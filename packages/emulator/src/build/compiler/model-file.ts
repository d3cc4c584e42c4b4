/** Parsing one model file: YAML into entity definitions, with every local rule checked here. */
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { parseCube } from './cubes.js';
import type { EntityDef, RawError } from './definitions.js';
import { parseView } from './views.js';
import { describe, FileContext, listItems } from './yaml-reader.js';

export function parseModelFile(file: string, source: string, sink: RawError[]): EntityDef[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, merge: true });
  if (doc.errors.length > 0) {
    const seen = new Set<string>();
    for (const err of doc.errors) {
      const line = lineCounter.linePos(err.pos[0]).line;
      const text = `YAML syntax error: ${err.message.split('\n')[0]}`;
      if (seen.has(`${line}\0${text}`)) continue;
      seen.add(`${line}\0${text}`);
      sink.push({ file, line, text });
    }
    // Still read what parsed, so other files' references to its cubes resolve, but report nothing
    // more for this file: only the syntax error(s) above.
    const entities = readEntities(new FileContext(file, doc, lineCounter, []));
    for (const e of entities) e.muted = true;
    return entities;
  }
  return readEntities(new FileContext(file, doc, lineCounter, sink));
}

function readEntities(ctx: FileContext): EntityDef[] {
  const doc = ctx.document;
  const root = ctx.deref(doc.contents);
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined))) return [];
  if (!isMap(root)) {
    ctx.error(ctx.line(root, 1), `expected a mapping with "cubes" and/or "views" at the top level, got ${describe(root)}`);
    return [];
  }
  const out: EntityDef[] = [];
  for (const field of ctx.fields(root).values()) {
    if (field.key !== 'cubes' && field.key !== 'views') {
      ctx.error(field.keyLine, `unexpected top-level key "${field.key}"; only "cubes" and "views" are allowed`);
      continue;
    }
    const kind = field.key === 'cubes' ? 'cube' : 'view';
    for (const item of listItems(ctx, field, `"${field.key}"`)) {
      if (!isMap(item.node)) {
        ctx.error(item.line, `each item of "${field.key}" must be a mapping, got ${describe(item.node)}`);
        continue;
      }
      out.push(kind === 'cube' ? parseCube(ctx, item.node) : parseView(ctx, item.node));
    }
  }
  return out;
}
