/** Render docs/api-assumptions.md from the overlay: its decision tables and the operations only our spec names. */
import type { Overlay } from './overlay.js';

/** One table cell: a `|` would end the cell, a newline the row. */
function cell(text: string): string {
  return text
    .trim()
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');
}

/** The operations the overlay adds (absent from the vendor file), as `METHOD path`. */
export interface SpecOnly {
  id: string;
  method: string;
  path: string;
  section: string;
}

export function renderDoc(overlay: Overlay, specOnly: SpecOnly[], banner: string): string {
  const out = [banner, '', `# ${overlay.doc.title}`, '', overlay.doc.intro, ''];
  for (const table of overlay.tables) {
    out.push(`## ${table.title}`, '');
    if (table.intro) out.push(table.intro, '');
    out.push('| endpoint | what the spec says | what we chose | why |', '|---|---|---|---|');
    for (const r of table.rows) out.push(`| ${cell(r.endpoint)} | ${cell(r.spec)} | ${cell(r.chose)} | ${cell(r.why)} |`);
    out.push('');
  }
  out.push('## Operations only our spec names', '', 'Added to the contract by the overlay; the vendor file has no operation for them.', '');
  out.push('| operation | method and path | spec section |', '|---|---|---|');
  for (const s of specOnly) out.push(`| \`${s.id}\` | \`${s.method} ${s.path}\` | ${s.section} |`);
  out.push('');
  return out.join('\n');
}
