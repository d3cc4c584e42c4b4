/** Setup of `npm run test:unit` (vitest.unit.config.ts): no sockets, no listening, no processes. */
import { refuseSockets } from './no-sockets.js';

refuseSockets();
