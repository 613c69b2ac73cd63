import { z } from 'zod';

/*
 * callctl's own `--json` outputs (not the service's): the shapes the help pages show
 * (src/help/json-shapes.ts) and that test/help/json-shapes.test.ts checks each command against.
 * The commands write these objects with `satisfies` their types, so a change shows in all three.
 */

/** Where a setting's value came from (src/config/settings.ts); null when it has none. */
const settingSource = z.enum(['flag', 'env', 'profile', 'default']).nullable();

/** `config get --json`. */
export const configGetJsonSchema = z.strictObject({
  key: z.string(),
  value: z.string().nullable(),
  source: settingSource,
});
export type ConfigGetJson = z.infer<typeof configGetJsonSchema>;

/** `config set --json`. */
export const configSetJsonSchema = z.strictObject({ profile: z.string(), key: z.string(), set: z.literal(true) });
export type ConfigSetJson = z.infer<typeof configSetJsonSchema>;

/** `config unset --json`. */
export const configUnsetJsonSchema = z.strictObject({
  profile: z.string(),
  key: z.string(),
  removed: z.literal(true),
});
export type ConfigUnsetJson = z.infer<typeof configUnsetJsonSchema>;

/** `config list --json`. */
export const configListJsonSchema = z.strictObject({
  profile: z.string(),
  settings: z.record(z.string(), z.strictObject({ value: z.string().nullable(), source: settingSource })),
  profiles: z.array(z.string()),
});
export type ConfigListJson = z.infer<typeof configListJsonSchema>;

/** One profile of `config profiles`. */
export const profileRowSchema = z.strictObject({
  name: z.string(),
  current: z.boolean(),
  baseUrl: z.string().nullable(),
  token: z.enum(['stored', 'none']),
  tokenObtainedAt: z.string().nullable(),
});
export type ProfileRow = z.infer<typeof profileRowSchema>;

/** `config profiles --json`. */
export const configProfilesJsonSchema = z.strictObject({
  current: z.string(),
  source: z.enum(['flag', 'env', 'config use', 'default']),
  profiles: z.array(profileRowSchema),
});
export type ConfigProfilesJson = z.infer<typeof configProfilesJsonSchema>;

/** `config use --json`. */
export const configUseJsonSchema = z.strictObject({ current: z.string() });
export type ConfigUseJson = z.infer<typeof configUseJsonSchema>;

/** `auth login --json`. */
export const authLoginJsonSchema = z.strictObject({
  profile: z.string(),
  baseUrl: z.string(),
  tokenObtainedAt: z.string(),
});
export type AuthLoginJson = z.infer<typeof authLoginJsonSchema>;

/** `auth logout --json`. */
export const authLogoutJsonSchema = z.strictObject({ profile: z.string(), removed: z.boolean() });
export type AuthLogoutJson = z.infer<typeof authLogoutJsonSchema>;

/** `auth status --json` (with --all, an array of these). */
export const authStatusJsonSchema = z.strictObject({
  profile: z.string(),
  baseUrl: z.string().nullable(),
  tokenSource: z.enum(['CALLCTL_TOKEN', 'profile', 'credentials in the environment']).nullable(),
  tokenBaseUrl: z.string().nullable(),
  tokenObtainedAt: z.string().nullable(),
  loggedIn: z.boolean(),
  /** What the service said of the token: true, false, or null when not asked (--offline). */
  accepted: z.boolean().nullable(),
  /** With --all: why the profile's token does not work or could not be checked (null: it works). */
  problem: z.string().nullable().optional(),
});
export type AuthStatusJson = z.infer<typeof authStatusJsonSchema>;

/** `auth token --json`. */
export const authTokenJsonSchema = z.strictObject({ token: z.string() });
export type AuthTokenJson = z.infer<typeof authTokenJsonSchema>;

/** `store migrate --json`. */
export const storeMigrateJsonSchema = z.strictObject({
  store: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  /** The versions applied by this run, in order (none: it was up to date). */
  applied: z.array(z.number().int()),
  /** What the tables' owner runs so that a role of its own (--grant-to) may run callctl on them. */
  grants: z.array(z.string()),
});
export type StoreMigrateJson = z.infer<typeof storeMigrateJsonSchema>;

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
export type StoreStatusJson = z.infer<typeof storeStatusJsonSchema>;

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
  /** The seeded ids (tasks, plans, workflows...), for scripts. */
  seed: z.record(z.string(), z.unknown()),
});
export type SandboxJson = z.infer<typeof sandboxJsonSchema>;

/** `task detail --watch --json`: one line per change, the task's summary (its calls counted by their Status). */
export const taskWatchJsonSchema = z.strictObject({
  TaskID: z.string(),
  TaskName: z.string(),
  Status: z.string(),
  Calls: z.number().int(),
  Answered: z.number().int(),
  Unanswered: z.number().int(),
});
export type TaskWatchJson = z.infer<typeof taskWatchJsonSchema>;

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
export type ErrorJson = z.infer<typeof errorJsonSchema>;

/** `callctl store list --json`: what the store keeps, for which destination (src/store/inventory.ts). */
export const storeListJsonSchema = z.strictObject({
  /** Where it is: the state folder, or the shared store. */
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
export type StoreListJson = z.infer<typeof storeListJsonSchema>;
