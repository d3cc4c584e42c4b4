/** State of dbt syncs: each run is a plan of phases from its start; its progress is read off the clock. */

export interface DbtPhasePlan {
  phase: string;
  durationMs: number;
}

export interface DbtRunRec {
  syncJobId: string;
  workflowId: string;
  deploymentId: number;
  branchName: string;
  ref: string;
  source: string;
  trigger: string;
  userId: number | null;
  startedAt: number;
  /** Until then status, logs and result answer 404, as the real service does just after a start. */
  visibleAt?: number;
  plan: DbtPhasePlan[];
  /** When set, the run fails in this phase with this message. */
  failure?: { phase: string; message: string };
  cancelledAt?: number;
  /** The branch of generated models was created (on completion). */
  materialized?: boolean;
  /** Generated files, path -> content. */
  generated: Record<string, string>;
}
