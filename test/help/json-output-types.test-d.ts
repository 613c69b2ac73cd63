/**
 * callctl's own `--json` outputs have a type in src/schemas/*-output.ts (what the commands write)
 * and a zod schema in test/helpers/output-schemas/ (what the help pages show and the tests parse
 * the output with). They cannot drift: `npx tsc --noEmit`, which compiles test/, fails here when a
 * field is added, removed, renamed, made optional or retyped on one side only. Nothing here runs.
 */
import { expectTypeOf } from 'vitest';
import type { z } from 'zod';
import type * as hooks from '../../src/schemas/hooks-output.js';
import type * as local from '../../src/schemas/local-output.js';
import type * as report from '../../src/schemas/report-output.js';
import type * as run from '../../src/schemas/run-output.js';
import * as hooksSchemas from '../helpers/output-schemas/hooks.js';
import * as localSchemas from '../helpers/output-schemas/local.js';
import * as reportSchemas from '../helpers/output-schemas/report.js';
import * as runSchemas from '../helpers/output-schemas/run.js';

expectTypeOf<z.infer<typeof localSchemas.configGetJsonSchema>>().toEqualTypeOf<local.ConfigGetJson>();
expectTypeOf<z.infer<typeof localSchemas.configSetJsonSchema>>().toEqualTypeOf<local.ConfigSetJson>();
expectTypeOf<z.infer<typeof localSchemas.configUnsetJsonSchema>>().toEqualTypeOf<local.ConfigUnsetJson>();
expectTypeOf<z.infer<typeof localSchemas.configListJsonSchema>>().toEqualTypeOf<local.ConfigListJson>();
expectTypeOf<z.infer<typeof localSchemas.configProfilesJsonSchema>>().toEqualTypeOf<local.ConfigProfilesJson>();
expectTypeOf<z.infer<typeof localSchemas.configUseJsonSchema>>().toEqualTypeOf<local.ConfigUseJson>();
expectTypeOf<z.infer<typeof localSchemas.authLoginJsonSchema>>().toEqualTypeOf<local.AuthLoginJson>();
expectTypeOf<z.infer<typeof localSchemas.authLogoutJsonSchema>>().toEqualTypeOf<local.AuthLogoutJson>();
expectTypeOf<z.infer<typeof localSchemas.authStatusJsonSchema>>().toEqualTypeOf<local.AuthStatusJson>();
expectTypeOf<z.infer<typeof localSchemas.authTokenJsonSchema>>().toEqualTypeOf<local.AuthTokenJson>();
expectTypeOf<z.infer<typeof localSchemas.storeMigrateJsonSchema>>().toEqualTypeOf<local.StoreMigrateJson>();
expectTypeOf<z.infer<typeof localSchemas.storeStatusJsonSchema>>().toEqualTypeOf<local.StoreStatusJson>();
expectTypeOf<z.infer<typeof localSchemas.storeListJsonSchema>>().toEqualTypeOf<local.StoreListJson>();
expectTypeOf<z.infer<typeof localSchemas.sandboxJsonSchema>>().toEqualTypeOf<local.SandboxJson>();
expectTypeOf<z.infer<typeof localSchemas.taskWatchJsonSchema>>().toEqualTypeOf<local.TaskWatchJson>();
expectTypeOf<z.infer<typeof localSchemas.errorJsonSchema>>().toEqualTypeOf<local.ErrorJson>();

expectTypeOf<z.infer<typeof hooksSchemas.serveHooksLineSchema>>().toEqualTypeOf<hooks.ServeHooksLine>();
expectTypeOf<z.infer<typeof hooksSchemas.hooksEventsLineSchema>>().toEqualTypeOf<hooks.HooksEventsLine>();
expectTypeOf<z.infer<typeof hooksSchemas.hooksShowJsonSchema>>().toEqualTypeOf<hooks.HooksShowJson>();
expectTypeOf<z.infer<typeof hooksSchemas.hooksReplayLineSchema>>().toEqualTypeOf<hooks.HooksReplayLine>();
expectTypeOf<z.infer<typeof hooksSchemas.hooksTriggerJsonSchema>>().toEqualTypeOf<hooks.HooksTriggerJson>();

expectTypeOf<z.infer<typeof reportSchemas.taskReportJsonSchema>>().toEqualTypeOf<report.TaskReportJson>();
expectTypeOf<z.infer<typeof reportSchemas.planReportJsonSchema>>().toEqualTypeOf<report.PlanReportJson>();
expectTypeOf<z.infer<typeof reportSchemas.workflowReportJsonSchema>>().toEqualTypeOf<report.WorkflowReportJson>();

expectTypeOf<z.infer<typeof runSchemas.workflowUpdateJsonSchema>>().toEqualTypeOf<run.WorkflowUpdateJson>();
expectTypeOf<z.infer<typeof runSchemas.csvSendJsonSchema>>().toEqualTypeOf<run.CsvSendJson>();
expectTypeOf<z.infer<typeof runSchemas.sendDryRunJsonSchema>>().toEqualTypeOf<run.SendDryRunJson>();
expectTypeOf<z.infer<typeof runSchemas.sendSkippedJsonSchema>>().toEqualTypeOf<run.SendSkippedJson>();
