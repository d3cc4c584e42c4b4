/**
 * The team's personas: a committed YAML or JSON file (input `personas`, CLI `--personas`), read and
 * checked before the first platform call. Its form (docs/impact.md):
 *
 *   personas:
 *     - name: finance analyst
 *       groups: [finance]
 *       securityContext: { region: EU }
 *
 * Every problem names the input, the file and the first item that is wrong.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { InputError } from './client/errors.js';
import { DEFAULTS } from './defaults.js';
import type { AccessSettings } from './settings.js';
import type { Persona } from './impact/access/types.js';

const INPUT = 'personas';
const FORM = 'a YAML or JSON file holding { personas: [ { name, groups?: [..], securityContext?: {..} } ] }';
const PERSONA_KEYS = new Set(['name', 'groups', 'securityContext', 'security_context']);
/** Names show in comments and outputs: one short line. */
const NAME_MAX = 64;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The persona's groups, given in up to three places (`groups`, `securityContext.groups`,
 * `securityContext.cubeCloud.groups`): every place given must name the same groups, or the file is refused
 * (the tokens carry one list at both claims; two lists would make the persona's view the deployment's
 * choice of claim). The one list, deduplicated; none given: no group.
 */
function oneGroupList(path: string, at: string, groups: string[] | undefined, context: Record<string, unknown>): string[] {
  const cubeCloud = context.cubeCloud;
  if (cubeCloud !== undefined && !isObject(cubeCloud)) throw new InputError(INPUT, path, `a file whose ${at}.securityContext.cubeCloud is a map (an object)`);
  const given: { where: string; list: string[] }[] = groups ? [{ where: `${at}.groups`, list: groups }] : [];
  for (const [where, value] of [
    [`${at}.securityContext.groups`, context.groups],
    [`${at}.securityContext.cubeCloud.groups`, cubeCloud?.groups],
  ] as const) {
    if (value === undefined) continue;
    if (!Array.isArray(value) || !value.every((g) => typeof g === 'string' && g.trim() !== ''))
      throw new InputError(INPUT, path, `a file whose ${where} is a list of group names (strings)`);
    given.push({ where, list: value as string[] });
  }
  const key = (l: string[]) => [...new Set(l)].sort().join('\u0000');
  const differ = given.find((g) => key(g.list) !== key(given[0]!.list));
  if (differ)
    throw new InputError(
      INPUT,
      path,
      `a file whose ${at} names its groups once, or the same groups wherever it names them (${given[0]!.where} is ${JSON.stringify(given[0]!.list)}, ${differ.where} is ${JSON.stringify(differ.list)}): the tokens carry one list at both claims`,
    );
  return [...new Set(given[0]?.list ?? [])];
}

/** Parse and check the text of a personas file; `path` names it in errors. */
export function parsePersonas(text: string, path: string): Persona[] {
  // The YAML reader reads JSON too (JSON is YAML); duplicate keys are refused rather than silently overwritten.
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new InputError(INPUT, path, `${FORM} (line ${e.linePos?.[0]?.line ?? 1}: ${e.message.split('\n')[0]})`);
  }
  const body: unknown = doc.toJS();
  const items = isObject(body) ? body.personas : Array.isArray(body) ? body : undefined;
  if (!Array.isArray(items)) throw new InputError(INPUT, path, FORM);
  if (!items.length) throw new InputError(INPUT, path, 'a file naming at least one persona (remove the input to review no persona)');
  if (items.length > DEFAULTS.accessMaxPersonas)
    throw new InputError(INPUT, path, `at most ${DEFAULTS.accessMaxPersonas} personas (the file has ${items.length}): each one is read on every push`);
  const names = new Set<string>();
  return items.map((item, i) => {
    const at = `personas[${i}]`;
    if (!isObject(item)) throw new InputError(INPUT, path, `a file whose ${at} is a map with a name`);
    const unknown = Object.keys(item).find((k) => !PERSONA_KEYS.has(k));
    if (unknown) throw new InputError(INPUT, path, `a file whose ${at} has only name, groups and securityContext (it has ${JSON.stringify(unknown)})`);
    const name = typeof item.name === 'string' ? item.name.trim() : '';
    if (!name || name.length > NAME_MAX || /[\r\n]/.test(name))
      throw new InputError(INPUT, path, `a file whose ${at}.name is a non-empty one-line string of at most ${NAME_MAX} characters`);
    if (names.has(name)) throw new InputError(INPUT, path, `a file whose persona names are unique (${at}.name ${JSON.stringify(name)} is used twice)`);
    names.add(name);
    const groups = item.groups ?? [];
    if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string' && g.trim() !== ''))
      throw new InputError(INPUT, path, `a file whose ${at}.groups is a list of group names (strings)`);
    if (item.securityContext !== undefined && item.security_context !== undefined)
      throw new InputError(INPUT, path, `a file whose ${at} gives securityContext once (it has securityContext and security_context)`);
    const context = item.securityContext ?? item.security_context ?? {};
    if (!isObject(context)) throw new InputError(INPUT, path, `a file whose ${at}.securityContext is a map (an object)`);
    return { name, groups: oneGroupList(path, at, item.groups === undefined ? undefined : (groups as string[]), context), securityContext: context };
  });
}

/** Read the personas file the settings name (none given: no persona). */
export async function readPersonas(settings: AccessSettings): Promise<Persona[]> {
  const path = settings.personasFile;
  if (!path) return [];
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new InputError(INPUT, path, `a readable YAML or JSON file of personas (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parsePersonas(text, path);
}
