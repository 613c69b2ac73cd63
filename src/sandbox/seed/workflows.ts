import type { Rng } from '../random.js';
import type { SandboxState, WorkflowModel, WorkflowTaskDetail } from '../state.js';
import type { ListEntry } from '../spec/shapes.js';
import { DAY, HOUR, MINUTE, isoSeconds } from '../clock.js';
import { callerNumber, makeCallee, market, type Callee } from './people.js';
import { apiPushData, workflowCallDetail } from './records.js';

const TEMPLATES = [
  'KYC verification',
  'Collections journey D+1',
  'Flash sale follow-up',
  'Payment reminder: message then call',
  'Onboarding welcome',
] as const;

/** How many workflow instances are seeded: more than two default pages. */
export const WORKFLOW_COUNT = 32;

export const workflowId = (i: number) => `wf-${20001 + i}`;

function entryOf(c: Callee, i: number): ListEntry {
  const entry: ListEntry = {
    callee: c.number,
    platform: c.platform,
    caseid: c.caseId,
    variables: { name: c.name, gender: c.gender, due_date: c.dueDate, amount: c.totalOwingAmount },
  };
  if (i % 3 === 0) entry.pds_variables = { agent_group: 'kyc-review', priority: String(1 + (i % 3)) };
  return entry;
}

function status(i: number): string {
  if (i < 2) return 'running';
  if (i === 2) return 'waiting';
  return i % 7 === 3 ? 'cancelled' : 'finished';
}

/** Seeds the workflow instances (newest first) with their contacts. */
export function seedWorkflows(state: SandboxState, rng: Rng, base: number): void {
  for (let i = 0; i < WORKFLOW_COUNT; i++) {
    const m = market(i);
    const created = base - 2 * HOUR - i * 14 * HOUR;
    const st = status(i);
    const contacts = Array.from({ length: i === 0 ? 12 : rng.int(3, 15) }, (_, k) => {
      const c = makeCallee(rng, m, created);
      // The first workflow's contacts have fixed numbers and case ids: SEED names them.
      if (i === 0)
        Object.assign(c, {
          number: `+62812345678${String(k + 1).padStart(2, '0')}`,
          caseId: `ID-KYC-${String(k + 1).padStart(4, '0')}`,
        });
      return entryOf(c, k);
    });
    const template = TEMPLATES[i % TEMPLATES.length] as string;
    const model: WorkflowModel = {
      instance: {
        workflow_id: workflowId(i),
        name: `${template} ${m.code} #${WORKFLOW_COUNT - i}`,
        template_name: template,
        start_time: st === 'waiting' ? null : isoSeconds(created + 10 * MINUTE),
        end_time: isoSeconds(created + (st === 'running' || st === 'waiting' ? 3 * DAY : DAY)),
        total: contacts.length,
        status: st,
        create_time: isoSeconds(created),
      },
      contacts,
      apiNodeId: i === 0 ? 'node-api-01' : undefined,
    };
    state.workflows.set(model.instance.workflow_id, model);
  }
}

/** Seeds the outbound information-check tasks of workflow nodes, with question-answer records. */
export function seedWorkflowTasks(state: SandboxState, rng: Rng): void {
  const specs = [
    { id: 'WT-IC-0001', wf: 0, node: 'nt-call-01', nodeName: 'KYC call', status: 'finished', from: 0, n: 6 },
    { id: 'WT-IC-0002', wf: 0, node: 'nt-call-02', nodeName: 'KYC call retry', status: 'calling', from: 6, n: 2 },
    { id: 'WT-IC-0003', wf: 1, node: 'nt-call-01', nodeName: 'Reminder call', status: 'finished', from: 0, n: 3 },
  ];
  for (const s of specs) {
    const wf = state.workflows.get(workflowId(s.wf)) as WorkflowModel;
    const m = market(s.wf);
    const start = Date.parse(wf.instance.start_time ?? wf.instance.create_time) + (s.from ? 2 * HOUR : 5 * MINUTE);
    const caller = callerNumber(rng, m);
    const detail: WorkflowTaskDetail = {
      task_id: s.id,
      task_name: `${wf.instance.name} / ${s.nodeName}`,
      status: s.status,
      created_at: isoSeconds(start - 5 * MINUTE),
      repeat_interval: 30,
      repeat_number: 1,
      robot_hash: 'rb-1004',
      robot_method: 'single',
      sip_line: `sip-${m.code.toLowerCase()}-kyc-01`,
      schedule_start_time: isoSeconds(start),
      schedule_end_time: isoSeconds(start + 10 * HOUR),
      workflow_id: wf.instance.workflow_id,
      workflow_name: wf.instance.name,
      nodetask_id: s.node,
      nodetask_name: s.nodeName,
      details: wf.contacts.slice(s.from, s.from + s.n).map((entry, k) =>
        workflowCallDetail(rng, {
          id: ++state.ids.record,
          robotHash: 'rb-1004',
          callee: calleeOf(entry, m.currency),
          start: start + k * 3 * MINUTE,
          callerNumber: caller,
        }),
      ),
    };
    state.workflowTasks.set(s.id, detail);
  }
}

function calleeOf(entry: ListEntry, currency: string): Callee {
  const v = entry.variables;
  return {
    name: v.name ?? '',
    gender: v.gender === 'male' ? 'male' : 'female',
    number: entry.callee,
    caseId: entry.caseid ?? '',
    platform: entry.platform,
    currency,
    borrowedDate: '',
    dueDate: v.due_date ?? '',
    borrowedAmount: '',
    totalOwingAmount: v.amount ?? '',
  };
}

/**
 * Seeds custom API node pushes of the first workflow, for verify-push: contacts 1 to 4 pushed in
 * the last days (contact 1 twice; the newest wins), contact 5 pushed 100 days ago, outside the
 * three-month history the endpoint covers.
 */
export function seedApiPushes(state: SandboxState, rng: Rng, base: number): void {
  const wf = state.workflows.get(workflowId(0)) as WorkflowModel;
  const pushes: Array<[number, number]> = [
    [0, base - 30 * HOUR],
    [0, base - 6 * HOUR],
    [1, base - 5 * HOUR],
    [2, base - 4 * HOUR],
    [3, base - 3 * HOUR],
    [4, base - 100 * DAY],
  ];
  for (const [k, at] of pushes) {
    const entry = wf.contacts[k] as ListEntry;
    const c = calleeOf(entry, market(0).currency);
    state.apiPushes.push({ pushedAt: at, data: apiPushData(rng, wf.instance, entry, c, at) });
  }
}
