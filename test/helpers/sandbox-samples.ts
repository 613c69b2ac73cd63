import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../../src/sandbox/server.js';
import { serviceSign } from '../../src/sandbox/spec/sign.js';

/**
 * Bodies of the notifications the spec ties to no operation the sandbox simulates, written from
 * the spec's Events section, and sent through a sandbox's notifier (`sendSample`).
 */

/** The types a test sends through the sandbox's notifier. */
type OnDemandType = 'workflow.api_push' | 'chatbot.session_closed' | 'chatbot.transfer' | 'template.status';

type Json = Record<string, unknown>;

const id = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A realistic body of each type, with the fields the spec's Events section lists and fresh
 * identifiers (so two samples are two events, not a retry).
 */
export function sampleBody(type: OnDemandType, now = Date.now()): Json {
  const seconds = Math.floor(now / 1000);
  switch (type) {
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
        channel_id: 'CH-1',
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
 * Sends a sample of `type` (with `patch`'s fields over it) through a sandbox's notifier, which
 * retries it as the spec says; a chatbot one with the `X-Service-Sign` of its exact bytes (callctl's
 * assumed default, HMAC-SHA256 with `secret`, by default the sandbox's notify KEY). Returns the body.
 */
export function sendSample(sb: Sandbox, type: OnDemandType, patch: Json = {}, secret = sb.notifyKey): Json {
  const body = { ...sampleBody(type), ...patch };
  const raw = JSON.stringify(body);
  const sign = type.startsWith('chatbot.') ? { raw, headers: { 'x-service-sign': serviceSign(raw, secret) } } : {};
  sb.notifier!.send({ kind: type, body, ...sign });
  return body;
}
