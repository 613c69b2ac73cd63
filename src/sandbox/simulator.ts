/** What tests and `/__sandbox/simulate` can ask of the simulated time (src/sandbox/simulation.ts implements it). */
import { z } from 'zod';
import type { CallingTask, PlanView } from './state.js';

const scenario = z.enum(['debt', 'telemarketing', 'info-check']);
const calleeCount = z.number().int().min(1).max(1000);

/** Input of `simulate.createTask` (and of `POST /__sandbox/simulate`, but for `callSlotMs`). */
export const createTaskInput = z.object({
  /** Default `T-SIM-0001`, `T-SIM-0002`, ... */
  id: z.string().min(1).optional(),
  name: z.string().optional(),
  scenario: scenario.optional(),
  robotId: z.string().optional(),
  /** Callee numbers; default `calleeCount` generated ones. */
  numbers: z.array(z.string()).optional(),
  /** Default 3. */
  calleeCount: calleeCount.optional(),
  /** Simulated ms from now to the scheduled start (default 2 minutes). */
  startInMs: z.number().min(0).optional(),
  /** Simulated ms between two calls (default 3 minutes: one line; less for a task on many lines). */
  callSlotMs: z.number().optional(),
});
export type CreateTaskInput = z.input<typeof createTaskInput>;

/** Input of `simulate.createPlan` (and of `POST /__sandbox/simulate`, but for `callSlotMs`). */
export const createPlanInput = z.object({
  name: z.string().min(1),
  /** Default 2. */
  rounds: z.number().int().min(1).max(20).optional(),
  /** Callees per round, default 3. */
  calleeCount: calleeCount.optional(),
  scenario: scenario.optional(),
  /** Simulated ms from now to round 1's start (default 2 minutes). */
  startInMs: z.number().min(0).optional(),
  /** Simulated minutes between a round's end and the next one's start (default 30). */
  roundIntervalMinutes: z.number().min(0).optional(),
  /** Simulated ms between two calls of a round (default 3 minutes). */
  callSlotMs: z.number().optional(),
});
export type CreatePlanInput = z.input<typeof createPlanInput>;

/**
 * Moves tasks created -> pending -> calling -> finished over simulated time, and plans
 * planned -> calling -> finished as their rounds finish; tests can also push things along.
 */
export interface Simulator {
  createTask(input?: CreateTaskInput): CallingTask;
  /** One step: created -> pending -> calling -> finished (paused -> calling). */
  advanceTask(id: string): CallingTask;
  /** Walks the task through its remaining states to `finished`, with every event. */
  finishTask(id: string): CallingTask;
  createPlan(input: CreatePlanInput): PlanView;
  /** Finishes every round in order. */
  finishPlan(name: string): PlanView;
  /** Jumps simulated time forward, firing every transition that falls due. */
  advanceTime(ms: number): void;
  /** Simulated now (epoch ms). */
  now(): number;
}
