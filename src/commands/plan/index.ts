import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import { watchOptions } from '../watch-options.js';
import { reportOptions } from '../report-options.js';
import { REPORT_HELP } from '../task/index.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';

export function register(parent: Command, { run }: Deps): void {
  const plan = parent.command('plan').description('calling plans');
  watchOptions(
    plan.command('status <PlanName>').description("show a plan's status (GET /service/cloud/planstatus)"),
    'the status',
    true,
  )
    .addHelpText(
      'after',
      `
Examples:
  callctl plan status SPRING-PLAN
  callctl plan status SPRING-PLAN --json | jq -r .PlanStatus
  callctl plan status SPRING-PLAN --watch
  callctl plan status SPRING-PLAN --exit-status --interval 30 && echo "finished"

Watch: --watch redraws the status every --interval seconds on a terminal; piped, it prints a
timestamped line each time the status changes. --exit-status watches until a final status and
exits 0 when finished, 1 when canceled (Ctrl-C: 130). While the service cannot answer (network,
5xx) the error is shown and the wait doubles, up to 60 s; any other error ends the watch.

JSON (--json): the envelope's data; with --watch, one such line per change:
${JSON_SHAPES.planStatus}`,
    )
    .action(run(() => import('./status.js').then((m) => m.runPlanStatus)));
  plan
    .command('detail <PlanName>')
    .description("show a plan's rounds and their tasks (GET /service/cloud/plandetail)")
    .addHelpText(
      'after',
      `
Columns: ROUND, TASK NAME, TASK ID, STATUS.

Examples:
  callctl plan detail SPRING-PLAN
  callctl plan detail SPRING-PLAN | cut -f3 | xargs -n1 callctl task detail

JSON (--json): the envelope's data:
${JSON_SHAPES.planDetail}`,
    )
    .action(run(() => import('./detail.js').then((m) => m.runPlanDetail)));
  reportOptions(
    plan
      .command('report <PlanName>')
      .description(
        "a plan's campaign numbers: each round, then all rounds' calls together (plandetail, then each round's task detail)",
      ),
  )
    .addHelpText(
      'after',
      `
${REPORT_HELP}

Examples:
  callctl plan report SPRING-PLAN
  callctl plan report SPRING-PLAN --json | jq '.rounds[] | {Rounds, connected: .rates.connected}'
  callctl plan report SPRING-PLAN --format html -o spring.html

JSON (--json): rates are fractions or null, shares of the distribution's total or null:
${JSON_SHAPES.planReport}`,
    )
    .action(run(() => import('./report.js').then((m) => m.runPlanReport)));
}
