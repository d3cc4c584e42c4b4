/**
 * Seeds: `demo` (analytics and marketing with a small valid model, finance with a model of its own for a
 * monorepo, users, runs, events, content) and `empty`.
 */
import { makeBranch } from '../build/branches.js';
import type { BranchRec } from '../build/models.js';
import type { Clock } from '../clock.js';
import type { DeploymentRec } from '../deployments/models.js';
import { emptyState, type State } from '../state.js';
import { seedAttributesAndRoles, seedAuditEvents, seedDemoTeam, seedNotifications, seedPeople } from './account.js';
import { seedContent, seedDashboards } from './content.js';
import { DEMO_MODEL, FINANCE_MODEL } from './demo-model.js';
import { seedSemanticContent } from './semantic-content.js';
import { seedDbtHistory, seedDeployment } from './deployments.js';

export type SeedName = 'demo' | 'empty';
export const SEEDS: readonly SeedName[] = ['demo', 'empty'];

export function seedState(seed: SeedName, clock: Clock): State {
  const state = emptyState();
  const people = seedPeople(state, clock);
  if (seed === 'empty') {
    seedDeployment(state, 'empty', clock, {});
    return state;
  }

  const analyst = seedDemoTeam(state, clock, people);
  // marketing deploys from the CLI: merges into main do not reach production until an upload does.
  const seeded = [
    ['analytics', 'git'],
    ['marketing', 'cli'],
  ] as const;
  const [analytics] = seeded.map(([name, mode]) => {
    const d = seedDeployment(state, name, clock, DEMO_MODEL, mode);
    makeBranch(d, 'feature-revenue', d.branches.main as BranchRec, 'shared', new Date(clock.now() - 5 * 86400_000).toISOString());
    return d;
  });
  // A monorepo's second model: finance/ of the same repository, in a deployment of its own.
  seedDeployment(state, 'finance', clock, FINANCE_MODEL);
  seedDbtHistory(analytics as DeploymentRec, clock, people.admin.id);
  seedAuditEvents(state, clock, people);
  seedDashboards(state, clock);
  seedNotifications(state, clock, people);
  seedAttributesAndRoles(state, clock, analyst);
  seedContent(state, clock, people.admin.id);
  seedSemanticContent(state, clock, people.admin.id);
  return state;
}
