/**
 * What each platform tool (the commands that are not actions) takes: its flags, arguments and example.
 * Kept apart from what the commands do, so the command table, help and completion load none of it.
 */
import { COMMON_INPUTS } from '../action-spec.js';
import { cliFlag, CONNECTION_FLAGS, inputFlags, JSON_FLAG, VERBOSE_FLAG, type CommandSpec } from './spec.js';

/** A command's table entry without its run (the command table adds it, loaded on first use). */
export type ToolSpec = Omit<CommandSpec, 'run'>;

export const checkSpec: ToolSpec = {
  name: 'check',
  summary: 'Check the address and the key: list the deployments the key can see, with their ids.',
  flags: [...CONNECTION_FLAGS, JSON_FLAG],
  example: 'datamodel-ci check --api-url https://acme.cubecloud.dev',
  action: false,
};

/** The inputs of `doctor`: the connection, the deployment and dry run. */
export const DOCTOR_INPUTS = COMMON_INPUTS.filter((i) =>
  ['api-url', 'api-key', 'auth-scheme', 'ca-cert', 'request-timeout', 'deployment-id', 'dry-run'].includes(i.name),
);

export const doctorSpec: ToolSpec = {
  name: 'doctor',
  summary: 'Check a real tenant first, on a throwaway branch it removes: upload path, hashes, build states, validation errors, staging URL, auth scheme.',
  description:
    'One line per check (✓, ✗ or -) on stdout as it is made, then the verdict; exit 1 when a check failed. --dry-run only reads: the checks that write are listed as not made.',
  flags: [...inputFlags(DOCTOR_INPUTS), JSON_FLAG, VERBOSE_FLAG],
  example: 'datamodel-ci doctor --deployment-id 1 --dry-run',
  action: false,
};

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const apiSpec: ToolSpec = {
  name: 'api',
  summary: 'Send one request to the platform API and print its JSON answer (secrets masked).',
  args: { usage: '<METHOD> <PATH>', min: 0, max: 2, values: API_METHODS },
  flags: [...CONNECTION_FLAGS, cliFlag('data', 'JSON body of the request.', false), JSON_FLAG],
  example: 'datamodel-ci api GET /api/v1/deployments/1',
  action: false,
};

export const endpointsSpec: ToolSpec = {
  name: 'endpoints',
  summary: 'List every platform API operation the client knows (method, path, spec section).',
  flags: [JSON_FLAG],
  example: 'datamodel-ci endpoints --json',
  action: false,
};

export const hashModelSpec: ToolSpec = {
  name: 'hash-model',
  summary: 'List and hash a model folder as an upload does: files, bytes, time and peak memory.',
  args: { usage: '<DIR>', min: 1, max: 1 },
  flags: [JSON_FLAG],
  example: 'datamodel-ci hash-model analytics --json',
  action: false,
  hidden: true,
};
