import { z } from 'zod';
import { applyFaultPatch, resetFaults } from '../faults.js';
import { describeIssue, fail, HttpError, ok, parseJson, type Reply } from '../http.js';
import { redactRecord } from '../recorder.js';
import { SimulationError } from '../simulation.js';
import { createPlanInput, createTaskInput } from '../simulator.js';
import { isoSeconds } from '../clock.js';
import type { Engine } from '../types.js';
import { SANDBOX_VARIANTS } from '../variants.js';

const variantsRequest = z.strictObject({ variants: z.array(z.string()) });

/** Admin endpoints live under this prefix: no auth, no faults, not recorded. */
export const ADMIN_PREFIX = '/__sandbox';

const simulateSchema = z.discriminatedUnion('action', [
  createTaskInput.omit({ callSlotMs: true }).extend({ action: z.literal('createTask') }),
  z.object({ action: z.literal('advanceTask'), id: z.string().min(1) }),
  z.object({ action: z.literal('finishTask'), id: z.string().min(1) }),
  createPlanInput.omit({ callSlotMs: true }).extend({ action: z.literal('createPlan') }),
  z.object({ action: z.literal('finishPlan'), name: z.string().min(1) }),
  z.object({ action: z.literal('advanceTime'), ms: z.number().min(0) }),
]);

const LAST = 100;

/** Counts and what was received, for `GET /__sandbox/state`. */
export function stateSummary(engine: Engine) {
  const { state, clock, tokens, faults } = engine;
  return {
    url: engine.url,
    now: isoSeconds(clock.now()),
    timeScale: clock.timeScale,
    counters: state.counters,
    tokens: tokens.size,
    tasks: [...state.tasks.values()].map((m) => ({
      TaskID: m.task.TaskID,
      TaskName: m.task.TaskName,
      Status: m.task.Status,
      calls: m.task.detail.length,
      ...(m.planName ? { PlanName: m.planName } : {}),
    })),
    plans: [...state.plans.values()].map((p) => ({ PlanName: p.PlanName, PlanStatus: p.PlanStatus })),
    workflows: state.workflows.size,
    updates: Object.fromEntries(
      [...state.received.updates].map(([id, u]) => [id, { count: u.count, batches: u.batches }]),
    ),
    pushes: { count: state.received.pushes.length, last: state.received.pushes.slice(-LAST) },
    templates: { count: state.received.templates.length, last: state.received.templates.slice(-LAST) },
    faults,
    variants: engine.variants.list(),
  };
}

function simulate(engine: Engine, body: unknown): unknown {
  const parsed = simulateSchema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, 400, describeIssue(parsed.error.issues));
  const s = engine.simulate;
  const r = parsed.data;
  switch (r.action) {
    case 'createTask': {
      const { action: _a, ...input } = r;
      return s.createTask(input);
    }
    case 'advanceTask':
      return s.advanceTask(r.id);
    case 'finishTask':
      return s.finishTask(r.id);
    case 'createPlan': {
      const { action: _a, ...input } = r;
      return s.createPlan(input);
    }
    case 'finishPlan':
      return s.finishPlan(r.name);
    case 'advanceTime':
      s.advanceTime(r.ms);
      return { now: isoSeconds(s.now()) };
  }
}

function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const n = Number(query.get(name) ?? fallback);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

/**
 * The admin endpoints (answers use the envelope):
 * - `GET /__sandbox/health`
 * - `GET /__sandbox/state`: counts, tasks, plans, what was received
 * - `GET /__sandbox/requests?path=<prefix>&limit=<n>` (last n, default 100; secrets redacted);
 *   `DELETE /__sandbox/requests` clears the records and the request and fault counters
 * - `GET|POST|DELETE /__sandbox/faults`: read, patch (JSON), reset
 * - `POST /__sandbox/expire-tokens`
 * - `GET /__sandbox/entries?workflow_id=&offset=&limit=`: entries updatedetails accepted
 * - `POST /__sandbox/simulate` `{action, ...}`: createTask, advanceTask, finishTask, createPlan,
 *   finishPlan, advanceTime
 * - `GET /__sandbox/variants`: the variants in force and every one known (name -> description);
 *   `POST /__sandbox/variants {"variants":[...]}` replaces them (a bad list changes nothing)
 */
export async function adminHandler(
  engine: Engine,
  method: string,
  path: string,
  query: URLSearchParams,
  raw: Buffer,
): Promise<Reply> {
  const route = `${method} ${path.slice(ADMIN_PREFIX.length)}`;
  const { state, faults } = engine;
  switch (route) {
    case 'GET /health':
      return ok({ ok: true, url: engine.url });
    case 'GET /state':
      return ok(stateSummary(engine));
    case 'GET /requests': {
      const prefix = query.get('path') ?? '';
      const limit = intParam(query, 'limit', LAST);
      const matching = engine.requests.filter((r) => r.path.startsWith(prefix));
      return ok({
        count: state.counters.requests,
        requests: matching.slice(-limit || matching.length).map(redactRecord),
      });
    }
    case 'DELETE /requests': {
      const cleared = engine.requests.length;
      engine.requests.length = 0;
      Object.assign(state.counters, { requests: 0, byRoute: {}, faults: {} });
      return ok({ cleared });
    }
    case 'GET /faults':
      return ok(faults);
    case 'POST /faults': {
      try {
        return ok(applyFaultPatch(faults, parseJson(raw)));
      } catch (e) {
        if (e instanceof z.ZodError) return fail(400, `invalid fault settings: ${describeIssue(e.issues)}`, 400);
        throw e;
      }
    }
    case 'DELETE /faults':
      resetFaults(faults);
      return ok(faults);
    case 'GET /variants':
      return ok({ variants: engine.variants.list(), known: SANDBOX_VARIANTS });
    case 'POST /variants': {
      const parsed = variantsRequest.safeParse(parseJson(raw));
      if (!parsed.success)
        return fail(400, `expected {"variants":["name",...]}: ${describeIssue(parsed.error.issues)}`, 400);
      try {
        return ok({ variants: engine.variants.set(parsed.data.variants), known: SANDBOX_VARIANTS });
      } catch (e) {
        if (e instanceof RangeError) return fail(400, e.message, 400);
        throw e;
      }
    }
    case 'POST /expire-tokens':
      engine.tokens.expireAll();
      return ok({ expired: engine.tokens.size });
    case 'GET /entries': {
      const id = query.get('workflow_id') ?? '';
      const u = state.received.updates.get(id);
      const offset = intParam(query, 'offset', 0);
      const limit = intParam(query, 'limit', 1000);
      return ok({
        workflow_id: id,
        count: u?.count ?? 0,
        batches: u?.batches ?? 0,
        entries: u ? u.entries.slice(offset, offset + limit) : [],
      });
    }
    case 'POST /simulate':
      try {
        return ok(simulate(engine, parseJson(raw)));
      } catch (e) {
        if (e instanceof SimulationError) return fail(e.notFound ? 404 : 409, e.message, e.notFound ? 404 : 409);
        throw e;
      }
    default:
      return fail(404, `no such admin endpoint: ${route}`, 404);
  }
}
