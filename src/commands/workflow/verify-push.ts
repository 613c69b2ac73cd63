import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

function declare(workflow: Command) {
  return workflow
    .command('verify-push')
    .description(
      'check the data a custom API node pushed, last three months (POST /service/cloud/workflow/apinoticeinfo)',
    )
    .requiredOption('--workflow-id <id>', 'workflow id')
    .requiredOption('--node-id <id>', 'API node id')
    .requiredOption('--callee <number>', "the list entry's phone number")
    .option('--case-id <id>', "the list entry's case id")
    .addHelpText(
      'after',
      `
Examples:
  callctl workflow verify-push --workflow-id WF-1001 --node-id N-API-1 --callee +6281234567001
  callctl workflow verify-push --workflow-id WF-1001 --node-id N-API-1 --callee +6281234567001 --json | jq .call

JSON (--json): the envelope's data, the push body:
${JSON_SHAPES.verifyPush}`,
    );
}

export type VerifyPushOptions = FlagsOf<typeof declare>;

export function register(workflow: Command, { start }: Deps): void {
  declare(workflow).action((flags, command) => start(command, runVerifyPush, flags));
}

export async function runVerifyPush(ctx: Context, opts: VerifyPushOptions): Promise<number> {
  const { verifyPush } = await import('../../api/cloud.js');
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
