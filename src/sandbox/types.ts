import type { EventEmitter } from 'node:events';
import type { TaskStatus, PlanStatus } from './spec/shapes.js';
import type { SimClock } from './clock.js';
import type { BatchFaultTracker, FaultName, FaultPatch, FaultSettings } from './faults.js';
import type { Rng } from './random.js';
import type { TokenStore } from './auth.js';
import type { CallingTask, PlanView, ReceivedPush, ReceivedTemplate, SandboxState, TaskModel } from './state.js';
import type { Simulator } from './simulator.js';
import type { VariantName, Variants } from './variants.js';
import type { Notification } from './notify-bodies.js';

/** Delivers notifications, retrying on the spec's schedule. The sandbox's hook point for webhooks. */
export interface Notifier {
  /** Queues a delivery: first attempt now, then up to `maxRetries` retries `retryIntervalMs` apart. */
  send(notification: Notification): void;
  /** Deliveries not yet delivered nor given up. */
  pending(): number;
  /** Resolves when nothing is pending. */
  idle(): Promise<void>;
  /** Stops: clears retry timers and aborts requests in flight. */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default `demo-app-key`. */
  appKey?: string;
  /** Default `SANDBOX_DEFAULTS.appSecret`. */
  appSecret?: string;
  /** Token lifetime in real seconds (default 7200). Expired tokens are rejected with HTTP 401. */
  tokenTtlSeconds?: number;
  /** Simulated-time speed: 1 = real time (default); tests use e.g. 1000. */
  timeScale?: number;
  /** Seed of the generated data (default 1). The `SEED` ids do not depend on it. */
  seed?: number;
  /** Simulated time at start (epoch ms or ISO text); default now. Fix it for byte-identical seed data. */
  startTime?: number | string;
  pushToken?: string;
  /** Default `${pushToken}_test`. */
  pushTestToken?: string;
  /** `X-Service-Sign-Key` the template endpoint accepts. */
  signKey?: string;
  /** Secret of the default `X-Service-Sign` (HMAC-SHA256 of the raw body, hex). */
  signSecret?: string;
  /** Where task-end and plan-end notifications go; none when unset. */
  notifyUrl?: string;
  /** KEY of the notifications' MD5 `Sign` (default `demo-hook-key`). */
  notifyKey?: string;
  /** Notification attempts under way at once at most (default 256); the others wait their turn. */
  notifyConcurrency?: number;
  /** Initial fault settings. */
  faults?: FaultPatch;
  /** Variants to answer with (variants.ts, `SANDBOX_VARIANTS`); none: the spec read literally. */
  variants?: readonly (VariantName | string)[];
  /** Keep every accepted list entry in `state.received.updates` (default true; a benchmark may turn it off). */
  keepEntries?: boolean;
  /** How many request records `sandbox.requests` keeps, newest last (default 10,000). */
  maxRequestRecords?: number;
  /** Request bodies are kept in the records up to this many bytes (default 16 KiB). */
  maxRecordedBodyBytes?: number;
}

export type ResolvedOptions = Required<
  Omit<SandboxOptions, 'notifyUrl' | 'faults' | 'startTime' | 'variants' | 'notifyConcurrency'>
> & {
  notifyUrl?: string;
  startTime: number;
};

/** How the sandbox dealt with a request. */
export type RequestOutcome = 'answered' | 'dropped' | 'dropped-after-body' | 'dropped-answer' | 'aborted';

/** One request received (admin requests excluded). */
export interface RequestRecord {
  seq: number;
  method: string;
  /** Path and query as received. */
  path: string;
  /** Real time received, epoch ms. */
  time: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, up to `maxRecordedBodyBytes`. */
  body: string;
  bodyBytes: number;
  bodyTruncated: boolean;
  outcome: RequestOutcome;
  /** HTTP status answered (absent when dropped). */
  status?: number;
  /** The `code` of the answer's JSON body, when it has one. */
  code?: number;
  fault?: FaultName;
  durationMs: number;
}

/** Typed simulation events (`sandbox.events`). */
export interface SandboxEventMap {
  request: [RequestRecord];
  fault: [{ name: FaultName; method: string; path: string }];
  'task.status': [{ task: CallingTask; from: TaskStatus; to: TaskStatus; planName?: string }];
  'task.finished': [{ task: CallingTask; planName?: string }];
  'plan.status': [{ plan: PlanView; from: PlanStatus; to: PlanStatus }];
  /** `lastRound`: the round whose end finished the plan (absent when the plan had none). */
  'plan.finished': [{ plan: PlanView; lastRound?: TaskModel }];
  'workflow.updated': [{ workflowId: string; count: number; batch: number; total: number }];
  'push.received': [ReceivedPush];
  'template.received': [ReceivedTemplate];
  /** A notification was delivered (2xx) or an attempt failed. */
  'notify.sent': [{ kind: string; id: string; url: string; attempt: number; status: number }];
  /** `status`: the HTTP status answered, absent when none came (refused, cut, timed out). */
  'notify.failed': [
    { kind: string; id: string; url: string; attempt: number; status?: number; error: string; willRetry: boolean },
  ];
  /** A handler threw: the request was answered 500. */
  'internal-error': [Error];
}

export type SandboxEvents = EventEmitter<SandboxEventMap>;

/** Everything a route handler can reach. Internal to the sandbox. */
export interface Engine {
  options: ResolvedOptions;
  state: SandboxState;
  clock: SimClock;
  tokens: TokenStore;
  faults: FaultSettings;
  batchFaults: BatchFaultTracker;
  variants: Variants;
  events: SandboxEvents;
  simulate: Simulator;
  rng: Rng;
  requests: RequestRecord[];
  /** Base URL once listening. */
  url: string;
}
