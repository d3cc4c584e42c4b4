/** `hash-model <dir>` (hidden; bench/): list and hash a model dir as an upload does; files, bytes and peak RSS. */
import { readFileSync } from 'node:fs';
import type { Io } from '../io.js';
import { scanModel } from '../model/local-model.js';
import { parseFor } from './spec.js';
import { hashModelSpec } from './specs.js';

/**
 * The peak resident set size of this program, bytes. Linux's VmHWM is this program's own; getrusage's
 * maxRSS also counts the process it was forked from (a large parent, such as the bench, inflates it).
 */
function peakRssBytes(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // Not Linux: getrusage's figure.
  }
  return process.resourceUsage().maxRSS * 1024;
}

export async function hashModelCommand(argv: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseFor(hashModelSpec, argv);
  const dir = positionals[0] as string;
  const started = Date.now();
  const files = await scanModel(dir);
  const result = {
    files: files.length,
    bytes: files.reduce((a, f) => a + f.size, 0),
    ms: Date.now() - started,
    maxRssBytes: peakRssBytes(),
  };
  io.out(flags.json ? JSON.stringify(result) : `${result.files} files, ${result.bytes} bytes in ${result.ms} ms; peak RSS ${result.maxRssBytes} bytes`);
  return 0;
}
