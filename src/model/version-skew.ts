/**
 * The Cube version skew: staging compiles the pull request's model with the newest Cube while production
 * runs its channel's version, so a key that validates on staging can be refused by production after the
 * merge. Pure: the model files and the versions in (production's now, and the one its merge's deploy
 * moves it to under automatic patch upgrades), each key (or enumerated value) production refuses out,
 * with its file and line, read from the committed table of Cube's own validators. A version the table
 * does not cover is judged by the covered versions around it: what they disagree on is "not known",
 * never refused on a guess.
 */
import { acceptsKey, acceptsValue, compareVersions, coverageOf, coveredByMinor, coveredVersions, enumerated, firstAccepting, knownKey } from './cube-keys.js';
import { ModelSet, type ModelTexts } from './locate/model-set.js';
import { itemName, type TreeNode } from './locate/model-tree.js';

/** A key (or a value of it) the pull request's model uses that production's Cube refuses. */
export interface RefusedKey {
  /** Where it is, as written: `orders.measures.total.mask`. */
  key: string;
  /** The value production refuses at the key (a measure `type`, a join `relationship`), when it is the value. */
  value?: string;
  file: string;
  line: number;
  /** The first covered Cube version that accepts it. */
  version: string;
}

/** A key production's Cube may refuse or accept: the covered versions around it (or its two candidates) disagree. */
export type NotKnownKey = RefusedKey;

/** Whether production's Cube moves at the merge's deploy (`releaseChannelVersionHold` in its settings). */
export type Upgrades = 'automatic' | 'held' | 'not-said';

/** The versions the check reads: production's now, staging's, and what production's channel offers. */
export interface ProductionVersions {
  /** Production's version now (the versions list's current entry). */
  production?: string;
  staging?: string;
  /** The newest patch of production's minor its channel lists, when newer than production's. */
  newestPatch?: string;
  upgrades?: Upgrades;
  /** The head of production's channel, when it is of another minor and the list shows no newer patch of production's. */
  channelHead?: string;
}

/** The versions, and what production's refuses (or may refuse) of the pull request's model. */
export interface VersionSkew extends ProductionVersions {
  /** The version production runs after the merge's deploy, when its automatic patch upgrade moves it. */
  afterMerge?: string;
  /** The versions production may run after the merge, which the model was checked against. */
  checkedAgainst?: string[];
  refused: RefusedKey[];
  /** Keys no covered version (or candidate) settles: a warning, never a failure. */
  notKnown: NotKnownKey[];
  /** Why some keys are not known (the covered versions around production's, an upgrade the settings do not say). */
  notKnownWhy?: string;
  /** Why the model was not checked (production's version unknown, or older than the table). */
  unchecked?: string;
}

type Verdict = 'accepts' | 'refuses' | 'not-known';
/** How a running version judges a key path, or a value at it. */
type Judge = (path: string, value?: string) => Verdict;

const accepted = (version: string, path: string, value?: string) => (value === undefined ? acceptsKey(version, path) : acceptsValue(version, path, value));

/**
 * The judge of a running version: a covered one says yes or no; one between two covered versions
 * follows them where they agree and is not known where they differ; one newer than the table follows
 * the newest covered where it accepts (a key refused there may have come since). Undefined when the
 * version is not plain or older than the table.
 */
export function judgeOf(running: string): Judge | undefined {
  const c = coverageOf(running);
  if (!c) return undefined;
  if ('exact' in c) return (path, value) => (accepted(c.exact, path, value) ? 'accepts' : 'refuses');
  const { older, newer } = c;
  if (!older) return undefined;
  if (!newer) return (path, value) => (accepted(older, path, value) ? 'accepts' : 'not-known');
  return (path, value) => {
    const [a, b] = [accepted(older, path, value), accepted(newer, path, value)];
    return a === b ? (a ? 'accepts' : 'refuses') : 'not-known';
  };
}

/** Several candidates' judges as one: refused when every one refuses, accepted when every one accepts. */
function together(judges: readonly Judge[]): Judge {
  return (path, value) => {
    const all = judges.map((j) => j(path, value));
    return all.every((v) => v === 'refuses') ? 'refuses' : all.every((v) => v === 'accepts') ? 'accepts' : 'not-known';
  };
}

const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Every key of the model files the judge refuses or cannot settle (a key refused takes what is under it). */
export function judgeKeys(texts: ModelTexts, judge: Judge): { refused: RefusedKey[]; notKnown: NotKnownKey[] } {
  const refused: RefusedKey[] = [];
  const notKnown: NotKnownKey[] = [];
  const put = (verdict: Verdict, k: RefusedKey) => (verdict === 'refuses' ? refused : notKnown).push(k);
  for (const file of new ModelSet(texts).models()) {
    const visit = (node: TreeNode, path: string, shown: string) => {
      const step = (child: TreeNode, next: string, name: string, line: number) => {
        const own = judge(next);
        if (own !== 'accepts') {
          // The key itself is refused (or unsettled): what is under it goes with it.
          put(own, { key: name, file: file.path, line, version: firstAccepting(next) as string });
          return;
        }
        const value = child.kind === 'scalar' ? child.text : undefined;
        // YAML writes `count_distinct` where the validator (after Cube's YAML reading) sees `countDistinct`.
        const listed = value === undefined ? undefined : [value, camelCase(value)].find((v) => enumerated(next)?.includes(v));
        const of = value !== undefined && listed !== undefined ? judge(next, listed) : 'accepts';
        if (value !== undefined && listed !== undefined && of !== 'accepts')
          put(of, { key: name, value, file: file.path, line, version: firstAccepting(next, listed) as string });
        visit(child, next, name);
      };
      for (const entry of node.kind === 'map' ? node.entries : []) {
        // A list item's `name` is what YAML names the item by, not a key (older Cubes refuse `joins.*.name`).
        if (entry.key === 'name' && path.endsWith('.*')) continue;
        const own = `${path}.${camelCase(entry.key)}`;
        // A key Cube knows, else a member's (or any) name under a map of names; a key no covered version knows is the validation's to report.
        const next = knownKey(own) ? own : knownKey(`${path}.*`) ? `${path}.*` : undefined;
        if (next) step(entry.value, next, `${shown}.${entry.key}`, entry.at.line);
      }
      if (node.kind === 'list' && knownKey(`${path}.*`))
        node.items.forEach((item, i) =>
          step(item, `${path}.*`, itemName(item) === undefined ? `${shown}[${i}]` : `${shown}.${itemName(item)}`, item.start.line),
        );
    };
    for (const entity of file.entities) visit(entity.body, entity.kind, entity.name ?? entity.kind);
  }
  const order = (a: RefusedKey, b: RefusedKey) => a.file.localeCompare(b.file) || a.line - b.line;
  return { refused: refused.sort(order), notKnown: notKnown.sort(order) };
}

/** Every key of the model files that `version` (a covered one) refuses while another covered version accepts it. */
export const refusedKeys = (texts: ModelTexts, version: string): RefusedKey[] =>
  judgeKeys(texts, (path, value) => (accepted(version, path, value) ? 'accepts' : 'refuses')).refused;

const minorOf = (v: string) => v.split('.').slice(0, 2).join('.');

/**
 * Where the list shows no newer patch of production's minor while its channel's head is of another one,
 * the newest patch an upgrade may bring is not listed: the newest covered patch of the minor stands in.
 */
function unlistedPatch(v: ProductionVersions): string | undefined {
  const { production, newestPatch, upgrades, channelHead } = v;
  if (!production || newestPatch || upgrades === 'held' || !channelHead) return undefined;
  const last = coveredByMinor()
    .find((m) => m.minor === minorOf(production))
    ?.patches.at(-1);
  return last && compareVersions(last, production) > 0 ? last : undefined;
}

/** The versions production may run after the merge: its own, the channel's newest patch, or both when the settings (or the list) do not say. */
export function candidatesOf(v: ProductionVersions): string[] {
  const { production, newestPatch, upgrades } = v;
  if (!production) return [];
  const unlisted = unlistedPatch(v);
  if (unlisted) return [production, unlisted];
  if (!newestPatch || newestPatch === production || upgrades === 'held') return [production];
  return upgrades === 'automatic' ? [newestPatch] : [production, newestPatch];
}

/** Why a candidate between covered versions leaves keys unsettled, naming the nearest covered versions. */
function gapText(version: string): string | undefined {
  const c = coverageOf(version);
  if (!c || 'exact' in c) return undefined;
  if (!c.newer) return `Cube ${version} is newer than the key table's newest covered version ${c.older}: a key ${c.older} refuses may have come since`;
  return `the key table does not cover Cube ${version}: the nearest covered versions are ${c.older} and ${c.newer}, and a key one accepts and the other refuses is not known for ${version}`;
}

/** The skew between production's Cube (as it will run after the merge) and staging's, for this model. */
export function versionSkew(texts: ModelTexts | undefined, versions: ProductionVersions): VersionSkew {
  const { production, staging, newestPatch, upgrades } = versions;
  const known: VersionSkew = {
    ...(versions.channelHead ? { channelHead: versions.channelHead } : {}),
    ...(production ? { production } : {}),
    ...(staging ? { staging } : {}),
    ...(newestPatch ? { newestPatch } : {}),
    ...(upgrades ? { upgrades } : {}),
    refused: [],
    notKnown: [],
  };
  if (!production) return { ...known, unchecked: "production's Cube version is unknown: the model was not checked against it" };
  const candidates = candidatesOf(versions);
  if (upgrades === 'automatic' && candidates[0] !== production) known.afterMerge = candidates[0];
  // Staging validated the model with the version production will run: nothing to check, nothing to say.
  if (candidates.every((c) => c === staging)) return { ...known, checkedAgainst: candidates };
  if (!texts) return { ...known, unchecked: "the pull request's model files were not read: the model was not checked against production's Cube" };
  const judges = candidates.map((c) => (c === staging ? () => 'accepts' as const : judgeOf(c)));
  const outside = candidates.filter((_, i) => !judges[i]);
  if (outside.length) {
    const covered = coveredVersions();
    return {
      ...known,
      unchecked: `production may run Cube ${outside.join(' or ')}, which the key table does not cover (its oldest covered version is ${covered[0]}, its newest ${covered.at(-1)}): the model was not checked against it`,
    };
  }
  const found = judgeKeys(texts, together(judges as Judge[]));
  const why = [
    ...candidates.filter((c) => c !== staging).map(gapText),
    unlistedPatch(versions)
      ? `the versions list shows no patch of ${minorOf(production)} newer than ${production} on production's channel (its head is ${versions.channelHead}): an automatic patch upgrade at the merge's deploy may bring one, read here as up to ${candidates[1]}, the newest the key table covers`
      : candidates.length > 1
        ? `the deployment's settings do not say whether production holds its version (releaseChannelVersionHold): it runs ${production} now and would run ${newestPatch} after the merge's deploy with automatic patch upgrades`
        : undefined,
  ].filter((w): w is string => !!w);
  return { ...known, checkedAgainst: candidates, ...found, ...(found.notKnown.length && why.length ? { notKnownWhy: why.join('; ') } : {}) };
}

/** `orders.measures.total.mask` or `orders.measures.total.type: numberAgg`. */
export const refusedText = (r: RefusedKey): string => (r.value === undefined ? r.key : `${r.key}: ${r.value}`);
