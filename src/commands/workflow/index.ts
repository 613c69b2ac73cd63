import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as list from './list.js';
import * as update from './update.js';
import * as verifyPush from './verify-push.js';
import * as taskDetail from './task-detail.js';
import * as report from './report.js';

export function register(parent: Command, deps: Deps): void {
  const workflow = parent
    .command('workflow')
    .description('workflow tasks: list, contact upload, data-push checks, outbound task details');
  for (const verb of [list, update, verifyPush, taskDetail, report]) verb.register(workflow, deps);
}
