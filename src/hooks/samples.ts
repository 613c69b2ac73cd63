import { randomBytes } from 'node:crypto';
import type { EventType } from '../schemas/events.js';

export type SampleType = Exclude<EventType, 'unknown'>;

type Json = Record<string, unknown>;

const id = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A realistic body of each type, valid against its schema, with fresh identifiers (so two samples
 * are two events, not a retry). `Sign` is left empty: signSample fills it in.
 */
export function sampleBody(type: SampleType, now = Date.now()): Json {
  const seconds = Math.floor(now / 1000);
  const plan = id('PLAN-');
  switch (type) {
    case 'plan.end':
      return {
        PlanName: plan,
        Timestamp: String(seconds),
        Sign: '',
        PlanDetails: [1, 2].map((round) => ({
          Rounds: String(round),
          TaskName: `${plan}_${round}`,
          TaskID: id('T-'),
          Status: 'finished',
        })),
      };
    case 'task.end':
      return { TaskID: id('T-'), TaskName: 'Collections November round 1', Sign: '', PlanName: plan };
    case 'workflow.api_push':
      return {
        workflow_id: id('WF-'),
        workflow_name: 'Payment reminder',
        node_id: 'N-API-1',
        node_name: 'Push result to CRM',
        callee: {
          case_id: id('CASE-'),
          callee_name: 'Budi Santoso',
          callee_gender: 'male',
          callee_number: '+6281234567001',
          platform_name: 'lender-app',
          extra_a: '',
          extra_b: '',
          extra_c: '',
          comments: '',
          borrowed_date: '2026-10-01',
          due_date: '2026-11-01',
          borrowed_amount: '1500000.00',
          total_owing_amount: '1650000.00',
          currency_unit: 'IDR',
          extra: [{ Question: 'Preferred payment day', Content: 'Friday' }],
          extend: { variables: { customer_name: 'Budi Santoso' } },
        },
        custom_attribute: { campaign: 'november' },
        call: {
          task_id: id('T-'),
          call_id: id('C-'),
          call_start_time: iso(now - 95_000),
          call_end_time: iso(now - 5_000),
          call_times: 1,
          ring_type: 'normal',
          hangup_type: 'ByCallee',
          intention: 'A',
          slots: '',
          multi_label: {},
          asr_ptp: 'Friday',
          asr_result: [
            { time: '00:00:02', robottext: 'Hello, this is a payment reminder.', text: '' },
            { time: '00:00:07', robottext: '', text: 'I will pay on Friday.' },
          ],
        },
      };
    case 'template.status':
      return {
        workflow_id: id('WF-'),
        workflow_name: 'Delivery notice',
        nodetask_id: id('NT-'),
        nodetask_name: 'Send template',
        waba_task_id: id('WT-'),
        wfdetail_uuid: id('WD-'),
        timestamp: seconds,
        status: 'delivery',
        msg_id: id('M-'),
        send_time: iso(now - 2_000),
        waba_template_name: 'order_shipped',
        waba_template_id: 1042,
        // The person's id on the channel (a WhatsApp number), as a template message names them.
        channel_id: '+6281234567002',
        callee: '+6281234567002',
        variables: { order: 'A-1009' },
      };
    case 'chatbot.session_closed':
      return {
        event: 'session.closed',
        call_id: id('S-'),
        channel: 'whatsapp',
        channel_id: 'CH-1',
        user: { id: 'U-6281234567003', name: 'Sari' },
        messages: [
          {
            msg_id: id('M-'),
            timestamp: seconds - 30,
            sender: 'robot',
            content: { type: 'text', text: 'How can I help?' },
          },
          {
            msg_id: id('M-'),
            timestamp: seconds - 10,
            sender: 'user',
            content: { type: 'text', text: 'All good, thanks.' },
          },
        ],
      };
    case 'chatbot.transfer':
      return {
        event: 'session.transfer',
        channel: 'whatsapp',
        channel_id: 'CH-1',
        user: { id: 'U-6281234567004', name: 'Agus' },
        call_id: id('S-'),
        company: 'ACME Finance',
        conclusion: { record_slots: { topic: 'refund' }, output_label: 'wants_agent' },
      };
  }
}

/**
 * Sets `path` (dotted, array indexes as numbers) to `value`, httpie style: `field=text` keeps the
 * type of a number already there; `field:=json` sets raw JSON. Throws with a one-line reason.
 */
export function applySet(body: Json, assignment: string): void {
  const m = /^([^=:]+)(:?=)(.*)$/s.exec(assignment);
  if (!m) throw new Error(`expected field=value or field:=json, got "${assignment}"`);
  const [, path, op, text] = m as unknown as [string, string, string, string];
  const parts = path.split('.');
  let target: Record<string, unknown> = body;
  for (const part of parts.slice(0, -1)) {
    const next = target[part];
    if (typeof next !== 'object' || next === null) target[part] = {};
    target = target[part] as Record<string, unknown>;
  }
  const last = parts.at(-1)!;
  if (op === ':=') {
    try {
      target[last] = JSON.parse(text);
    } catch {
      throw new Error(`${path}: not JSON after :=`);
    }
    return;
  }
  const old = target[last];
  if (typeof old === 'number') {
    const n = Number(text);
    if (!Number.isFinite(n)) throw new Error(`${path}: expected a number`);
    target[last] = n;
  } else {
    target[last] = text;
  }
}

/** Changes one character of a hex (or any) string, keeping its length and alphabet. */
export function flipChar(text: string, at = text.length - 1): string {
  if (!text) return '0';
  const c = text[at]!;
  const swapped = c === '0' ? '1' : /[0-9a-f]/.test(c) ? '0' : c === 'x' ? 'y' : 'x';
  return text.slice(0, at) + swapped + text.slice(at + 1);
}
