/*
 * callctl's own `--json` outputs (not the service's), which the commands write `satisfies` these
 * types. Their zod schemas (the help pages' shapes, and what the tests parse the output with) are in
 * test/helpers/output-schemas/local.ts; test/help/json-output-types.test-d.ts keeps both the same.
 */

/** Where a setting's value came from (src/config/settings.ts); null when it has none. */
type SettingSource = 'flag' | 'env' | 'profile' | 'default' | null;

/** `config get --json`. */
export type ConfigGetJson = { key: string; value: string | null; source: SettingSource };

/** `config set --json`. */
export type ConfigSetJson = { profile: string; key: string; set: true };

/** `config unset --json`. */
export type ConfigUnsetJson = { profile: string; key: string; removed: true };

/** `config list --json`. */
export interface ConfigListJson {
  profile: string;
  settings: Record<string, { value: string | null; source: SettingSource }>;
  profiles: string[];
}

/** One profile of `config profiles`. */
export interface ProfileRow {
  name: string;
  current: boolean;
  baseUrl: string | null;
  token: 'stored' | 'none';
  tokenObtainedAt: string | null;
}

/** `config profiles --json`. */
export interface ConfigProfilesJson {
  current: string;
  source: 'flag' | 'env' | 'config use' | 'default';
  profiles: ProfileRow[];
}

/** `config use --json`. */
export type ConfigUseJson = { current: string };

/** `auth login --json`. */
export type AuthLoginJson = { profile: string; baseUrl: string; tokenObtainedAt: string };

/** `auth logout --json`. */
export type AuthLogoutJson = { profile: string; removed: boolean };

/** `auth status --json` (with --all, an array of these). */
export interface AuthStatusJson {
  profile: string;
  baseUrl: string | null;
  tokenSource: 'CALLCTL_TOKEN' | 'profile' | 'credentials in the environment' | null;
  tokenBaseUrl: string | null;
  tokenObtainedAt: string | null;
  loggedIn: boolean;
  /** What the service said of the token: true, false, or null when not asked (--offline). */
  accepted: boolean | null;
  /** With --all: why the profile's token does not work or could not be checked (null: it works). */
  problem?: string | null;
}

/** `auth token --json`. */
export type AuthTokenJson = { token: string };

/** `store migrate --json` (versions are integers). */
export interface StoreMigrateJson {
  store: string;
  from: number;
  to: number;
  /** The versions applied by this run, in order (none: it was up to date). */
  applied: number[];
  /** What the tables' owner runs so that a role of its own (--grant-to) may run callctl on them. */
  grants: string[];
}

/** `store status --json` (versions and counts are integers). */
export interface StoreStatusJson {
  store: string;
  server: string;
  version: number;
  latest: number;
  history: Array<{ version: number; description: string; at: string }>;
  events: number;
  firstEvent: string | null;
  lastEvent: string | null;
}

/** `sandbox --json`: one line, once it listens (its credentials are throwaway ones). */
export interface SandboxJson {
  url: string;
  flexUrl: string;
  flexTestUrl: string;
  appKey: string;
  appSecret: string;
  pushToken: string;
  pushTestToken: string;
  signKey: string;
  signSecret: string;
  notifyUrl: string | null;
  notifyKey: string;
  timeScale: number;
  tokenTtlSeconds: number;
  variants: string[];
  /** The seeded ids (tasks, plans, workflows...), for scripts. */
  seed: Record<string, unknown>;
}

/** `task detail --watch --json`: one line per change, the task's summary (its calls counted by their Status). */
export interface TaskWatchJson {
  TaskID: string;
  TaskName: string;
  Status: string;
  Calls: number;
  Answered: number;
  Unanswered: number;
}

/**
 * The line on stderr when a command fails under `--json` (src/main.ts): the error's kind, its one
 * line and exit code, and the details its kind adds (a service error: endpoint, httpStatus,
 * serviceCode...), never a secret.
 */
export interface ErrorJson {
  error: {
    kind:
      | 'usage'
      | 'input'
      | 'auth'
      | 'network'
      | 'service'
      | 'service-unavailable'
      | 'not-found'
      | 'wrong-scheme'
      | 'local'
      | 'interrupted'
      | 'internal';
    message: string;
    exitCode: number;
    [detail: string]: unknown;
  };
}

/** `callctl store list --json`: what the store keeps, for which destination (src/store/inventory.ts); counts are integers. */
export interface StoreListJson {
  /** Where it is: the state folder, or the shared store. */
  store: string;
  uploads: Array<{
    destination: string;
    workflowId: string;
    file: string;
    status: 'done' | 'unfinished' | 'uncertain';
    batches: number;
    entries: number;
    uncertainBatches: number;
    lastAt: string;
    where: string;
  }>;
  sends: Array<{
    command: string;
    destination: string;
    file: string;
    sent: number;
    failed: number;
    uncertain: number;
    lastAt: string;
    where: string;
  }>;
  ledgers: Array<{ destination: string; people: number; lastAt: string }>;
}
