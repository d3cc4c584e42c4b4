/**
 * What a reader sees of the PR comment, read back from its markdown: the state its heading says, the
 * commit and the preview branch it names, and the text. (The comment's ledger keeps the facts the runs
 * act on, not the view: tests that check what the comment shows read it here.)
 */
import type { PreviewState } from '../../src/pr/comment/view.js';

export interface ShownComment {
  state?: PreviewState;
  headSha?: string;
  branch?: string;
  /** The markdown without the hidden marker and ledger. */
  text: string;
}

const STATES: [RegExp, PreviewState][] = [
  [/^### ⏳ .* · updating/, 'updating'],
  [/^### ✅ .* · ready$/, 'ready'],
  [/^### ❌ .* · \d+ errors? in \d+ files?$/, 'invalid'],
  [/^### ❌ .* · failed$/, 'failed'],
  [/^### 🔀 .* · merged/, 'merged'],
  [/^### .* · closed$/, 'closed'],
  [/^### ⏭️ .* · skipped/, 'skipped'],
];

export function shownComment(body: string): ShownComment {
  const text = body.replace(/<!--[\s\S]*?-->\n?/g, '').trim();
  const heading = text.split('\n').find((l) => l.startsWith('### ')) ?? '';
  const state = STATES.find(([re]) => re.test(heading))?.[1];
  const headSha = /\*\*Commit:\*\* \[`[0-9a-f]+`\]\([^)]*\/commit\/([0-9a-f]{40})\)/.exec(text)?.[1];
  const branch = /\*\*Preview:\*\* \[`([^`]+)`\]/.exec(text)?.[1] ?? /^`([^`]+)` was merged/m.exec(text)?.[1];
  return { ...(state ? { state } : {}), ...(headSha ? { headSha } : {}), ...(branch ? { branch } : {}), text };
}
