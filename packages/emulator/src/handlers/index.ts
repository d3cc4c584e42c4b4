/** Every handler of the emulator, by endpoint id. */
import type { HandlerTable } from '../context.js';
import { accountHandlers } from './account.js';
import { buildHandlers } from './build.js';
import { contentHandlers } from './content.js';
import { dbtHandlers } from './dbt.js';
import { deploymentHandlers } from './deployments.js';

export const handlers: HandlerTable = {
  ...deploymentHandlers,
  ...buildHandlers,
  ...dbtHandlers,
  ...contentHandlers,
  ...accountHandlers,
};
