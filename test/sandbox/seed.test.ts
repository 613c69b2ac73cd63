import { describe, expect, test } from 'vitest';
import { buildSeed, SEED } from '../../src/sandbox/seed/index.js';
import { robotListSchema } from '../../src/schemas/robot.js';
import { callingTaskSchema } from '../../src/schemas/task.js';
import { ISO_TIME_RE, SPACE_TIME_RE } from '../../src/schemas/formats.js';
import { hangupTypeSchema, ringTypeSchema } from '../helpers/schemas.js';
import { planDetailDataSchema, planStatusDataSchema } from '../../src/schemas/plan.js';
import { listEntrySchema, workflowInstanceSchema, workflowTaskDetailSchema } from '../../src/schemas/workflow.js';
import { verifyPushDataSchema } from '../../src/schemas/api-push.js';
import { planView } from '../../src/sandbox/state.js';
import { CALLEE_RE } from '../../src/limits.js';

const START = Date.parse('2025-03-10T09:00:00Z');
const state = buildSeed(1, START);

describe('seed data passes the response schemas', () => {
  test('robots: single and group, every tone, both voices and an empty one', () => {
    const robots = robotListSchema.parse(state.robots);
    expect(new Set(robots.map((r) => r.RobotMethod))).toEqual(new Set(['single', 'group']));
    expect(new Set(robots.map((r) => r.Tone))).toEqual(
      new Set(['Polite', 'Natural', 'Pressing', 'Harsh', 'Fierce', null]),
    );
    expect(new Set(robots.map((r) => r.Voice))).toEqual(new Set(['male', 'female', '']));
    expect(SEED.robotIds).toEqual(robots.map((r) => r.RobotID));
  });

  test('every calling task and call record, with the strict enums', () => {
    expect(state.tasks.size).toBeGreaterThanOrEqual(15);
    for (const { task } of state.tasks.values()) {
      callingTaskSchema.parse(task);
      for (const rec of task.detail) {
        expect(rec.CalleeNumber).toMatch(CALLEE_RE);
        expect(rec.caller_number).toMatch(CALLEE_RE);
        ringTypeSchema.parse(rec.RingType);
        hangupTypeSchema.parse(rec.HangupType);
        expect(rec.CallStartTime).toMatch(ISO_TIME_RE);
        expect(rec.CallEndTime).toMatch(ISO_TIME_RE);
        expect(rec.EventLabel?.final).toBeTruthy();
        for (const a of rec.AsrResult ?? []) expect(a.time).toMatch(/^\d{2}:\d{2}:\d{2}$/);
        for (const r of rec.RedailCall ?? []) {
          ringTypeSchema.parse(r.RingType);
          hangupTypeSchema.parse(r.HangupType);
        }
      }
    }
  });

  test('each business scenario is there with its own fields', () => {
    const debt = state.tasks.get(SEED.debtTaskId)!.task;
    expect(debt.Status).toBe('finished');
    expect(debt.detail.length).toBeGreaterThan(4);
    for (const r of debt.detail) {
      expect(r.BorrowedAmount).toMatch(/^\d+\.\d{2}$/);
      expect(Number(r.TotalOwingAmount)).toBeGreaterThan(Number(r.BorrowedAmount));
      expect(r.BorrowedDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const all = [...state.tasks.values()].flatMap((m) => m.task.detail);
    expect(all.some((r) => r.AsrResult!.length > 0 && r.NerSlots && Object.keys(r.NerSlots).length > 0)).toBe(true);
    expect(all.some((r) => r.RedailCall!.length > 0)).toBe(true);
    expect(state.tasks.get(SEED.telemarketingTaskId)!.task.detail.every((r) => r.BorrowedAmount === '')).toBe(true);
    expect(
      state.tasks.get(SEED.infoCheckTaskId)!.task.detail.some((r) => /Verified|Mismatch/.test(r.EventLabel!.final!)),
    ).toBe(true);
    const statuses = new Set([...state.tasks.values()].map((m) => m.task.Status));
    expect(statuses).toEqual(new Set(['created', 'pending', 'calling', 'finished', 'paused', 'canceled']));
  });

  test('plans and their rounds, named plan name + round suffix', () => {
    const byStatus = new Map([...state.plans.values()].map((p) => [p.PlanName, p.PlanStatus]));
    expect(byStatus).toEqual(
      new Map([
        [SEED.planName, 'finished'],
        [SEED.callingPlanName, 'calling'],
        [SEED.plannedPlanName, 'planned'],
      ]),
    );
    for (const plan of state.plans.values()) {
      const view = planView(state, plan);
      planStatusDataSchema.parse(view);
      planDetailDataSchema.parse(view);
      view.PlanDetails.forEach((round, i) => {
        expect(round.TaskName).toBe(`${plan.PlanName}-R${i + 1}`);
        expect(round.Rounds).toBe(String(i + 1));
        expect(state.tasks.get(round.TaskID)?.task.TaskName).toBe(round.TaskName);
      });
    }
  });

  test('workflows: more than two pages of instances, each with valid contacts', () => {
    expect(state.workflows.size).toBe(SEED.workflowCount);
    expect(state.workflows.size).toBeGreaterThan(25);
    for (const w of state.workflows.values()) {
      workflowInstanceSchema.parse(w.instance);
      expect(Object.keys(w.instance)).toHaveLength(8);
      expect(w.instance.create_time).toMatch(ISO_TIME_RE);
      expect(w.instance.total).toBe(w.contacts.length);
      for (const c of w.contacts) listEntrySchema.parse(c);
    }
    const statuses = new Set([...state.workflows.values()].map((w) => w.instance.status));
    expect(statuses).toContain('finished');
    expect(statuses).toContain('cancelled');
    expect(state.workflows.get(SEED.cancelledWorkflowId)!.instance.status).toBe('cancelled');
    expect([...state.workflows.values()].some((w) => w.instance.start_time === null)).toBe(true);
  });

  test('workflow call tasks with question_answer records', () => {
    for (const d of state.workflowTasks.values()) {
      workflowTaskDetailSchema.parse(d);
      for (const e of d.details) {
        expect(e.call_end_time).toMatch(SPACE_TIME_RE);
        expect(e.callee).toMatch(CALLEE_RE);
      }
    }
    const d = state.workflowTasks.get(SEED.workflowTaskId)!;
    expect(d.workflow_id).toBe(SEED.workflowId);
    const qa = d.details.flatMap((e) => e.question_answer ?? []);
    expect(new Set(qa.map((q) => q.question_type))).toEqual(new Set(['whether', 'open']));
    expect(new Set(qa.map((q) => q.status))).toEqual(new Set(['Completed', 'Skip']));
    expect(qa.map((q) => q.whether_answer)).toContain('Answered');
  });

  test('custom API pushes for verify-push', () => {
    for (const p of state.apiPushes) {
      verifyPushDataSchema.parse(p.data);
      ringTypeSchema.parse(p.data.call.ring_type);
      hangupTypeSchema.parse(p.data.call.hangup_type);
    }
    const v = SEED.verifyPush;
    expect(
      state.apiPushes.filter((p) => p.data.callee.callee_number === v.callee && p.data.node_id === v.nodeId),
    ).toHaveLength(2);
    expect(state.workflows.get(v.workflowId)!.contacts[0]).toMatchObject({ callee: v.callee, caseid: v.caseId });
  });
});

describe('determinism', () => {
  test('the same seed and start give identical data', () => {
    const again = buildSeed(1, START);
    expect([...again.tasks.values()]).toEqual([...state.tasks.values()]);
    expect([...again.workflows.values()]).toEqual([...state.workflows.values()]);
    expect(again.apiPushes).toEqual(state.apiPushes);
  });

  test('another seed changes the data, never the SEED ids', () => {
    const other = buildSeed(2, START);
    const a = state.tasks.get(SEED.debtTaskId)!.task.detail.map((r) => r.CalleeNumber);
    const b = other.tasks.get(SEED.debtTaskId)!.task.detail.map((r) => r.CalleeNumber);
    expect(a).not.toEqual(b);
    expect([...other.tasks.keys()]).toEqual([...state.tasks.keys()]);
    expect([...other.workflows.keys()]).toEqual([...state.workflows.keys()]);
    expect(other.workflows.get(SEED.workflowId)!.contacts[0]!.callee).toBe(SEED.verifyPush.callee);
  });
});
