/** Reading one file of the agents folder: its fields checked one by one, each mistake a finding on its line. */
import type { Entry, TreeNode } from '../locate/model-tree.js';
import type { AgentsFinding, Place } from './types.js';

/** How a node reads in a message: what was written instead of what was expected. */
export function shapeOf(node: TreeNode): string {
  if (node.kind === 'map') return 'a mapping';
  if (node.kind === 'list') return 'a list';
  return node.text === undefined ? 'empty' : JSON.stringify(node.text);
}

export class FileReader {
  constructor(
    readonly file: string,
    readonly findings: AgentsFinding[],
    /** Lines to add to the tree's (a Markdown file's frontmatter starts on its second line). */
    private readonly offset = 0,
  ) {}

  at(line: number): Place {
    return { file: this.file, line: line + this.offset };
  }

  error(line: number, rule: string, message: string): void {
    this.findings.push({ ...this.at(line), level: 'error', rule, message });
  }

  warn(line: number, rule: string, message: string): void {
    this.findings.push({ ...this.at(line), level: 'warning', rule, message });
  }

  /** The entry of `key` exactly as written (the agents' files use one spelling per key). */
  entry(node: TreeNode | undefined, key: string): Entry | undefined {
    return node?.kind === 'map' ? node.entries.find((e) => e.key === key) : undefined;
  }

  /** A string field; a missing required one, or a list or mapping where text belongs, is an error. */
  text(node: TreeNode, key: string, what: string, required = false): { text: string; at: Place } | undefined {
    const e = this.entry(node, key);
    if (!e || (e.value.kind === 'scalar' && e.value.text === undefined)) {
      if (required) this.error(e?.at.line ?? node.start.line, 'required', `${what} has no \`${key}\`: it is required`);
      return undefined;
    }
    if (e.value.kind !== 'scalar') {
      this.error(e.at.line, 'shape', `\`${key}\` of ${what} is ${shapeOf(e.value)}; expected text`);
      return undefined;
    }
    return { text: e.value.text as string, at: this.at(e.at.line) };
  }

  /** A field that takes one of a few words. */
  oneOf(node: TreeNode, key: string, what: string, allowed: readonly string[], required = false): string | undefined {
    const v = this.text(node, key, what, required);
    if (v && !allowed.includes(v.text)) {
      this.error(
        v.at.line - this.offset,
        'value',
        `\`${key}\` of ${what} is ${JSON.stringify(v.text)}; expected ${allowed.map((a) => `\`${a}\``).join(' or ')}`,
      );
      return undefined;
    }
    return v?.text;
  }

  /** Keys the documents do not describe: a warning each (the platform's own check may refuse them). */
  knownKeys(node: TreeNode, what: string, allowed: readonly string[]): void {
    for (const e of node.kind === 'map' ? node.entries : [])
      if (!allowed.includes(e.key)) this.warn(e.at.line, 'unknown-key', `${what} has \`${e.key}\`, which is not a property it takes (${allowed.join(', ')})`);
  }

  /** A list field's items; anything but a list is an error. */
  list(node: TreeNode, key: string, what: string): TreeNode[] {
    const e = this.entry(node, key);
    if (!e || (e.value.kind === 'scalar' && e.value.text === undefined)) return [];
    if (e.value.kind !== 'list') {
      this.error(e.at.line, 'shape', `\`${key}\` of ${what} is ${shapeOf(e.value)}; expected a list`);
      return [];
    }
    return e.value.items;
  }

  /** A list item that must be a mapping. */
  mapping(item: TreeNode, what: string): boolean {
    if (item.kind === 'map') return true;
    this.error(item.start.line, 'shape', `${what} is ${shapeOf(item)}; expected a mapping with \`name\``);
    return false;
  }
}
