import type { Context } from '../../context.js';
import { verifyPush } from '../../api/cloud.js';

export interface VerifyPushOptions {
  workflowId: string;
  nodeId: string;
  callee: string;
  caseId?: string;
}

/** Runs `workflow verify-push`. */
export async function runVerifyPush(ctx: Context, opts: VerifyPushOptions): Promise<number> {
  const data = await verifyPush(await ctx.client(), {
    workflow_id: opts.workflowId,
    node_id: opts.nodeId,
    callee: opts.callee,
    case_id: opts.caseId,
  });
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(data);
    return 0;
  }
  out.record(
    [
      ['workflow', `${data.workflow_id} (${data.workflow_name})`],
      ['node', `${data.node_id} (${data.node_name})`],
      ['callee', data.callee.callee_number],
      ['case', data.callee.case_id],
      ['task', data.call.task_id],
      ['call', data.call.call_id],
      ['robot', data.call.robot_id],
      ['start', data.call.call_start_time],
      ['end', data.call.call_end_time],
      ['intention', data.call.intention],
      ['ring', data.call.ring_type],
      ['hangup', data.call.hangup_type],
      ['custom', data.custom_attribute],
    ],
    'Pushed data',
  );
  return 0;
}
