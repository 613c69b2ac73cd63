import { AuthError, NetworkError, ServiceError, UsageError } from '../errors.js';
import { pushRequestSchema, pushResponseSchema, type PushRequest } from '../schemas/push.js';
import type { AnswerReader, Delivery, PreparedRequest } from '../api/deliver.js';
import { issuesToProblems, type Problem } from '../csv/problems.js';
import { person } from '../person.js';
import type { CredentialSource } from './refused.js';
import type { CsvFile } from '../csv/read.js';
import { delimiterHint } from '../csv/delimiter-hint.js';
import { checkRows, type Built, type SendRow } from './rows.js';
import { said, type Said } from '../said.js';
import { httpUrl } from '../config/http-url.js';
import type { Settings } from '../config/settings.js';
import type { SettingKey } from '../config/keys.js';
import { readAll } from '../io-read.js';
import type { Readable } from 'node:stream';

/** Where a push goes: the flex-route address and its token (live or test). */
export interface PushTarget {
  flexUrl: string;
  token: string;
  environment: 'live' | 'test';
  /** Where the token came from, named when the route refuses it. */
  tokenSource: CredentialSource;
}

/** What resolving a push's target reads and tells (a command's context lends it): the settings, stdin, the run's secrets and addresses. */
export interface TargetLookup {
  readonly profile: string;
  settings(): Promise<Settings>;
  sourceOf(key: SettingKey, flag: Said): Said;
  noteAddress(url: string, from: Said): void;
  addSecret(value: string): void;
  io: { stdin: Readable };
}

/**
 * The flex-route address (flag, environment, profile) and the push token (stdin, environment,
 * profile; never a flag). `--test` uses the test pair.
 */
export async function resolvePushTarget(
  ctx: TargetLookup,
  opts: { test?: true; flexUrl?: string; pushTokenStdin?: true },
): Promise<PushTarget> {
  const settings = await ctx.settings();
  const test = opts.test === true;
  const flexUrl = httpUrl(
    opts.flexUrl || settings.require(test ? 'flex-test-url' : 'flex-url', said`--flex-url`),
    test ? 'flex-test-url' : 'flex-url',
  );
  const urlKey = test ? 'flex-test-url' : 'flex-url';
  ctx.noteAddress(
    flexUrl,
    said`the ${test ? said`test ` : ''}flex-route URL, from ${opts.flexUrl ? said`--flex-url` : ctx.sourceOf(urlKey, said`--flex-url`)}`,
  );
  const tokenKey = test ? 'push-test-token' : 'push-token';
  const token = opts.pushTokenStdin ? await tokenFromStdin(ctx) : settings.require(tokenKey, said`--push-token-stdin`);
  if (!opts.pushTokenStdin && settings.resolve(tokenKey).source === 'profile') {
    // The profile's push token goes only to the address it was set for.
    const { pushTokenFlexUrl, sameBaseUrl } = await import('../config/token-url.js');
    const bound = pushTokenFlexUrl(settings.stored(), test);
    if (bound === undefined || !sameBaseUrl(bound, flexUrl)) {
      throw new AuthError(
        bound === undefined
          ? said`profile ${ctx.profile}'s ${tokenKey} has no flex-route address recorded, so it is not sent to ${flexUrl}: set it with \`callctl config set ${test ? 'flex-test-url' : 'flex-url'} ${flexUrl}\` and set ${tokenKey} again`
          : said`profile ${ctx.profile}'s ${tokenKey} is for ${bound}, not for ${flexUrl}; it is not sent elsewhere. To push to ${flexUrl}, give its token (--push-token-stdin or ${test ? 'CALLCTL_PUSH_TEST_TOKEN' : 'CALLCTL_PUSH_TOKEN'}) or use a profile set up for it`,
        { flexUrl, tokenFlexUrl: bound ?? null },
      );
    }
  }
  ctx.addSecret(token);
  // The path carries the token percent-encoded; that form must not be printed either.
  ctx.addSecret(encodeURIComponent(token));
  const resolved = settings.resolve(tokenKey);
  const from = opts.pushTokenStdin
    ? '--push-token-stdin'
    : resolved.source === 'env'
      ? test
        ? 'CALLCTL_PUSH_TEST_TOKEN'
        : 'CALLCTL_PUSH_TOKEN'
      : `profile ${ctx.profile}'s ${tokenKey}`;
  return {
    flexUrl,
    token,
    environment: test ? 'test' : 'live',
    tokenSource: { what: 'the push token', from, key: tokenKey, inPath: true },
  };
}

/** The push token from stdin (`--push-token-stdin`): one trailing newline dropped. */
async function tokenFromStdin(ctx: TargetLookup): Promise<string> {
  const value = (await readAll(ctx.io.stdin)).toString('utf8').replace(/\r?\n$/, '');
  if (!value) throw new UsageError(said`--push-token-stdin: stdin was empty`);
  ctx.addSecret(value);
  return value;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The label used in messages and logs: the token never appears in it. */
export function pushEndpoint(target: Pick<PushTarget, 'flexUrl'>): string {
  return `POST ${trimSlash(target.flexUrl)}/api/push/***`;
}

/** What a push is made of, before validation: the values given on the command line or a CSV row. */
export interface PushFields {
  caller_id?: string;
  client_name?: string;
  variables: Record<string, string>;
}

/** How a caller is read: the region of national numbers, whether only phone numbers go, and whether the request carries E.164. */
export interface CallerReading {
  region?: string;
  /** Send the caller in E.164 form (`--e164`) instead of as written. */
  e164?: boolean;
  /** Set when only phone numbers may be sent: what said so (`--phone-only`, a profile's caller-id-phone-only). */
  phoneOnly?: string;
}

/** Who a caller_id is (src/person.ts): a phone number in E.164 form where it reads as one, else its text. */
export const callerPerson = (callerId: string, reading: CallerReading) =>
  person(callerId, { phone: reading.phoneOnly !== undefined, national: true, region: reading.region });

/**
 * Checks the fields against the request schema (caller id present, variables strings) and reads
 * the caller as a person: the spec types caller_id only as a string, so any value without control
 * characters goes (README, "How callctl reads the spec's gaps") unless `reading.phoneOnly`.
 */
export function buildPush(fields: PushFields, reading: CallerReading, line?: number): Built<PushRequest> {
  const candidate: Record<string, unknown> = { caller_id: fields.caller_id ?? '', variables: fields.variables };
  if (fields.client_name !== undefined && fields.client_name !== '') candidate.client_name = fields.client_name;
  const parsed = pushRequestSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, problems: issuesToProblems(parsed.error, line) };
  const who = callerPerson(parsed.data.caller_id, reading);
  if (!who.ok) {
    const onlyPhones = reading.phoneOnly && callerPerson(parsed.data.caller_id, { region: reading.region }).ok;
    const why = onlyPhones ? ` (${reading.phoneOnly}: only phone numbers are sent)` : '';
    return {
      ok: false,
      problems: [
        { line, column: 'caller_id', message: `${JSON.stringify(parsed.data.caller_id)} ${who.problem}${why}` },
      ],
    };
  }
  const body = reading.e164 && who.e164 ? { ...parsed.data, caller_id: who.e164 } : parsed.data;
  return { ok: true, body, person: who.key };
}

/** The exact request: the body serialised once, so what is shown in a dry run is what is sent. */
export function preparePush(target: PushTarget, body: PushRequest): PreparedRequest {
  return {
    url: `${trimSlash(target.flexUrl)}/api/push/${encodeURIComponent(target.token)}`,
    endpoint: pushEndpoint(target),
    headers: {},
    body: Buffer.from(JSON.stringify(body), 'utf8'),
  };
}

export const pushAnswer: AnswerReader<typeof pushResponseSchema> = {
  schema: pushResponseSchema,
  successId: (a) => a.trace_id,
  errorId: (a) => (typeof a.trace_id === 'string' ? a.trace_id : undefined),
  idName: 'trace_id',
};

/**
 * The error a single push ends with, when it did not succeed. A failed connection after the
 * body went out says that the call may have been placed, and what identifies it.
 */
export function pushError(
  target: PushTarget,
  body: PushRequest,
  d: Exclude<Delivery, { outcome: 'sent' }>,
  sentAt: number,
): Error {
  const endpoint = pushEndpoint(target);
  const who = `caller_id ${body.caller_id}${target.environment === 'test' ? ', test environment' : ''}`;
  if (d.outcome === 'failed') {
    return new ServiceError(
      said`${endpoint}: ${d.message}${d.id ? ` (trace_id ${d.id})` : ''}`,
      endpoint,
      d.httpStatus,
      d.code,
      {
        traceId: d.id,
        callerId: body.caller_id,
      },
    );
  }
  const why = d.error.message.replace(`${endpoint}: `, '');
  const details = {
    endpoint,
    callerId: body.caller_id,
    sentAt: new Date(sentAt).toISOString(),
    mayHaveBeenSent: d.outcome === 'uncertain',
  };
  if (d.outcome === 'not-sent')
    return new NetworkError(said`the call was not placed (${who}): ${endpoint}: ${why}`, details);
  return new NetworkError(
    said`the call MAY HAVE BEEN PLACED (${who}, sent ${details.sentAt}): ${endpoint}: ${why}; not retried, so as not to call twice: check with the service before pushing again`,
    details,
  );
}

/**
 * `push --csv`'s rows, every one checked (checkRows): `caller_id` is required (see buildPush),
 * `client_name` optional (else `clientName`); every other column is a variable.
 */
export function pushRows(
  file: CsvFile,
  given: { variables: Record<string, string>; clientName?: string; allowDuplicates?: boolean; delimiter?: string },
  reading: CallerReading,
): { rows: SendRow<PushRequest>[]; problems: Problem[] } {
  return checkRows(file, {
    headerProblem: file.header.includes('caller_id')
      ? undefined
      : `the header has no caller_id column${delimiterHint(file.header, given.delimiter ?? ',')}`,
    fields: new Set(['caller_id', 'client_name']),
    variables: given.variables,
    build: (f, variables, line) =>
      buildPush({ caller_id: f.caller_id, client_name: f.client_name || given.clientName, variables }, reading, line),
    who: (f) => f.caller_id!.trim(),
    allowDuplicates: given.allowDuplicates,
    duplicate: { label: 'caller_id ', verb: 'call' },
  });
}
