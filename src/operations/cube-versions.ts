/**
 * Production's and staging's Cube versions, from the deployment's versions list (`GET …/versions`):
 * production runs the entry marked current; staging and development environments run the newest Cube,
 * the head of the `latest` channel (docs/api-assumptions.md, "Cube versions"). Then the pull request's
 * model checked against production's version (../model/version-skew.ts).
 */
import { AbortedError, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import type { FileTexts } from '../model/model-files.js';
import { compareVersions, parseVersion } from '../model/cube-keys.js';
import { refusedText, versionSkew, type VersionSkew } from '../model/version-skew.js';
import type { OpContext } from './context.js';
import { repoPath } from './validate.js';

export interface CubeVersions {
  production?: string;
  staging?: string;
  /** Why a version is not known (the list could not be read, or names none). */
  problem?: string;
}

interface VersionEntry {
  version: string;
  releaseChannelVersion?: string;
  releaseChannel?: string;
  isLatestInChannel?: boolean;
  isCurrent?: boolean;
}

/** `1.7.20`, or the version of an image reference (`cubejs/cube:v1.7.20`) when `version` is not plain. */
function plainVersion(e: VersionEntry): string | undefined {
  for (const v of [e.version, e.releaseChannelVersion?.replace(/^.*:/, '')]) if (v && parseVersion(v)) return (parseVersion(v) as number[]).join('.');
  return undefined;
}

/** The two versions as the list says them; a version it does not say stays unknown, never guessed. */
export function versionsOfList(items: readonly VersionEntry[]): CubeVersions {
  const current = items.find((e) => e.isCurrent);
  const production = current ? plainVersion(current) : undefined;
  const heads = items.filter((e) => e.releaseChannel === 'latest' && e.isLatestInChannel).map(plainVersion);
  const staging = heads
    .filter((v): v is string => !!v)
    .sort(compareVersions)
    .at(-1);
  const missing = [production ? '' : 'marks no version current', staging ? '' : 'names no head of the latest channel'].filter(Boolean);
  return {
    ...(production ? { production } : {}),
    ...(staging ? { staging } : {}),
    ...(missing.length ? { problem: `the versions list ${missing.join(' and ')}` } : {}),
  };
}

/** Read the deployment's versions list; a list that cannot be read is a problem said, not a failure. */
export async function readCubeVersions(ctx: OpContext): Promise<CubeVersions> {
  try {
    const items = await collect(ctx.client.deployments.iterateVersions({ deploymentId: ctx.deploymentId }, { signal: ctx.signal }));
    return versionsOfList(items);
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return { problem: `the deployment's Cube versions could not be read (${messageOf(e)})` };
  }
}

/**
 * Read the versions and check the model against production's; says what it found on the reporter, each
 * refused key an error annotation on its file in the repository (`modelDir` + the model file's path).
 */
export async function checkCubeVersions(ctx: OpContext, headFiles: FileTexts | undefined, modelDir?: string): Promise<VersionSkew> {
  const read = await readCubeVersions(ctx);
  const skew = versionSkew(headFiles, read);
  const { production, staging } = skew;
  if (read.problem) skew.unchecked = `${read.problem}${skew.unchecked ? `; ${skew.unchecked}` : ''}`;
  if (production && staging && production !== staging)
    ctx.reporter.notice(`Cube versions: production runs ${production}, staging ${staging}: a key staging accepts may be refused by production`);
  if (skew.unchecked) ctx.reporter.notice(`Cube versions: ${skew.unchecked}`);
  for (const r of skew.refused)
    ctx.reporter.error(`${r.file}:${r.line}: ${refusedText(r)} needs Cube ${r.version}; production runs ${production ?? 'an older one'}`, {
      file: modelDir ? repoPath(modelDir, r.file) : r.file,
      line: r.line,
      title: 'Refused by production’s Cube version',
    });
  return skew;
}
