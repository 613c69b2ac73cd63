/** What tests and `/__sandbox/simulate` can ask of the simulated time (src/sandbox/simulation.ts implements it). */
import type { CallingTask } from './spec/shapes.js';
import type { PlanView, Scenario } from './state.js';

/** Input of `simulate.createTask`. */
export interface CreateTaskInput {
  /** Default `T-SIM-0001`, `T-SIM-0002`, ... */
  id?: string;
  name?: string;
  scenario?: Scenario;
  robotId?: string;
  /** Callee numbers; default `calleeCount` generated ones. */
  numbers?: string[];
  /** Default 3. */
  calleeCount?: number;
  /** Simulated ms from now to the scheduled start (default 2 minutes). */
  startInMs?: number;
  /** Simulated ms between two calls (default 3 minutes: one line; less for a task on many lines). */
  callSlotMs?: number;
}

/** Input of `simulate.createPlan`. */
export interface CreatePlanInput {
  name: string;
  /** Default 2. */
  rounds?: number;
  /** Callees per round, default 3. */
  calleeCount?: number;
  scenario?: Scenario;
  /** Simulated ms from now to round 1's start (default 2 minutes). */
  startInMs?: number;
  /** Simulated minutes between a round's end and the next one's start (default 30). */
  roundIntervalMinutes?: number;
  /** Simulated ms between two calls of a round (default 3 minutes). */
  callSlotMs?: number;
}

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
