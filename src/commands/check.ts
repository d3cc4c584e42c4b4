/** `check`: the connection and the key work; list the deployments the key can see. */
import { appendFileSync } from 'node:fs';
import { PlatformClient } from '../client/client.js';
import type { Io } from '../io.js';
import { connectionOptions } from './connection.js';
import { plural } from '../report/plural.js';
import { parseFor } from './spec.js';
import { checkSpec } from './specs.js';

export async function checkCommand(argv: string[], io: Io): Promise<number> {
  const { flags } = parseFor(checkSpec, argv);
  const client = new PlatformClient(connectionOptions(flags, io));
  try {
    const ids: { id: string | number; name: string }[] = [];
    // Both response forms of spec 4.1 (data.deployments and the vendor's items) are read by the area.
    for await (const d of client.deployments.iterate()) ids.push({ id: d.id, name: d.name });
    if (io.env.GITHUB_OUTPUT) appendFileSync(io.env.GITHUB_OUTPUT, `deployments=${ids.length}\n`);
    if (flags.json) io.out(JSON.stringify({ ok: true, deployments: ids }));
    else {
      io.out(`ok: ${client.http.baseUrl.origin} accepted the key; ${plural(ids.length, 'deployment')} visible`);
      for (const d of ids) io.out(`  ${d.id}  ${d.name}`);
    }
    return 0;
  } finally {
    await client.close();
  }
}
