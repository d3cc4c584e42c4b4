/** Every handler of the emulator, by endpoint id. */
import { accountHandlers } from './account/index.js';
import { buildHandlers } from './build/provider.js';
import { contentHandlers } from './content/index.js';
import type { HandlerTable } from './context.js';
import { dbtHandlers } from './dbt/provider.js';
import { deploymentHandlers } from './deployments/provider.js';

export const handlers: HandlerTable = {
  ...deploymentHandlers,
  ...buildHandlers,
  ...dbtHandlers,
  ...contentHandlers,
  ...accountHandlers,
};
