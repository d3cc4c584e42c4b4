/**
 * Markdown for the PR comment and the job summary, from text that came from outside (file names, branch
 * names, platform messages): rendered inert, but readable. Names a user copies go in code spans (no
 * escaping shows inside them, and GitHub resolves no mention there); prose is backslash-escaped, which
 * GitHub renders back to the plain text (numeric entities showed raw in some places).
 */

import { maskSecretLooking } from '../../client/redact.js';

/** C0/C1 controls (tab and newlines excepted), DEL, and the bidi/format characters behind "Trojan source" tricks. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]+/g;

/** One line of plain text: controls and zero-width characters gone, line breaks and tabs as spaces. */
export function plain(text: string): string {
  // Outside text shown in a comment or summary never carries a credential, known to us or not.
  return maskSecretLooking(String(text).replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim());
}

/** ASCII punctuation that means something to markdown or GitHub's autolinker. */
const PUNCTUATION = /[\\`*_{}[\]()<>#+\-.!|~$&:"'=]/g;

/** Zero-width space: GitHub resolves `@name` and `#123` on the rendered text, so only breaking the token helps. */
const ZWSP = '\u200B';

/**
 * What GitHub would turn into a link by itself: URLs, `www.` hosts, e-mail addresses. A scheme or an
 * address starts only where its run of name characters starts (the leftmost match is there anyway): tried
 * at every letter of a long run, the pattern took time growing with the run's square on outside text.
 */
const AUTOLINKABLE = /(?:(?<![a-z][a-z0-9+.-]*?)[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>]*[^\s<>.,;:!?)\]'"]|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gi;

function escapeProse(part: string): string {
  return part
    .replace(PUNCTUATION, (c) => `\\${c}`)
    .replace(/@(?=\w)/g, `@${ZWSP}`)
    .replace(/\\#(?=\w)/g, `\\#${ZWSP}`);
}

/**
 * Prose from outside, inert: every markdown punctuation character backslash-escaped, mentions and issue
 * references broken with a zero-width space, and what GitHub would autolink (a URL, an address) shown
 * as code instead: readable and copyable, never a link. One line.
 */
export function text(s: string): string {
  const line = plain(s);
  let out = '';
  let at = 0;
  for (const m of line.matchAll(AUTOLINKABLE)) {
    out += escapeProse(line.slice(at, m.index)) + code(m[0]);
    at = (m.index ?? 0) + m[0].length;
  }
  return out + escapeProse(line.slice(at));
}

/** A code span for a name (file, branch, member), safe for any content; `cell` also escapes `|` for a table. */
export function code(s: string, options: { cell?: boolean } = {}): string {
  let body = plain(s);
  if (options.cell) body = body.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // A span that starts or ends with a backtick (or a space) needs a space of padding inside the fence.
  const pad = /^[`\s]|[`\s]$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A link whose target we made (https only) and whose text is outside text. */
export function link(label: string, href: string): string {
  if (!/^https:\/\/[^\s<>()]+$/.test(href)) return text(label);
  return `[${text(label)}](${href})`;
}

/** A link whose text is a name shown as code. */
export function codeLink(name: string, href: string): string {
  if (!/^https:\/\/[^\s<>()]+$/.test(href)) return code(name);
  return `[${code(name)}](${href})`;
}

/** A URL path segment by segment, for links built from repository paths. */
export function pathInUrl(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** Cut `s` to at most `max` UTF-16 units, ending with `…` when cut; never splits a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - 1);
  const last = s.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${s.slice(0, end)}…`;
}
