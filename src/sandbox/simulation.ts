import type { TaskStatus } from './spec/shapes.js';
import type { SimClock } from './clock.js';
import { isoSeconds, MINUTE } from './clock.js';
import type { Rng } from './random.js';
import { planStatusOf, planView, type CallingTask, type PlanView, type SandboxState, type TaskModel } from './state.js';
import { buildPlan, buildTask, CALL_SLOT_MS, makeCalls } from './seed/tasks.js';
import type { SandboxEvents } from './types.js';
import type { CreatePlanInput, CreateTaskInput, Simulator } from './simulator.js';

/** Simulated time from a task's creation to `pending`. */
export const PENDING_AFTER_MS = MINUTE;

/** A simulation request that cannot be done (unknown id, finished task...). */
export class SimulationError extends Error {
  constructor(
    message: string,
    readonly notFound = false,
  ) {
    super(message);
  }
}

const NEXT: Partial<Record<TaskStatus, TaskStatus>> = {
  created: 'pending',
  pending: 'calling',
  calling: 'finished',
  paused: 'calling',
};

export class Simulation implements Simulator {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly state: SandboxState,
    private readonly clock: SimClock,
    private readonly events: SandboxEvents,
    private readonly rng: Rng,
  ) {}

  /** Schedules the seeded tasks that are not at rest. */
  start(): void {
    for (const model of this.state.tasks.values()) model.next = this.nextStep(model);
    this.run();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  now(): number {
    return this.clock.now();
  }

  createTask(input: CreateTaskInput = {}): CallingTask {
    const id = input.id ?? `T-SIM-${String(++this.state.ids.task).padStart(4, '0')}`;
    if (this.state.tasks.has(id)) throw new SimulationError(`task already exists: ${id}`);
    const now = this.now();
    const model = buildTask(this.state, this.rng, {
      id,
      name: input.name ?? id,
      scenario: input.scenario ?? 'debt',
      status: 'created',
      createdAt: now,
      scheduleStart: now + (input.startInMs ?? 2 * MINUTE),
      robotId: input.robotId,
      numbers: input.numbers,
      calleeCount: input.calleeCount ?? 3,
      callSlotMs: input.callSlotMs,
    });
    this.state.tasks.set(id, model);
    model.next = this.nextStep(model);
    this.run();
    return model.task;
  }

  createPlan(input: CreatePlanInput): PlanView {
    const name = input.name;
    if (!name) throw new SimulationError('a plan needs a name');
    if (this.state.plans.has(name)) throw new SimulationError(`plan already exists: ${name}`);
    const now = this.now();
    const interval = input.roundIntervalMinutes ?? 30;
    const start = now + (input.startInMs ?? 2 * MINUTE);
    const plan = buildPlan(
      this.state,
      this.rng,
      { name, idPart: name, roundIntervalMinutes: interval },
      Array.from({ length: Math.max(1, input.rounds ?? 2) }, (_, r) => ({
        scenario: input.scenario ?? 'debt',
        status: 'created',
        createdAt: now,
        scheduleStart: start + r * interval * MINUTE,
        calleeCount: input.calleeCount ?? 3,
        callSlotMs: input.callSlotMs,
      })),
    );
    for (const id of plan.rounds) {
      const model = this.state.tasks.get(id) as TaskModel;
      model.next = this.nextStep(model);
    }
    this.run();
    return planView(this.state, plan);
  }

  advanceTask(id: string): CallingTask {
    const model = this.task(id);
    const to = NEXT[model.task.Status];
    if (!to) throw new SimulationError(`task ${id} is ${model.task.Status}; it cannot move on`);
    this.transition(model, to);
    this.run();
    return model.task;
  }

  finishTask(id: string): CallingTask {
    const model = this.task(id);
    for (let to = NEXT[model.task.Status]; to; to = NEXT[model.task.Status]) this.transition(model, to);
    if (model.task.Status !== 'finished')
      throw new SimulationError(`task ${id} is ${model.task.Status}; it cannot finish`);
    this.run();
    return model.task;
  }

  finishPlan(name: string): PlanView {
    const plan = this.state.plans.get(name);
    if (!plan) throw new SimulationError(`plan not found: ${name}`, true);
    for (const id of plan.rounds) {
      const model = this.task(id);
      if (model.task.Status !== 'finished' && model.task.Status !== 'canceled') this.finishTask(id);
    }
    return planView(this.state, plan);
  }

  advanceTime(ms: number): void {
    this.clock.advance(ms);
    this.run();
  }

  private task(id: string): TaskModel {
    const model = this.state.tasks.get(id);
    if (!model) throw new SimulationError(`task not found: ${id}`, true);
    return model;
  }

  /** The task's next automatic step, or none while it rests (or waits for an earlier round). */
  private nextStep(model: TaskModel): TaskModel['next'] {
    const t = model.task;
    switch (t.Status) {
      case 'created': {
        if (model.planName && (model.round ?? 1) > 1) return undefined; // started by the previous round's end
        return { at: model.createdAt + PENDING_AFTER_MS, status: 'pending' };
      }
      case 'pending':
        return { at: Date.parse(t.ScheduleStartTime), status: 'calling' };
      case 'calling': {
        const since = model.callingSince ?? Date.parse(t.ScheduleStartTime);
        return { at: since + model.callees.length * (model.callSlotMs ?? CALL_SLOT_MS), status: 'finished' };
      }
      default:
        return undefined;
    }
  }

  /** Moves a task to `to` at simulated time `now` (a due step catching up uses its due time). */
  private transition(model: TaskModel, to: TaskStatus, now = this.now()): void {
    const from = model.task.Status;
    if (to === 'calling') model.callingSince = now;
    if (to === 'finished') {
      const since = model.callingSince ?? Math.min(now, Date.parse(model.task.ScheduleStartTime));
      const slot = model.callSlotMs ?? CALL_SLOT_MS;
      makeCalls(this.state, this.rng, model, model.callees.length, since + model.task.detail.length * slot);
    }
    model.task.Status = to;
    model.next = this.nextStep(model);
    this.events.emit('task.status', { task: model.task, from, to, planName: model.planName });
    if (to === 'finished') this.events.emit('task.finished', { task: model.task, planName: model.planName });
    if (model.planName) this.roundMoved(model, to, now);
  }

  private roundMoved(model: TaskModel, to: TaskStatus, now: number): void {
    const plan = this.state.plans.get(model.planName as string);
    if (!plan) return;
    if (to === 'finished') {
      const nextId = plan.rounds[model.round ?? 1];
      const next = nextId ? this.state.tasks.get(nextId) : undefined;
      if (next && next.task.Status === 'created') {
        next.task.ScheduleStartTime = isoSeconds(now + plan.roundIntervalMinutes * MINUTE);
        this.transition(next, 'pending', now);
      }
    }
    const from = plan.PlanStatus;
    const status = planStatusOf(plan.rounds.map((id) => this.state.tasks.get(id)?.task.Status ?? 'created'));
    if (status === from) return;
    plan.PlanStatus = status;
    const view = planView(this.state, plan);
    this.events.emit('plan.status', { plan: view, from, to: status });
    if (status === 'finished') this.events.emit('plan.finished', { plan: view, lastRound: model });
  }

  /** Fires every due step in time order, then arms one timer for the next. */
  private run(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (let guard = 0; guard < 10_000; guard++) {
      const due = this.earliest();
      if (!due || !due.next || due.next.at > this.now()) break;
      this.transition(due, due.next.status, due.next.at);
    }
    const next = this.earliest();
    if (!next?.next) return;
    const delay = Math.min(this.clock.realDelayUntil(next.next.at), 2 ** 31 - 1);
    this.timer = setTimeout(() => this.run(), Math.ceil(delay));
    this.timer.unref();
  }

  private earliest(): TaskModel | undefined {
    let best: TaskModel | undefined;
    for (const model of this.state.tasks.values()) {
      if (model.next && (!best?.next || model.next.at < best.next.at)) best = model;
    }
    return best;
  }
}
