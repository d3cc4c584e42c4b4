/**
 * Production's and staging's Cube versions, from the deployment's versions list (`GET …/versions`):
 * production runs the entry marked current; staging and development environments run the newest Cube,
 * the head of the `latest` channel (docs/api-assumptions.md, "Cube versions"). Production's settings say
 * whether it holds that version (`releaseChannelVersionHold`): without a hold, the merge's deploy moves it
 * to the newest patch its channel lists. Then the pull request's model checked against the version
 * production will run (../model/version-skew.ts).
 */
import { AbortedError, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import type { FileTexts } from '../model/model-files.js';
import { compareVersions, parseVersion } from '../model/cube-keys.js';
import { refusedText, versionSkew, type Upgrades, type VersionSkew } from '../model/version-skew.js';
import type { OpContext } from './context.js';
import { repoPath } from './validate.js';

export interface CubeVersions {
  production?: string;
  staging?: string;
  /** The newest patch of production's minor its channel lists, when newer than production's. */
  newestPatch?: string;
  /** The head of production's channel, when of another minor with no newer patch of production's listed. */
  channelHead?: string;
  /** Whether production's version moves at the merge's deploy, as its settings say (`not-said` when they do not). */
  upgrades?: Upgrades;
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

const minorOf = (v: string) => v.split('.').slice(0, 2).join('.');

/** The versions as the list says them; a version it does not say stays unknown, never guessed. */
export function versionsOfList(items: readonly VersionEntry[]): CubeVersions {
  const current = items.find((e) => e.isCurrent);
  const production = current ? plainVersion(current) : undefined;
  const heads = items.filter((e) => e.releaseChannel === 'latest' && e.isLatestInChannel).map(plainVersion);
  const newest = (vs: (string | undefined)[]) =>
    vs
      .filter((v): v is string => !!v)
      .sort(compareVersions)
      .at(-1);
  const staging = newest(heads);
  // Automatic upgrades move production to a new patch of its minor in its own channel.
  const patches = production ? items.filter((e) => e.releaseChannel === current?.releaseChannel).map(plainVersion) : [];
  const newestPatch = production ? newest(patches.filter((v) => v && minorOf(v) === minorOf(production) && compareVersions(v, production) > 0)) : undefined;
  // Its channel's head on another minor, and no newer patch of production's listed: the list may not show every patch.
  const channelHead = newest(items.filter((e) => e.releaseChannel === current?.releaseChannel && e.isLatestInChannel).map(plainVersion));
  const headElsewhere = !!production && !newestPatch && !!channelHead && minorOf(channelHead) !== minorOf(production);
  const missing = [production ? '' : 'marks no version current', staging ? '' : 'names no head of the latest channel'].filter(Boolean);
  return {
    ...(production ? { production } : {}),
    ...(staging ? { staging } : {}),
    ...(newestPatch ? { newestPatch } : {}),
    ...(headElsewhere ? { channelHead } : {}),
    ...(missing.length ? { problem: `the versions list ${missing.join(' and ')}` } : {}),
  };
}

/** `releaseChannelVersionHold` as the settings give it: a boolean says; null, absent or unreadable does not. */
export function upgradesOf(settings: { releaseChannelVersionHold?: boolean | null } | undefined): Upgrades {
  const hold = settings?.releaseChannelVersionHold;
  return hold === true ? 'held' : hold === false ? 'automatic' : 'not-said';
}

/** Read the deployment's versions list and settings; a list that cannot be read is a problem said, not a failure. */
export async function readCubeVersions(ctx: OpContext): Promise<CubeVersions> {
  const settings = ctx.client.deployments.settings({ deploymentId: ctx.deploymentId }, { signal: ctx.signal }).catch((e: unknown) => {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return undefined;
  });
  try {
    const items = await collect(ctx.client.deployments.iterateVersions({ deploymentId: ctx.deploymentId }, { signal: ctx.signal }));
    return { ...versionsOfList(items), upgrades: upgradesOf(await settings) };
  } catch (e) {
    await settings.catch(() => undefined);
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
  const { production, staging, afterMerge } = skew;
  const runs = afterMerge ?? production;
  if (read.problem) skew.unchecked = `${read.problem}${skew.unchecked ? `; ${skew.unchecked}` : ''}`;
  if (afterMerge)
    ctx.reporter.notice(
      `Cube versions: production runs ${production} now; production will run ${afterMerge} after the merge's deploy (automatic patch upgrades)`,
    );
  if (runs && staging && runs !== staging)
    ctx.reporter.notice(
      `Cube versions: production ${afterMerge ? 'will run' : 'runs'} ${runs}, staging ${staging}: a key staging accepts may be refused by production`,
    );
  if (skew.unchecked) ctx.reporter.notice(`Cube versions: ${skew.unchecked}`);
  for (const r of skew.refused)
    ctx.reporter.error(
      `${r.file}:${r.line}: ${refusedText(r)} needs Cube ${r.version}; production ${afterMerge ? 'will run' : 'runs'} ${runs ?? 'an older one'}`,
      {
        file: modelDir ? repoPath(modelDir, r.file) : r.file,
        line: r.line,
        title: 'Refused by production’s Cube version',
      },
    );
  for (const r of skew.notKnown)
    ctx.reporter.warning(
      `${r.file}:${r.line}: ${refusedText(r)} is not known to be accepted by production's Cube (first covered version accepting it: ${r.version}): ${skew.notKnownWhy ?? ''}`,
      {
        file: modelDir ? repoPath(modelDir, r.file) : r.file,
        line: r.line,
        title: 'Not known to production’s Cube version',
      },
    );
  return skew;
}
