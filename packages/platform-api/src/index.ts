/** The platform API contract: every endpoint (method, path, zod schemas) and the records it carries. */
import type { Endpoint } from './endpoint.js';
import { routeTable } from './generated/areas.js';

export * from './endpoint.js';
export * from './input.js';
export * from './primitives.js';
export * from './records.js';
export * from './branch-names.js';
export * from './generated/areas.js';
export { endpoints } from './generated/endpoints.js';
/** Every generated record schema, by the vendor's component name (`In` suffix: the request form of a shared one). */
export * as schemas from './generated/schemas.js';

/** All endpoints as a flat list. */
export function allEndpoints(): Endpoint[] {
  return Object.values(routeTable).flatMap((area) => Object.values(area) as Endpoint[]);
}
