/** `api <METHOD> <PATH>`: send one request to the platform API and print the answer (secrets masked). */
import { InputError } from '../client/errors.js';
import { HttpClient, type HttpMethod } from '../client/http.js';
import type { Io } from '../io.js';
import { UsageError } from './args.js';
import { connectionOptions } from './connection.js';
import { parseFor } from './spec.js';
import { API_METHODS as METHODS, apiSpec } from './specs.js';

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function apiCommand(argv: string[], io: Io): Promise<number> {
  const { flags, positionals } = parseFor(apiSpec, argv);
  const [method, path] = positionals;
  if (!method || !METHODS.includes(method.toUpperCase())) {
    throw new UsageError(`api: expected a method (${METHODS.join(', ')}) and a path, got ${JSON.stringify(positionals)}`);
  }
  if (!path || !path.startsWith('/')) throw new UsageError(`api: expected a path starting with "/", got ${JSON.stringify(path ?? '')}`);
  let json: unknown;
  if (typeof flags.data === 'string') {
    try {
      json = JSON.parse(flags.data);
    } catch (e) {
      throw new InputError('--data', flags.data, `JSON (${(e as Error).message})`);
    }
  }
  const http = new HttpClient(connectionOptions(flags, io));
  try {
    const res = await http.send({ method: method.toUpperCase() as HttpMethod, path, json });
    const text = res.text ?? '';
    http.redactor.harvest(safeJson(text));
    io.out(http.redactor.redactText(text));
    return 0;
  } finally {
    await http.close();
  }
}
