/** `endpoints`: every API operation the client knows (method, path, spec section, operation id). */
import { allEndpoints } from '../client/client.js';
import type { Io } from '../io.js';
import { parseFor } from './spec.js';
import { endpointsSpec } from './specs.js';

export function endpointsCommand(argv: string[], io: Io): Promise<number> {
  const { flags } = parseFor(endpointsSpec, argv);
  const list = allEndpoints().map((e) => ({ id: e.id, method: e.method, path: e.path, section: e.section }));
  if (flags.json) io.out(JSON.stringify(list, null, 2));
  else for (const e of list) io.out(`${e.method.padEnd(6)} ${e.path}  (${e.section}, ${e.id})`);
  return Promise.resolve(0);
}
