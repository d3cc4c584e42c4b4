/**
 * Render markdown as GitHub does: GitHub-flavoured markdown (tables, autolinks, strikethrough), raw HTML
 * allowed, then sanitised with GitHub's own allow-list (`rehype-sanitize`'s default schema follows it).
 */
import type { Element, Root } from 'hast';
import { selectAll } from 'hast-util-select';
import { toText } from 'hast-util-to-text';
import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

export interface Rendered {
  tree: Root;
  /** The visible text, as a reader sees it. */
  text: string;
  links: { href: string; text: string }[];
  headings: { level: number; text: string }[];
  /** Each table: its header cells, then its rows' cells. */
  tables: { head: string[]; rows: string[][] }[];
  /** The text of every code span. */
  codes: string[];
}

export function renderGfm(markdown: string): Rendered {
  const processor = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true }).use(rehypeRaw).use(rehypeSanitize);
  const tree = processor.runSync(processor.parse(markdown));
  const cells = (row: Element) => selectAll('th, td', row).map((c) => toText(c).trim());
  return {
    tree,
    text: toText(tree),
    links: selectAll('a', tree).map((a) => ({ href: String(a.properties?.href ?? ''), text: toText(a) })),
    headings: selectAll('h1, h2, h3, h4, h5, h6', tree).map((h) => ({ level: Number(h.tagName.slice(1)), text: toText(h) })),
    tables: selectAll('table', tree).map((t) => ({ head: selectAll('thead tr', t).flatMap(cells), rows: selectAll('tbody tr', t).map(cells) })),
    codes: selectAll('code', tree).map((c) => toText(c)),
  };
}
