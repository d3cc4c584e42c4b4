/**
 * Relative links of a markdown page that lead nowhere: a file that does not exist, or a `#heading` the
 * target page does not have (anchors as GitHub makes them from headings).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] as string)));
}

export function brokenLinks(file: string, text = readFileSync(file, 'utf8')): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  const out: string[] = [];
  for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1] as string;
    if (/^[a-z]+:/i.test(href)) continue;
    const [path, hash] = href.split('#') as [string, string | undefined];
    const target = path ? normalize(join(dirname(file), path)) : file;
    if (!existsSync(target)) {
      out.push(`${file}: ${href} (no such file)`);
      continue;
    }
    if (hash && !statSync(target).isDirectory() && target.endsWith('.md') && !anchors(target).has(hash)) out.push(`${file}: ${href} (no such heading)`);
  }
  return out;
}
