/** `hash-model <dir>` (hidden; bench/): list and hash a model dir as an upload does; files, bytes and peak RSS. */
import type { Io } from '../io.js';
import { scanModel } from '../model/local-model.js';
import { JSON_FLAG, parseFor, type CommandSpec } from './spec.js';

export const hashModel: CommandSpec = {
  name: 'hash-model',
  summary: 'List and hash a model folder as an upload does: files, bytes, time and peak memory.',
  args: { usage: '<DIR>', min: 1, max: 1 },
  flags: [JSON_FLAG],
  example: 'datamodel-ci hash-model analytics --json',
  action: false,
  hidden: true,
  run: hashModelCommand,
};

export async function hashModelCommand(argv: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseFor(hashModel, argv);
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
