/**
 * Render text that came from outside (file names, platform errors, branch names, commit titles) inert in
 * GitHub markdown: no HTML, no mentions, no links, no emphasis, no table breaks, no hidden-comment tricks.
 */

/** Zero-width space: GitHub resolves mentions and references on the decoded text, so `&#64;` alone is not enough. */
const ZWSP = '&#8203;';

/** Characters escaped wherever they appear. */
const INLINE: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '@': `&#64;${ZWSP}`,
  '#': `&#35;${ZWSP}`,
  '[': '&#91;',
  ']': '&#93;',
  '(': '&#40;',
  ')': '&#41;',
  '!': '&#33;',
  '*': '&#42;',
  _: '&#95;',
  '~': '&#126;',
  '`': '&#96;',
  '|': '&#124;',
  '\\': '&#92;',
  $: '&#36;',
};

/** Characters that only mean something at the start of a line (lists, setext headings, quotes). */
const LINE_START: Readonly<Record<string, string>> = {
  '-': '&#45;',
  '+': '&#43;',
  '=': '&#61;',
};

const HTML: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * C0/C1 controls (tab and newlines excepted), DEL, and the bidi/format characters behind "Trojan source" tricks.
 * A run of them collapses to one space.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]+/g;

/** Normalise line breaks and collapse control characters; tabs become spaces. */
function clean(text: string): string {
  return text.replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n').replace(CONTROLS, ' ').replace(/\t/g, ' ');
}

/** Escape `& < > " '` for HTML text or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (c) => HTML[c] ?? c);
}

function escapeLine(line: string): string {
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    const inline = INLINE[c];
    if (inline !== undefined) out += inline;
    else if (i === 0 && (LINE_START[c] !== undefined || (c >= '0' && c <= '9'))) out += LINE_START[c] ?? `&#${c.charCodeAt(0)};`;
    else out += c;
  }
  return out;
}

/**
 * Make outside text inert markdown for a paragraph or a table cell: HTML-escaped, mentions and `#123`
 * references broken, link/emphasis/code/table/math punctuation as numeric entities, a leading list or heading
 * marker escaped, `<!--`/`-->` impossible, newlines as `<br>` (so a table row stays on one line).
 * Truncate before escaping, not after (an entity cut in half renders as garbage).
 */
export function escapeMarkdown(text: string): string {
  return clean(String(text)).split('\n').map(escapeLine).join('<br>');
}

/** Inline code that is safe for any content: `<code>` around escaped text (a backtick fence can be broken out of). */
export function codeSpan(text: string): string {
  // Markdown still applies inside raw `<code>`, so the full escape is needed, not only HTML's.
  return `<code>${escapeMarkdown(text)}</code>`;
}

/** Cut `text` to at most `max` UTF-16 units, ending with `…` when cut; never splits a surrogate pair. */
export function truncate(text: string, max: number): string {
  const s = String(text);
  if (s.length <= max) return s;
  if (max <= 0) return '';
  let end = max - 1;
  const last = s.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${s.slice(0, end)}…`;
}
