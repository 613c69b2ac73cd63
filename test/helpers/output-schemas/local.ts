import { z } from 'zod';

/*
 * The zod schemas of callctl's own `--json` outputs (not the service's): the help pages' shapes are
 * drawn from them (test/help/shape-table.ts) and the tests parse each command's output with them.
 * The types the commands write, and what each field means, are in src/schemas/local-output.ts;
 * test/help/json-output-types.test-d.ts fails to compile if a schema and its type differ.
 */

/** Where a setting's value came from (src/config/settings.ts); null when it has none. */
const settingSource = z.enum(['flag', 'env', 'profile', 'default']).nullable();

/** `config get --json`. */
export const configGetJsonSchema = z.strictObject({
  key: z.string(),
  value: z.string().nullable(),
  source: settingSource,
});

/** `config set --json`. */
export const configSetJsonSchema = z.strictObject({ profile: z.string(), key: z.string(), set: z.literal(true) });

/** `config unset --json`. */
export const configUnsetJsonSchema = z.strictObject({
  profile: z.string(),
  key: z.string(),
  removed: z.literal(true),
});

/** `config list --json`. */
export const configListJsonSchema = z.strictObject({
  profile: z.string(),
  settings: z.record(z.string(), z.strictObject({ value: z.string().nullable(), source: settingSource })),
  profiles: z.array(z.string()),
});

/** One profile of `config profiles`. */
const profileRowSchema = z.strictObject({
  name: z.string(),
  current: z.boolean(),
  baseUrl: z.string().nullable(),
  token: z.enum(['stored', 'none']),
  tokenObtainedAt: z.string().nullable(),
});

/** `config profiles --json`. */
export const configProfilesJsonSchema = z.strictObject({
  current: z.string(),
  source: z.enum(['flag', 'env', 'config use', 'default']),
  profiles: z.array(profileRowSchema),
});

/** `config use --json`. */
export const configUseJsonSchema = z.strictObject({ current: z.string() });

/** `auth login --json`. */
export const authLoginJsonSchema = z.strictObject({
  profile: z.string(),
  baseUrl: z.string(),
  tokenObtainedAt: z.string(),
});

/** `auth logout --json`. */
export const authLogoutJsonSchema = z.strictObject({ profile: z.string(), removed: z.boolean() });

/** `auth status --json` (with --all, an array of these). */
export const authStatusJsonSchema = z.strictObject({
  profile: z.string(),
  baseUrl: z.string().nullable(),
  tokenSource: z.enum(['CALLCTL_TOKEN', 'profile', 'credentials in the environment']).nullable(),
  tokenBaseUrl: z.string().nullable(),
  tokenObtainedAt: z.string().nullable(),
  loggedIn: z.boolean(),
  accepted: z.boolean().nullable(),
  problem: z.string().nullable().optional(),
});

/** `auth token --json`. */
export const authTokenJsonSchema = z.strictObject({ token: z.string() });

/** `store migrate --json`. */
export const storeMigrateJsonSchema = z.strictObject({
  store: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  applied: z.array(z.number().int()),
  grants: z.array(z.string()),
});

/** `store status --json`. */
export const storeStatusJsonSchema = z.strictObject({
  store: z.string(),
  server: z.string(),
  version: z.number().int(),
  latest: z.number().int(),
  history: z.array(z.strictObject({ version: z.number().int(), description: z.string(), at: z.string() })),
  events: z.number().int(),
  firstEvent: z.string().nullable(),
  lastEvent: z.string().nullable(),
});

/** `sandbox --json`: one line, once it listens (its credentials are throwaway ones). */
export const sandboxJsonSchema = z.strictObject({
  url: z.string(),
  flexUrl: z.string(),
  flexTestUrl: z.string(),
  appKey: z.string(),
  appSecret: z.string(),
  pushToken: z.string(),
  pushTestToken: z.string(),
  signKey: z.string(),
  signSecret: z.string(),
  notifyUrl: z.string().nullable(),
  notifyKey: z.string(),
  timeScale: z.number(),
  tokenTtlSeconds: z.number(),
  variants: z.array(z.string()),
  seed: z.record(z.string(), z.unknown()),
});

/** `task detail --watch --json`: one line per change, the task's summary (its calls counted by their Status). */
export const taskWatchJsonSchema = z.strictObject({
  TaskID: z.string(),
  TaskName: z.string(),
  Status: z.string(),
  Calls: z.number().int(),
  Answered: z.number().int(),
  Unanswered: z.number().int(),
});

/**
 * The line on stderr when a command fails under `--json` (src/main.ts): the error's kind, its one
 * line and exit code, and the details its kind adds (a service error: endpoint, httpStatus,
 * serviceCode...), never a secret.
 */
export const errorJsonSchema = z.strictObject({
  error: z.looseObject({
    kind: z.enum([
      'usage',
      'input',
      'auth',
      'network',
      'service',
      'service-unavailable',
      'not-found',
      'wrong-scheme',
      'local',
      'interrupted',
      'internal',
    ]),
    message: z.string(),
    exitCode: z.number().int(),
  }),
});

/** `callctl store list --json`: what the store keeps, for which destination (src/store/inventory.ts). */
export const storeListJsonSchema = z.strictObject({
  store: z.string(),
  uploads: z.array(
    z.strictObject({
      destination: z.string(),
      workflowId: z.string(),
      file: z.string(),
      status: z.enum(['done', 'unfinished', 'uncertain']),
      batches: z.number().int(),
      entries: z.number().int(),
      uncertainBatches: z.number().int(),
      lastAt: z.string(),
      where: z.string(),
    }),
  ),
  sends: z.array(
    z.strictObject({
      command: z.string(),
      destination: z.string(),
      file: z.string(),
      sent: z.number().int(),
      failed: z.number().int(),
      uncertain: z.number().int(),
      lastAt: z.string(),
      where: z.string(),
    }),
  ),
  ledgers: z.array(z.strictObject({ destination: z.string(), people: z.number().int(), lastAt: z.string() })),
});
