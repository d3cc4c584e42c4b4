/** The control API under `/_emulator/` (admin key): the clock, fault injection, the next dbt sync's failure, the state. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from './auth.js';
import type { Clock } from './clock.js';
import { HttpError, type Controls } from './context.js';
import { parseFaults, type FaultInjector } from './faults.js';
import { send } from './http.js';
import type { State } from './state.js';

/** What the control routes steer. */
export interface Steering {
  state: State;
  clock: Clock;
  controls: Controls;
  faults: FaultInjector;
}

export function serveControl(s: Steering, req: IncomingMessage, res: ServerResponse, method: string, path: string, raw: Buffer): void {
  const { clock, controls, faults } = s;
  const principal = authenticate(s.state, clock, undefined, req.headers.authorization);
  if (!principal.user.isAdmin) throw new HttpError(403, 'the control API needs the admin key');
  let body: Record<string, unknown> = {};
  if (raw.length) {
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new HttpError(400, 'body: malformed JSON');
    }
  }
  if (method === 'POST' && path === '/_emulator/clock/advance') {
    const ms = Number(body.ms);
    if (!(ms >= 0)) throw new HttpError(400, `ms: got ${JSON.stringify(body.ms)}, expected a non-negative number`);
    clock.advance(ms);
    return send(res, 200, clock.describe());
  }
  if (method === 'GET' && path === '/_emulator/clock') return send(res, 200, clock.describe());
  if (method === 'POST' && path === '/_emulator/faults') {
    faults.set(parseFaults(String(body.spec ?? '')));
    return send(res, 200, { injected: faults.injected });
  }
  if (method === 'GET' && path === '/_emulator/faults') return send(res, 200, { injected: faults.injected });
  if (method === 'POST' && path === '/_emulator/dbt-sync/fail-next') {
    controls.failNextDbtSync = { phase: String(body.phase ?? 'parse'), message: String(body.message ?? 'dbt parse failed') };
    return send(res, 200, controls.failNextDbtSync);
  }
  if (method === 'GET' && path === '/_emulator/state') return send(res, 200, s.state);
  throw new HttpError(404, `no such control route: ${method} ${path}`);
}
