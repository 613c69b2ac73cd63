import { NetworkError, ServiceError } from '../errors.js';
import { pushRequestSchema, pushResponseSchema, type PushRequest } from '../schemas/push.js';
import type { AnswerReader, Delivery, PreparedRequest } from '../api/deliver.js';
import { issuesToProblems, type Problem } from '../csv/problems.js';
import { person } from '../person.js';
import { oldDestinationText } from '../store/destination.js';
import type { CredentialSource } from './refused.js';
import type { CsvFile } from '../csv/read.js';
import { delimiterHint } from '../csv/delimiter-hint.js';
import { checkRows, type Built, type SendRow } from './rows.js';
import { said } from '../said.js';

/** Where a push goes: the flex-route address and its token (live or test). */
export interface PushTarget {
  flexUrl: string;
  token: string;
  environment: 'live' | 'test';
  /** Where the token came from, named when the route refuses it. */
  tokenSource: CredentialSource;
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

/** The names an earlier callctl gave a push CSV send's journal and its route's ledger (src/store/old-state.ts). */
export function oldPushNames(target: PushTarget): { target: string; ledger: string } {
  const endpoint = pushEndpoint(target);
  return {
    target: `${target.environment} ${endpoint}`,
    ledger: oldDestinationText(`push ${target.environment} ${endpoint}`),
  };
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
