/**
 * `npm run comment-picture`: the README's picture of the PR comment, drawn from the real demo. The demo
 * plays quietly; the comment each chosen event left is rendered as GitHub renders it (GFM, sanitised) and framed
 * as a bot comment in an SVG (HTML inside `foreignObject`, so the browser lays out the text). Only what
 * changes per run is fixed: the emulator's address and the update time. A test checks the file is fresh.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Element, ElementContent, Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { toText } from 'hast-util-to-text';
import { renderGfm } from '../test/support/gfm.js';
import { ACCESS_PUSH, playDemo, type DemoEvent } from './demo.js';
import { ROLLUP_PUSH } from './demo-rollup.js';

/** Each picture and the demo event whose comment it shows. */
export const PICTURES = [
  { file: join('docs', 'images', 'pr-comment-impact.svg'), event: '5. A push removes a member a report uses' },
  { file: join('docs', 'images', 'pr-comment-error.svg'), event: '2. A push breaks the model' },
  { file: join('docs', 'images', 'pr-comment-numbers.svg'), event: '4. A push changes how a measure is computed' },
  { file: join('docs', 'images', 'pr-comment-monorepo.svg'), event: '8. A monorepo pull request touches finance/ only' },
  { file: join('docs', 'images', 'pr-comment-access.svg'), event: ACCESS_PUSH },
  { file: join('docs', 'images', 'pr-comment-cost.svg'), event: ROLLUP_PUSH },
];
const PLATFORM = 'https://acme.cubecloud.dev';
const WIDTH = 820;
/** Text per line at 14px in the comment body (about 766px wide), kept low so the estimate errs tall. */
const CHARS_PER_LINE = 96;
const LINE = 21;

/** The comment as a reader sees it, with the run-dependent parts made fixed (address, update time, the data diff's seconds). */
export function normalise(e: DemoEvent): string {
  return e.comment
    .replace(/<!--[\s\S]*?-->\n?/g, '')
    .split(e.platformUrl)
    .join(PLATFORM)
    .replace(/\*\*Updated:\*\* [^\n·]*UTC/g, '**Updated:** 2026-11-23 09:41 UTC')
    .replace(/(\*\*Numbers\*\* \(production → preview, [^)]*? in )[\d.]+ s/g, (_, lead: string) => `${lead}1.2 s`)
    .replace(/^Data as read \(each side's oldest answer\): .*$/gm, (line) =>
      line.replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/g, '2026-11-23 09:40:12 UTC'),
    )
    .trim();
}

const isElement = (n: ElementContent | Root['children'][number]): n is Element => n.type === 'element';
const lines = (text: string) => Math.max(1, Math.ceil(text.length / CHARS_PER_LINE));

/** Height in pixels of rendered blocks, by GitHub's comment CSS (16px block margins, 21px lines). */
function blockHeight(nodes: (ElementContent | Root['children'][number])[]): number {
  let h = 0;
  for (const n of nodes) {
    if (!isElement(n)) continue;
    const text = toText(n).trim();
    if (/^h[1-6]$/.test(n.tagName)) h += 30 + 16;
    else if (n.tagName === 'p') h += text.split('\n').reduce((sum, l) => sum + lines(l) * LINE, 0) + 16;
    else if (n.tagName === 'table') {
      const rows = n.children.filter(isElement).flatMap((part) => part.children.filter(isElement));
      // A cell's line breaks (<br>) add lines; the widest cell of a row decides its height.
      const rowLines = (row: Element) =>
        Math.max(1, ...row.children.filter(isElement).map((cell) => toText(cell).split('\n').length + lines(toText(cell)) - 1));
      h += rows.reduce((sum, row) => sum + 12 + rowLines(row) * LINE + 1, 0) + 16;
    } else if (n.tagName === 'ul' || n.tagName === 'ol') {
      h += n.children.filter(isElement).reduce((sum, li) => sum + lines(toText(li)) * LINE + 4, 0) + 16;
    } else if (n.tagName === 'details') {
      const summary = n.children.filter(isElement).find((c) => c.tagName === 'summary');
      h += lines(summary ? toText(summary) : '') * LINE + 16;
      // An open section shows its content too.
      if (n.properties.open) h += blockHeight(n.children.filter((c) => c !== summary));
    } else if (n.tagName === 'hr') h += 24 + 16;
    else h += lines(text) * LINE + 16;
  }
  return h;
}

const CSS = `
.frame{font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif,"Apple Color Emoji","Segoe UI Emoji";color:#1f2328;border:1px solid #d1d9e0;border-radius:6px;background:#fff;overflow:hidden}
.head{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;color:#59636e}
.head b{color:#1f2328}.bot{border:1px solid #d1d9e0;border-radius:2em;padding:0 7px;font-size:12px;margin:0 4px}
.body{padding:16px}.body>:first-child{margin-top:0}.body>:last-child{margin-bottom:0}
h1,h2,h3,h4{margin:24px 0 16px;font-weight:600;line-height:1.25}h3{font-size:1.25em}
p,ul,ol,table,details{margin:0 0 16px}ul,ol{padding-left:2em}li+li{margin-top:4px}
a{color:#0969da;text-decoration:none}
code{font:85% ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;background:rgba(129,139,152,.12);border-radius:6px;padding:.2em .4em}
table{border-collapse:collapse}th,td{border:1px solid #d1d9e0;padding:6px 13px}th{font-weight:600}tr:nth-child(2n){background:#f6f8fa}
summary{cursor:pointer}`;

/** GitHub renders a newline inside a comment's paragraph as a line break (unlike in a .md file) */
function commentBreaks(node: Root | Element): void {
  node.children = node.children.flatMap((c): ElementContent[] => {
    if (c.type === 'element') commentBreaks(c);
    if (c.type !== 'text' || !(node.type === 'element' && node.tagName === 'p')) return [c as ElementContent];
    return c.value
      .split('\n')
      .flatMap((part, i): ElementContent[] => [
        ...(i ? [{ type: 'element', tagName: 'br', properties: {}, children: [] } as Element] : []),
        { type: 'text', value: part },
      ]);
  });
}

/** The comment's markdown as an SVG picture of a GitHub bot comment. */
export function commentSvg(markdown: string): string {
  const { tree } = renderGfm(markdown);
  commentBreaks(tree);
  // XML has no bare boolean attributes; `open` on <details> is the one a comment uses.
  const body = toHtml(tree, { closeSelfClosing: true, closeEmptyElements: true }).replace(/<details open>/g, '<details open="open">');
  const height = Math.ceil(blockHeight(tree.children) - 16 + 16 * 2 + 39 + 2);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="The datamodel-ci pull request comment">`,
    `<foreignObject x="0" y="0" width="${WIDTH}" height="${height}">`,
    `<div xmlns="http://www.w3.org/1999/xhtml" class="frame"><style>${CSS.trim()}</style>`,
    `<div class="head"><b>github-actions</b><span class="bot">bot</span> commented</div>`,
    `<div class="body">${body}</div></div>`,
    '</foreignObject></svg>',
    '',
  ].join('\n');
}

/** Play the demo quietly and return each picture, by file, of its event's comment (`seen` gets every event, for tests). */
export async function renderPictures(seen?: DemoEvent[]): Promise<Map<string, string>> {
  const events: DemoEvent[] = [];
  const ok = await playDemo({ print: () => undefined, onEvent: (e) => events.push(e) });
  seen?.push(...events);
  const out = new Map<string, string>();
  for (const p of PICTURES) {
    const event = events.find((e) => e.title === p.event);
    if (!ok || !event) throw new Error(`the demo did not play through to "${p.event}"`);
    out.set(p.file, commentSvg(normalise(event)));
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length) {
    process.stderr.write(`comment-picture: no arguments expected, got ${JSON.stringify(argv[0])}\n`);
    return 2;
  }
  for (const [file, svg] of await renderPictures()) {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(resolve(file), svg);
    process.stdout.write(`wrote ${file}\n`);
  }
  return 0;
}
