import { createRng } from '../random.js';
import { emptyState, type SandboxState } from '../state.js';
import type { Scenario } from './people.js';
import type { TaskStatus } from '../spec/shapes.js';
import { DAY, HOUR, MINUTE } from '../clock.js';
import { ROBOTS } from './robots.js';
import { buildPlan, buildTask, type TaskSpec } from './tasks.js';
import { seedApiPushes, seedWorkflows, seedWorkflowTasks, workflowId } from './workflows.js';

/**
 * The seed's well-known ids, the same for every `seed` value (the seed number changes names,
 * numbers and call outcomes, never these ids).
 */
export const SEED = {
  /** A finished debt-collection task with call records (amounts, ASR, labels, redials). */
  debtTaskId: 'T-DEBT-0001',
  /** A debt-collection task that is calling and finishes about 30 simulated minutes after start. */
  callingTaskId: 'T-DEBT-0002',
  /** A pending debt-collection task, scheduled 2 simulated hours after start. */
  pendingTaskId: 'T-DEBT-0003',
  telemarketingTaskId: 'T-TM-0001',
  pausedTaskId: 'T-TM-0002',
  createdTaskId: 'T-TM-0003',
  infoCheckTaskId: 'T-IC-0001',
  canceledTaskId: 'T-IC-0002',
  /** A finished plan of three rounds, PLAN-A-R1 to PLAN-A-R3. */
  planName: 'PLAN-A',
  /** A calling plan: round 1 finished, round 2 calling (ends ~10 simulated minutes after start), round 3 waiting. */
  callingPlanName: 'PLAN-B',
  /** A planned plan: nothing called yet, round 1 scheduled 3 simulated hours after start. */
  plannedPlanName: 'PLAN-C',
  /** A running workflow (12 contacts, an API node and two call-node tasks); newest in the list. */
  workflowId: workflowId(0),
  /** A cancelled workflow: updatedetails refuses it. */
  cancelledWorkflowId: workflowId(3),
  workflowCount: 32,
  /** A finished information-check call-node task of `workflowId`, with question_answer records. */
  workflowTaskId: 'WT-IC-0001',
  /** A seeded custom API push of `workflowId`, found by verify-push (pushed twice; the newest is answered). */
  verifyPush: { workflowId: workflowId(0), nodeId: 'node-api-01', callee: '+6281234567801', caseId: 'ID-KYC-0001' },
  /** A push 100 days old: outside the three-month history, so verify-push answers not found. */
  expiredPush: { workflowId: workflowId(0), nodeId: 'node-api-01', callee: '+6281234567805' },
  robotIds: ROBOTS.map((r) => r.RobotID),
} as const;

const task = (
  id: string,
  name: string,
  scenario: Scenario,
  status: TaskStatus,
  created: number,
  start: number,
  extra: Partial<TaskSpec> = {},
): TaskSpec => ({ id, name, scenario, status, createdAt: created, scheduleStart: start, ...extra });

/**
 * Builds the seeded state. Times are relative to `base` (the simulated clock's start), so a
 * fixed `startTime` and `seed` give identical data.
 */
export function buildSeed(seed: number, base: number): SandboxState {
  const state = emptyState();
  const rng = createRng(seed);
  state.robots = ROBOTS.map((r) => ({ ...r }));
  const tasks = [
    task(SEED.debtTaskId, 'Collections D+3 ID', 'debt', 'finished', base - 2 * DAY, base - 2 * DAY + HOUR, {
      calleeCount: 8,
      repeatNumber: 2,
    }),
    task(SEED.callingTaskId, 'Collections D+7 PH (group)', 'debt', 'calling', base - HOUR, base - 30 * MINUTE, {
      robotId: 'rg-2001',
      calleeCount: 20,
      callsDone: 4,
      marketIndex: 1,
    }),
    task(SEED.pendingTaskId, 'Collections escalation PH', 'debt', 'pending', base - 10 * MINUTE, base + 2 * HOUR, {
      robotId: 'rb-1002',
      calleeCount: 6,
      marketIndex: 1,
    }),
    task('T-DEBT-0004', 'Legal notice NG', 'debt', 'finished', base - 5 * DAY, base - 5 * DAY + HOUR, {
      robotId: 'rb-1005',
      calleeCount: 4,
      marketIndex: 3,
    }),
    task(SEED.telemarketingTaskId, 'Cart recovery MX', 'telemarketing', 'finished', base - DAY, base - DAY + HOUR, {
      calleeCount: 6,
      marketIndex: 2,
    }),
    task(SEED.pausedTaskId, 'Flash sale MX', 'telemarketing', 'paused', base - 3 * HOUR, base - 2 * HOUR, {
      robotId: 'rg-2002',
      calleeCount: 5,
      callsDone: 2,
      marketIndex: 2,
    }),
    task(SEED.createdTaskId, 'Weekend promo MX', 'telemarketing', 'created', base, base + 4 * HOUR, {
      calleeCount: 5,
      marketIndex: 2,
    }),
    task(SEED.infoCheckTaskId, 'KYC check ID', 'info-check', 'finished', base - DAY, base - DAY + 2 * HOUR, {
      calleeCount: 5,
    }),
    task(SEED.canceledTaskId, 'KYC re-check PH', 'info-check', 'canceled', base - 2 * DAY, base - 2 * DAY + HOUR, {
      calleeCount: 4,
      callsDone: 1,
      marketIndex: 1,
    }),
  ];
  for (const t of tasks) {
    const model = buildTask(state, rng, t);
    state.tasks.set(t.id, model);
  }
  // Each plan's rounds: [status, scheduled start, callees, calls done].
  const plans: Array<[string, Array<[TaskStatus, number, number, number]>]> = [
    [
      SEED.planName,
      [
        ['finished', base - 3 * DAY, 6, 6],
        ['finished', base - 2 * DAY, 4, 4],
        ['finished', base - DAY, 3, 3],
      ],
    ],
    [
      SEED.callingPlanName,
      [
        ['finished', base - DAY, 5, 5],
        ['calling', base - 20 * MINUTE, 10, 3],
        ['created', base + HOUR, 6, 0],
      ],
    ],
    [
      SEED.plannedPlanName,
      [
        ['created', base + 3 * HOUR, 4, 0],
        ['created', base + 4 * HOUR, 4, 0],
      ],
    ],
  ];
  plans.forEach(([name, rounds], marketIndex) =>
    buildPlan(
      state,
      rng,
      { name, idPart: name.replace('-', ''), roundIntervalMinutes: 30 },
      rounds.map(([status, scheduleStart, calleeCount, callsDone]) => ({
        scenario: 'debt',
        status,
        createdAt: base - 3 * DAY - HOUR,
        scheduleStart,
        robotId: 'rg-2001',
        calleeCount,
        callsDone,
        marketIndex,
      })),
    ),
  );
  seedWorkflows(state, rng, base);
  seedWorkflowTasks(state, rng);
  seedApiPushes(state, rng, base);
  return state;
}
