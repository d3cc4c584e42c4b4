/**
 * Tenant profiles: where the vendor's documents are silent, each plausible answer of a real tenant as a
 * switch (`--profile a,b`, `POST /_emulator/profiles`). The default emulator answers as the toolkit was
 * first written against; each profile answers one silent point another way. docs/emulator.md gives the
 * evidence behind each.
 */

export const PROFILES = [
  'github-connected',
  'duplicate-branch-400',
  'short-hash',
  'no-hash',
  'stale-build-status',
  'staging-cold',
  'environments-unpaged',
  'meta-token-scoped',
  'newer-staging-engine',
  'loose-answers',
  'lasthash-at-commit',
  'pull-needs-added-branch',
  'connected-later',
  'cli-with-repository',
  'project-untouched-no-build',
  'staging-needs-second-wake',
  'unknown-member-500',
  'stale-production-cache',
  'groups-top-level',
  'minted-context-drops-cubecloud',
  'dev-branches-listed-for-all',
  'push-syncs-added-branches',
  'blank-build-status',
  'create-500-existing',
  'another-repository-previews',
  'platform-written-files',
  'rollup-only',
  'live-hashes-served',
  'live-hashes-dev-session',
  'patch-upgrade-pending',
  'version-hold-null',
  'version-hold-unreported',
  'default-scopes-no-sql',
  'mint-ignores-scopes',
  'mint-refuses-uncompiled',
  'repo-type-deploy-repo',
  'groups-from-roles',
  'production-release-channel',
  'no-evaluations',
  'evaluation-incomplete',
  'evaluation-never-finishes',
  'evaluation-results-paged',
  'evaluation-list-without-branch',
  'evaluation-list-undated',
  'evaluation-flaky',
  'env-vars-all-masked',
] as const;

export type ProfileName = (typeof PROFILES)[number];

/** One line per profile: what the tenant does differently (`--help`, the control route's listing). */
export const PROFILE_SUMMARY: Record<ProfileName, string> = {
  'github-connected':
    'deployments fed from a connected GitHub repository: our branches become refs there (gone only with removeOnUpstream=true), pushes to main build production, merges into main are refused',
  'duplicate-branch-400': 'creating a branch that exists answers 400, not 409',
  'short-hash': 'build status reports 7-character hashes while upload/finish reports the full one',
  'no-hash': 'neither build status nor upload/finish reports a hash',
  'stale-build-status': 'after a change, build status shows the previous build as built for two more polls',
  'staging-cold': 'a staging environment is not active for a while after it is enabled and after it idles; one data request wakes it',
  'environments-unpaged': "the environments list answers whole (120 other teams' staging environments first) whatever offset and limit say, with no pagination",
  'meta-token-scoped': 'environment tokens cannot be minted, and a metadata token is refused by the data API (/meta included)',
  'newer-staging-engine': "production's /meta comes from the older Cube of its release channel, staging's from the newest",
  'loose-answers':
    'answers in every form a real service may use: ids as text, unknown fields, 202 for writes, 204 with no body for deletes, dates as HTTP dates, Retry-After as a date',
  'lasthash-at-commit':
    "build status's lastHash is the branch's head commit as soon as a commit lands; the next two reads still show the previous build as built, with the new hash",
  'pull-needs-added-branch':
    'pull of a repository branch not yet added to the deployment answers 404; dev mode on it (the branch switcher) adds it, then pull works',
  'connected-later':
    'deployments connected to a repository as with github-connected, but made by upload first: settings say creationMethod upload, deployMode git',
  'cli-with-repository':
    'deployments deploying from the CLI with a repository connected: branches mirror it (dotfiles .github/ and .gitignore included), production only from uploads, whose prune removes dotfiles',
  'project-untouched-no-build': 'on a repository-fed deployment, a push to the production branch that changes nothing under the project root builds nothing',
  'staging-needs-second-wake':
    'as staging-cold, but the first data request to an asleep staging environment does not wake it (503, still asleep); the next one does',
  'unknown-member-500': "the data API answers a query naming an unknown cube or member with 500 { error } (Cube's internal error) instead of 400 UserError",
  'stale-production-cache':
    "production's /load answers from a cache filled an hour ago, before the warehouse's last load (the demo data's last month), unless the request asks for fresh data (cache no-cache or must-revalidate)",
  'groups-top-level':
    "access policies read the user's groups from the token's top-level securityContext.groups (the deployment's own contextToGroups), not from securityContext.cubeCloud.groups",
  'dev-branches-listed-for-all':
    "the branch list shows every credential's dev-mode forks (a reviewer's session on a preview branch included), not only the caller's own",
  'minted-context-drops-cubecloud':
    "a token minted with a security context carries (and its answer echoes) the platform's own cubeCloud element in place of the one sent (no groups, no userAttributes): group policies never match such tokens",
  'push-syncs-added-branches':
    'on a deployment connected to a repository, a push to a branch already added to the platform syncs it at once (moved to the pushed commit, built if it runs), as the push webhook does; a later pull finds nothing new',
  'blank-build-status':
    'build status carries no buildJobId, updatedAt, lastHash or filesHash, and after a change it answers built (the old model still serving) for four reads while the new build runs, then building, then built',
  'create-500-existing': 'creating a branch whose name exists answers 500 (an internal error) and leaves the existing branch as it was',
  'another-repository-previews':
    "every deployment also holds another repository's live previews under the same prefix (preview-pr-1, -2, -3, preview-mq-2-<sha>): another credential's, staging on, built, a file each",
  'platform-written-files':
    'the deploy branch holds files the platform wrote itself under model/generated/ (a dbt pull, the AI assistant), absent from any repository; branches made from it inherit them',
  'rollup-only':
    "the data API's instances build no pre-aggregation (rollup-only mode beside a refresh worker): a /load planned on a table the shared Cube Store lacks is refused (400, Cube's 'No pre-aggregation partitions were built yet…') instead of building it",
  'live-hashes-served':
    "file-hashes?live=true answers the tree the branch's running instance serves (production's or a staging environment's last successful build), not the branch's git files: they differ after a failed build and while one runs",
  'live-hashes-dev-session':
    "file-hashes?live=true answers the caller's live-preview (dev-mode) tree of the branch: its dev-mode fork's working files when it has one, else the branch's files",
  'patch-upgrade-pending':
    "production runs the patch before its channel's newest, with automatic patch upgrades on (no releaseChannelVersionHold): the next production deploy (a merge's) moves it to the newest",
  'version-hold-null': 'deployment settings say releaseChannelVersionHold null (not false) when no hold is set',
  'version-hold-unreported': 'deployment settings carry no releaseChannelVersionHold at all, held or not',
  'default-scopes-no-sql':
    "the data API's default scopes are graphql, meta, data (no sql): an environment token minted without scopes is refused on /v1/sql (403 'API scope is missing: sql')",
  'mint-ignores-scopes': "the environment token mint accepts scopes but ignores them: every token carries the tenant's default scopes",
  'mint-refuses-uncompiled':
    "minting an environment's data-API token answers 400 with the compiler's error when the model that environment serves does not compile (by default the token is minted and the data API answers 500 with that error)",
  'repo-type-deploy-repo':
    'deployment settings say repoType deployRepo for a deployment no outside repository is connected to (its internal Git repository, the Cube Git remote, holds the model); by default repoType is not reported',
  'groups-from-roles':
    "access policies read the user's groups from the token's securityContext.roles (the deployment's own contextToGroups reads another claim): neither cubeCloud.groups nor the top-level groups reach them",
  'production-release-channel':
    "production runs its release channel's Cube (1.6.33, the JS planner) while staging runs the newest (1.7.20, Tesseract): a rolling-window measure a rollup serves on production is planned with no rollup on staging (cube-js/cube #11419), with no change in the model",
  'no-evaluations':
    'the tenant has no evaluations (a preview feature off for the account): the evaluation endpoints answer 404 and GET /api/v1/spec does not list them',
  'evaluation-incomplete':
    "a completed evaluation run's results page says hasNextPage: true with no endCursor (the page the vendor's CLI refuses as incomplete), on every page",
  'evaluation-never-finishes': 'an evaluation run reads as running forever: its status never leaves running and its results stay empty',
  'evaluation-results-paged':
    "an evaluation run's results page holds 5 results when the request gives no `first` (by default a page holds the whole run): a client must follow pageInfo.endCursor",
  'evaluation-list-without-branch': "the list of evaluation runs shows no branchName on its records (a run's own record still does)",
  'evaluation-list-undated': 'the list of evaluation runs shows no dates on its records (no createdAt, updatedAt or completedAt)',
  'evaluation-flaky':
    "the fixture agent answers a branch's first recorded question with no rows on the branch's 2nd, 4th, … run: that question's verdict differs between two runs of one branch",
  'env-vars-all-masked':
    "GET …/env-vars answers every value as `[ENCRYPTED]`, not only the secret-named ones the vendor file names (PASS, SECRET, TOKEN, KEY, CREDENTIAL): doctor cannot read the deployment's agents settings",
};

/** Profiles that answer the same point two ways cannot be on together. */
export const EXCLUSIVE: readonly (readonly [ProfileName, ProfileName])[] = [
  ['short-hash', 'no-hash'],
  ['short-hash', 'blank-build-status'],
  ['duplicate-branch-400', 'create-500-existing'],
  ['live-hashes-served', 'live-hashes-dev-session'],
  ['version-hold-null', 'version-hold-unreported'],
  ['groups-top-level', 'groups-from-roles'],
  ['no-evaluations', 'evaluation-incomplete'],
  ['no-evaluations', 'evaluation-never-finishes'],
  ['no-evaluations', 'evaluation-results-paged'],
  ['no-evaluations', 'evaluation-list-without-branch'],
  ['no-evaluations', 'evaluation-list-undated'],
  ['no-evaluations', 'evaluation-flaky'],
];

/** Parse `a,b` (or a list); the error names the value and the known profiles. */
export function parseProfiles(spec: string | readonly unknown[] | undefined, input = '--profile'): ProfileName[] {
  if (spec === undefined) return [];
  const parts = (typeof spec === 'string' ? spec.split(',') : [...spec]).map((p) => (typeof p === 'string' ? p.trim() : p)).filter((p) => p !== '');
  const out: ProfileName[] = [];
  for (const p of parts) {
    if (typeof p !== 'string' || !(PROFILES as readonly string[]).includes(p)) {
      throw new Error(`${input}: got ${JSON.stringify(p)}, expected profile names separated by commas, from: ${PROFILES.join(', ')}`);
    }
    if (!out.includes(p as ProfileName)) out.push(p as ProfileName);
  }
  for (const [a, b] of EXCLUSIVE) {
    if (out.includes(a) && out.includes(b)) throw new Error(`${input}: got ${a} with ${b}, expected at most one of them (they answer the same point two ways)`);
  }
  return out;
}
