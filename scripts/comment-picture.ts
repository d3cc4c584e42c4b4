/**
 * `npm run comment-picture`: the README's pictures of the PR comment, drawn from the real demo. The demo
 * plays quietly; the comment each chosen event left is rendered as GitHub renders it (GFM, sanitised),
 * framed as a bot comment in an HTML page, and photographed by a real browser (headless Chromium) at the
 * page's measured height: a PNG shows the same in every viewer, where HTML in an SVG was blank in some and
 * cut off in others. Only what changes per run is fixed: the emulator's address and the update time. Each
 * PNG carries the SHA-256 of its page (a `tEXt` chunk), so a test checks it is fresh without a browser.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Element, ElementContent, Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { pngSourceHash, sourceHash, withSourceHash } from './png-source.js';
import { renderGfm } from '../test/support/gfm.js';
import { ACCESS_PUSH, playDemo, type DemoEvent } from './demo.js';
import { ROLLUP_PUSH } from './demo-rollup.js';

/** Each picture and the demo event whose comment it shows. */
export const PICTURES = [
  { file: join('docs', 'images', 'pr-comment-impact.png'), event: '5. A push removes a member a report uses' },
  { file: join('docs', 'images', 'pr-comment-error.png'), event: '2. A push breaks the model' },
  { file: join('docs', 'images', 'pr-comment-numbers.png'), event: '4. A push changes how a measure is computed' },
  { file: join('docs', 'images', 'pr-comment-monorepo.png'), event: '8. A monorepo pull request touches finance/ only' },
  { file: join('docs', 'images', 'pr-comment-access.png'), event: ACCESS_PUSH },
  { file: join('docs', 'images', 'pr-comment-cost.png'), event: ROLLUP_PUSH },
];
const PLATFORM = 'https://acme.cubecloud.dev';
const WIDTH = 820;
/** The browser's device pixels per CSS pixel: sharp on high-density screens. */
const SCALE = 2;

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

const CSS = `
html,body{margin:0;background:#fff}body{width:${WIDTH}px}
.frame{font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif,"Apple Color Emoji","Segoe UI Emoji","Noto Color Emoji";color:#1f2328;border:1px solid #d1d9e0;border-radius:6px;background:#fff;overflow:hidden}
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

/** The comment's markdown as an HTML page of a GitHub bot comment; its script tells the frame's height. */
export function commentHtml(markdown: string): string {
  const { tree } = renderGfm(markdown);
  commentBreaks(tree);
  const body = toHtml(tree);
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>The datamodel-ci pull request comment</title><style>${CSS.trim()}</style></head><body>`,
    `<div class="frame" id="frame"><div class="head"><b>github-actions</b><span class="bot">bot</span> commented</div>`,
    `<div class="body">${body}</div></div>`,
    "<script>document.documentElement.dataset.height = String(Math.ceil(document.getElementById('frame').getBoundingClientRect().height));</script>",
    '</body></html>',
    '',
  ].join('\n');
}

/** The browser: CHROMIUM, else `chromium` on PATH. */
const browser = () => process.env.CHROMIUM || 'chromium';

/** Photograph a page at its own height with headless Chromium: the PNG, its page's hash inside. */
export function photograph(html: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-picture-'));
  try {
    const page = join(dir, 'comment.html');
    writeFileSync(page, html);
    // As root (a container) Chromium runs only without its sandbox.
    const base = ['--headless', '--disable-gpu', '--hide-scrollbars', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
    const run = (args: string[]) =>
      execFileSync(browser(), [...base, ...args, `file://${page}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
    // First the height the browser lays the comment out at, then the picture of exactly that.
    const height = Number(/data-height="(\d+)"/.exec(run([`--window-size=${WIDTH},800`, '--dump-dom']))?.[1]);
    if (!(height > 0)) throw new Error(`${browser()} did not measure the comment (no data-height in its DOM)`);
    run([`--force-device-scale-factor=${SCALE}`, `--window-size=${WIDTH},${height}`, `--screenshot=${join(dir, 'shot.png')}`]);
    return withSourceHash(readFileSync(join(dir, 'shot.png')), sourceHash(html));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether a committed picture was made from this page. */
export const isPictureOf = (png: Buffer, html: string) => pngSourceHash(png) === sourceHash(html);

/** Play the demo quietly and return each picture's page, by file, of its event's comment (`seen` gets every event, for tests). */
export async function renderPictures(seen?: DemoEvent[]): Promise<Map<string, string>> {
  const events: DemoEvent[] = [];
  const ok = await playDemo({ print: () => undefined, onEvent: (e) => events.push(e) });
  seen?.push(...events);
  const out = new Map<string, string>();
  for (const p of PICTURES) {
    const event = events.find((e) => e.title === p.event);
    if (!ok || !event) throw new Error(`the demo did not play through to "${p.event}"`);
    out.set(p.file, commentHtml(normalise(event)));
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length) {
    process.stderr.write(`comment-picture: no arguments expected, got ${JSON.stringify(argv[0])}\n`);
    return 2;
  }
  for (const [file, html] of await renderPictures()) {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(resolve(file), photograph(html));
    process.stdout.write(`wrote ${file}\n`);
  }
  return 0;
}
