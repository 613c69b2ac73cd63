import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { addSecret } from '../redact.js';
import { said, type Said } from '../said.js';
import { EVENT_TYPES, type EventType } from '../schemas/events.js';
import { webhookKey } from '../signing/webhook.js';
import type { ListenerOptions } from './listener.js';

/** The certificate and key files of `--tls-cert` and `--tls-key`, read again on a hang-up. */
export interface TlsPaths {
  cert: string;
  key: string;
}

/**
 * Everything decided before receiving starts (receive.ts): where to listen, how to verify, where
 * events are kept and sent on, the bounds. serve-hooks builds it from its flags, with the KEYs
 * and secrets read here.
 */
export interface ReceivePlan extends Omit<
  ListenerOptions,
  'store' | 'tls' | 'forwardTransport' | 'forwardClaim' | 'onWrite' | 'now'
> {
  /** The events' NDJSON file (Store.events: a files store's log; not with a database). */
  log?: string;
  fsync?: boolean;
  tlsFiles?: TlsPaths;
  /** The inspector is served beside: what is recorded must be kept somewhere it can be read. */
  ui?: boolean;
  /** The types shown (all are recorded); undefined shows all. */
  shown?: Set<EventType>;
}

/** Comma- or line-separated keys; `#` starts a comment line. */
export function splitKeys(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((k) => k.trim())
    .filter(Boolean);
}

/**
 * The items of a comma-separated flag value (`--type task.end,plan.end`), trimmed, empty ones
 * dropped. Each must be one of `allowed`: those that are not are a usage error in the words of
 * `unknown`, which names the flag.
 */
export function listOf<T extends string>(text: string, allowed: readonly T[], unknown: (bad: string[]) => Said): T[] {
  const items = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const bad = items.filter((t) => !(allowed as readonly string[]).includes(t));
  if (bad.length) throw new UsageError(unknown(bad));
  return items as T[];
}

function readFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(said`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

export interface KeyFlags {
  key?: string[];
  keyFile?: string;
}

/**
 * The KEYs for plan and task `Sign`, in order (the order names them in the output: key 1, key 2).
 * Precedence: `--key` and `--key-file`, then `stored` (CALLCTL_HOOK_KEYS, then the profile's
 * `hook-keys`). Each becomes a secret of the run, redacted from any output.
 */
export function hookKeys(flags: KeyFlags, stored: string | undefined): string[] {
  let keys = [
    ...(flags.key ?? []).flatMap(splitKeys),
    ...(flags.keyFile ? splitKeys(readFile(flags.keyFile, '--key-file')) : []),
  ];
  if (flags.keyFile && keys.length === 0) throw new UsageError(said`--key-file ${flags.keyFile} holds no key`);
  if (keys.length === 0) keys = stored ? splitKeys(stored) : [];
  for (const k of keys) addSecret(k);
  return keys;
}

export interface ChatbotFlags {
  chatbotSecretFile?: string;
  signCommand?: string;
}

export interface ChatbotSigning {
  secret?: string;
  command?: string;
}

/** The chatbot secret (`--chatbot-secret-file`, else CALLCTL_CHATBOT_SECRET) and sign command. */
export function chatbotSigning(flags: ChatbotFlags, env: NodeJS.ProcessEnv): ChatbotSigning {
  const fromFile = flags.chatbotSecretFile
    ? readFile(flags.chatbotSecretFile, '--chatbot-secret-file').replace(/\r?\n$/, '')
    : undefined;
  if (flags.chatbotSecretFile && !fromFile)
    throw new UsageError(said`--chatbot-secret-file ${flags.chatbotSecretFile} is empty`);
  const secret = fromFile ?? (env.CALLCTL_CHATBOT_SECRET || undefined);
  addSecret(secret);
  return { ...(secret ? { secret } : {}), ...(flags.signCommand ? { command: flags.signCommand } : {}) };
}

/**
 * The key that signs forwards and replays as Standard Webhooks defines: the `whsec_` secret of
 * `--forward-secret-file`, else of CALLCTL_FORWARD_SECRET (its key 24 bytes at least). Undefined
 * when neither is given, or when nothing is sent on (`to` undefined).
 */
export function forwardKey(
  flags: { forwardSecretFile?: string },
  to: string | undefined,
  env: NodeJS.ProcessEnv,
): Buffer | undefined {
  const file = flags.forwardSecretFile;
  if (to === undefined) {
    if (file) throw new UsageError(said`--forward-secret-file signs forwards: give --forward-to too`);
    return undefined;
  }
  const secret = file ? readFile(file, '--forward-secret-file').trim() : env.CALLCTL_FORWARD_SECRET?.trim();
  if (!file && !secret) return undefined;
  addSecret(secret);
  if (secret?.startsWith('whsec_')) addSecret(secret.slice('whsec_'.length));
  const key = webhookKey(secret ?? '');
  if (Buffer.isBuffer(key)) return key;
  const from = file ? said`--forward-secret-file ${file}` : said`CALLCTL_FORWARD_SECRET`;
  throw new UsageError(said`${from}: ${key.problem}; make one with: echo "whsec_$(openssl rand -base64 32)"`);
}

/** `--events task.end,plan.end`: each must be a known type (or `unknown`), and one at least. */
export function parseEventTypes(value: string | undefined): Set<EventType> | undefined {
  if (value === undefined) return undefined;
  const unknown = (bad: string[]) =>
    said`--events: unknown type ${bad.join(', ') || '(none)'}; expected some of plan.end, task.end, workflow.api_push, template.status, chatbot.session_closed, chatbot.transfer, unknown`;
  const types = listOf(value, EVENT_TYPES, unknown);
  if (types.length === 0) throw new UsageError(unknown([]));
  return new Set(types);
}
