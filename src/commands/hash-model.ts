/** `hash-model <dir>` (hidden; bench/): list and hash a model dir as an upload does; files, bytes and peak RSS. */
import type { Io } from '../io.js';
import { scanModel } from '../model/local-model.js';
import { parseFor } from './spec.js';
import { hashModelSpec } from './specs.js';

export async function hashModelCommand(argv: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseFor(hashModelSpec, argv);
  const dir = positionals[0] as string;
  const started = Date.now();
  const files = await scanModel(dir);
  const result = {
    files: files.length,
    bytes: files.reduce((a, f) => a + f.size, 0),
    ms: Date.now() - started,
    // Peak resident set size of this process so far (resourceUsage reports kilobytes).
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  io.out(flags.json ? JSON.stringify(result) : `${result.files} files, ${result.bytes} bytes in ${result.ms} ms; peak RSS ${result.maxRssBytes} bytes`);
  return 0;
}
