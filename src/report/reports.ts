import type { CloudClient } from '../api/client.js';
import { getPlanDetail, streamTask, streamWorkflowTask } from '../api/cloud.js';
import type { CallRecord } from '../schemas/task.js';
import type { WorkflowCallDetail } from '../schemas/workflow.js';
import { viewOfRecord, viewOfWorkflowCall } from './reading.js';
import type { PlanReportJson, RoundReport, TaskReportJson, WorkflowReportJson } from '../schemas/report-output.js';
import { CallStats } from './stats.js';

/** Streams a task's records into fresh numbers, starting over if the request is retried. */
async function addTask(client: CloudClient, taskId: string) {
  let stats = new CallStats();
  const task = await streamTask(client, taskId, {
    start: () => {
      stats = new CallStats();
    },
    records: (items: CallRecord[]) => {
      for (const r of items) stats.add(viewOfRecord(r));
    },
  });
  return { task, stats };
}

export async function taskReport(client: CloudClient, taskId: string): Promise<TaskReportJson> {
  const { task, stats } = await addTask(client, taskId);
  const { TaskID, TaskName, Status, ScheduleStartTime, ScheduleEndTime } = task;
  return { task: { TaskID, TaskName, Status, ScheduleStartTime, ScheduleEndTime }, ...stats.numbers() };
}

/** Walks the plan's rounds (plan detail), then each round's task detail, one after the other. */
export async function planReport(client: CloudClient, planName: string): Promise<PlanReportJson> {
  const plan = await getPlanDetail(client, planName);
  const rounds: RoundReport[] = [];
  const whole = new CallStats();
  for (const round of plan.PlanDetails) {
    const { stats } = await addTask(client, round.TaskID);
    whole.merge(stats);
    const own = stats.numbers();
    rounds.push({
      Rounds: round.Rounds,
      TaskName: round.TaskName,
      TaskID: round.TaskID,
      Status: round.Status,
      totals: own.totals,
      rates: own.rates,
    });
  }
  return { plan: { PlanName: plan.PlanName }, rounds, ...whole.numbers() };
}

export async function workflowReport(client: CloudClient, taskId: string): Promise<WorkflowReportJson> {
  let stats = new CallStats();
  const task = await streamWorkflowTask(client, taskId, {
    start: () => {
      stats = new CallStats();
    },
    records: (items: WorkflowCallDetail[]) => {
      for (const d of items) stats.add(viewOfWorkflowCall(d));
    },
  });
  const { task_id, task_name, status, workflow_id, workflow_name, nodetask_id, nodetask_name } = task;
  return {
    task: { task_id, task_name, status, workflow_id, workflow_name, nodetask_id, nodetask_name },
    ...stats.numbers(),
  };
}
