import type { Rng } from '../random.js';
import { planStatusOf, type PlanModel, type SandboxState, type TaskModel } from '../state.js';
import type { TaskStatus } from '../spec/shapes.js';
import { HOUR, MINUTE, isoSeconds } from '../clock.js';
import { callerNumber, makeCallee, market, type Callee, type Scenario } from './people.js';
import { callRecord } from './records.js';
import { robotById, SCENARIO_ROBOT } from './robots.js';

/** Simulated time between two calls of a task. */
export const CALL_SLOT_MS = 3 * MINUTE;

/** What a task is made from, by the seed or by `simulate.createTask`. */
export interface TaskSpec {
  id: string;
  name: string;
  scenario: Scenario;
  status: TaskStatus;
  /** Simulated epoch ms. */
  createdAt: number;
  scheduleStart: number;
  robotId?: string;
  calleeCount?: number;
  /** Explicit callees (numbers); otherwise `calleeCount` generated ones. */
  numbers?: string[];
  /** How many calls are already made (default: all when finished, else 0). */
  callsDone?: number;
  marketIndex?: number;
  repeatInterval?: number;
  repeatNumber?: number;
  planName?: string;
  round?: number;
  callSlotMs?: number;
}

/** Builds a task model with its callees and the call records of the calls already made. */
export function buildTask(state: SandboxState, rng: Rng, spec: TaskSpec): TaskModel {
  const robot = robotById(spec.robotId ?? SCENARIO_ROBOT[spec.scenario]) ?? robotById(SCENARIO_ROBOT[spec.scenario]);
  if (!robot) throw new Error(`unknown robot ${spec.robotId}`);
  const m = market(spec.marketIndex ?? 0);
  const callees: Callee[] = spec.numbers
    ? spec.numbers.map((number) => ({ ...makeCallee(rng, m, spec.createdAt), number }))
    : Array.from({ length: spec.calleeCount ?? 5 }, () => makeCallee(rng, m, spec.createdAt));
  const model: TaskModel = {
    task: {
      TaskID: spec.id,
      TaskName: spec.name,
      RobotMethod: robot.RobotMethod,
      RobotID: robot.RobotID,
      SIPLine: `sip-${m.code.toLowerCase()}-${spec.scenario === 'debt' ? 'col' : spec.scenario === 'telemarketing' ? 'mkt' : 'kyc'}-01`,
      Status: spec.status,
      ScheduleStartTime: isoSeconds(spec.scheduleStart),
      ScheduleEndTime: isoSeconds(spec.scheduleStart + 10 * HOUR),
      RepeatInterval: spec.repeatInterval ?? 30,
      RepeatNumber: spec.repeatNumber ?? 1,
      detail: [],
    },
    scenario: spec.scenario,
    callees,
    callerNumber: callerNumber(rng, m),
    createdAt: spec.createdAt,
    planName: spec.planName,
    round: spec.round,
    ...(spec.callSlotMs ? { callSlotMs: spec.callSlotMs } : {}),
  };
  const done = spec.callsDone ?? (spec.status === 'finished' ? callees.length : 0);
  makeCalls(state, rng, model, done, spec.scheduleStart);
  return model;
}

/**
 * Builds a plan whose rounds are tasks `T-<idPart>-R1`, `-R2`... named `<name>-R1`..., one spec
 * each; the plan's status follows from theirs.
 */
export function buildPlan(
  state: SandboxState,
  rng: Rng,
  plan: { name: string; idPart: string; roundIntervalMinutes: number },
  rounds: Array<Omit<TaskSpec, 'id' | 'name' | 'repeatNumber' | 'planName' | 'round'>>,
): PlanModel {
  const model: PlanModel = {
    PlanName: plan.name,
    PlanStatus: planStatusOf(rounds.map((r) => r.status)),
    rounds: [],
    roundIntervalMinutes: plan.roundIntervalMinutes,
  };
  rounds.forEach((spec, r) => {
    const id = `T-${plan.idPart}-R${r + 1}`;
    const round = {
      id,
      name: `${plan.name}-R${r + 1}`,
      repeatNumber: rounds.length,
      planName: plan.name,
      round: r + 1,
    };
    state.tasks.set(id, buildTask(state, rng, { ...spec, ...round }));
    model.rounds.push(id);
  });
  state.plans.set(plan.name, model);
  return model;
}

/** Makes the next `n` calls of a task, one call slot apart from `from` (simulated ms). */
export function makeCalls(state: SandboxState, rng: Rng, model: TaskModel, n: number, from: number): void {
  const slot = model.callSlotMs ?? CALL_SLOT_MS;
  const detail = model.task.detail;
  const first = detail.length;
  for (let i = first; i < Math.min(model.callees.length, first + n); i++) {
    detail.push(
      callRecord(rng, {
        id: ++state.ids.record,
        robotId: model.task.RobotID,
        scenario: model.scenario,
        callee: model.callees[i] as Callee,
        start: from + (i - first) * slot,
        callerNumber: model.callerNumber,
      }),
    );
  }
}
