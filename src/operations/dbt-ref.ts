/**
 * Did a dbt sync use the `ref` it was asked for? An older deployment silently ignores `ref` and syncs
 * its saved branch; the only evidence is the name of the branch the run creates,
 * `dbt-sync/<ref segment>-<time>-<hex>`. The segment follows the mapping the vendor's CLI measured on
 * live deployments (`rust/cube-cli/src/commands/dbt.rs`): letters, digits, `_`, `.` and `-` kept,
 * `/`, space and `~` turned into `-`; other characters were not measured, so the check stops there.
 */

/** The measured part of a ref's segment, lower-cased, at most 12 characters; empty when nothing is measured. */
export function refFingerprint(ref: string): string {
  let out = '';
  for (const ch of ref) {
    if (/[A-Za-z0-9_.-]/.test(ch)) out += ch;
    else if (ch === '/' || ch === ' ' || ch === '~') out += '-';
    else break;
    if (out.length >= 12) break;
  }
  return out.toLowerCase();
}

export type RefCheck = { verdict: 'used' } | { verdict: 'unverified'; why: string } | { verdict: 'ignored'; why: string };

/** Judge the branch a sync reported against the ref it was given (`refVerified` from the server wins). */
export function checkRefUsed(ref: string, branchName: string, refVerified?: unknown): RefCheck {
  if (refVerified === true) return { verdict: 'used' };
  if (refVerified === false) return { verdict: 'ignored', why: `the platform reports that ref ${JSON.stringify(ref)} was not used` };
  const fingerprint = refFingerprint(ref);
  if (!fingerprint) return { verdict: 'unverified', why: `ref ${JSON.stringify(ref)} starts with a character whose branch-name form is not known` };
  const name = branchName.toLowerCase();
  const marker = 'dbt-sync/';
  const used = name.includes(marker) ? name.slice(name.indexOf(marker) + marker.length).startsWith(fingerprint) : name.includes(fingerprint);
  return used ? { verdict: 'used' } : { verdict: 'ignored', why: `the run's branch ${JSON.stringify(branchName)} does not name ref ${JSON.stringify(ref)}` };
}
