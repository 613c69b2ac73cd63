import { NetworkError, ServiceError } from '../errors.js';
import { templateRequestSchema, templateResponseSchema, type TemplateRequest } from '../schemas/template.js';
import type { AnswerReader, Delivery, PreparedRequest } from '../api/deliver.js';
import { issuesToProblems, type Problem } from '../csv/problems.js';
import { channelPerson } from '../person.js';
import type { CredentialSource } from './refused.js';
import { signBody, type SignatureSource } from '../signing/service-sign.js';
import type { CsvFile } from '../csv/read.js';
import { delimiterHint } from '../csv/delimiter-hint.js';
import { checkRows, type Built, type SendRow } from './rows.js';
import { said } from '../said.js';

export const UNITCAST_PATH = '/api/v1/template/unitcast';

/** Where a template message goes and how it is signed. */
export interface TemplateTarget {
  baseUrl: string;
  /** `X-Service-Sign-Key`: the API key. */
  signKey: string;
  signature: SignatureSource;
  /** Where the API key and the signature came from, named when the endpoint refuses them. */
  sources: CredentialSource[];
}

export function templateEndpoint(target: Pick<TemplateTarget, 'baseUrl'>): string {
  return `POST ${target.baseUrl.replace(/\/+$/, '')}${UNITCAST_PATH}`;
}

/** The problem of a message with no reply_url (the command says where one is given). */
export const REPLY_URL_MISSING = 'reply_url is required';

/** What a template message is made of, before validation. */
export interface TemplateFields {
  template_id: number;
  /** Unix seconds. */
  timestamp: number;
  channel?: string;
  channel_id?: string;
  user_id?: string;
  variable: Record<string, string>;
  reply_url?: string;
}

/**
 * Checks the fields; `custom` becomes the JSON text of `{"reply_url": ...}`. The recipient is read
 * as a person (src/person.ts): the channel without case and its id, a phone number in E.164 form
 * (`reading.e164` also sends it so).
 */
export function buildTemplate(
  f: TemplateFields,
  reading: { region?: string; e164?: boolean },
  line?: number,
): Built<TemplateRequest> {
  const problems: Problem[] = [];
  const at = line === undefined ? {} : { line };
  if (!f.reply_url) problems.push({ ...at, message: REPLY_URL_MISSING });
  else if (!/^https?:\/\/\S+$/.test(f.reply_url))
    problems.push({ ...at, message: `reply_url must be an http(s) URL, not ${JSON.stringify(f.reply_url)}` });
  const parsed = templateRequestSchema.safeParse({
    template_id: f.template_id,
    timestamp: f.timestamp,
    channel: f.channel ?? '',
    channel_id: f.channel_id ?? '',
    user_id: f.user_id ?? '',
    variable: f.variable,
    custom: JSON.stringify({ reply_url: f.reply_url ?? '' }),
  });
  if (!parsed.success) problems.push(...issuesToProblems(parsed.error, line));
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  const who = channelPerson(parsed.data.channel, parsed.data.channel_id, parsed.data.user_id, reading.region);
  if (!who.ok)
    return { ok: false, problems: [{ ...at, message: `${who.problem} (${JSON.stringify(parsed.data.channel_id)})` }] };
  const body = reading.e164 && who.e164 ? { ...parsed.data, channel_id: who.e164 } : parsed.data;
  return { ok: true, body, person: who.key };
}

/** The exact request; the signature covers the exact body bytes. */
export async function prepareTemplate(
  target: TemplateTarget,
  body: TemplateRequest,
  sign = true,
): Promise<PreparedRequest> {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  return {
    url: `${target.baseUrl.replace(/\/+$/, '')}${UNITCAST_PATH}`,
    endpoint: templateEndpoint(target),
    headers: {
      'x-service-sign-key': target.signKey,
      'x-service-sign': sign ? await signBody(target.signature, bytes) : '',
    },
    body: bytes,
  };
}

export const templateAnswer: AnswerReader<typeof templateResponseSchema> = {
  schema: templateResponseSchema,
  successId: (a) => a.data.task_id,
  errorId: (a) => (typeof a.request_id === 'string' ? a.request_id : undefined),
  idName: 'task_id',
};

/** Who a message goes to, in messages. */
export function recipient(body: TemplateRequest): string {
  return `template ${body.template_id} to ${body.channel} channel_id ${body.channel_id}${body.user_id ? ` user_id ${body.user_id}` : ''}`;
}

/** The error a single send ends with, when it did not succeed. */
export function templateError(
  target: TemplateTarget,
  body: TemplateRequest,
  d: Exclude<Delivery, { outcome: 'sent' }>,
): Error {
  const endpoint = templateEndpoint(target);
  if (d.outcome === 'failed') {
    return new ServiceError(
      said`${endpoint}: ${d.message}${d.id ? ` (request_id ${d.id})` : ''}`,
      endpoint,
      d.httpStatus,
      d.code,
      {
        requestId: d.id,
      },
    );
  }
  const why = d.error.message.replace(`${endpoint}: `, '');
  const details = {
    endpoint,
    templateId: body.template_id,
    channel: body.channel,
    channelId: body.channel_id,
    userId: body.user_id,
    timestamp: body.timestamp,
    mayHaveBeenSent: d.outcome === 'uncertain',
  };
  if (d.outcome === 'not-sent')
    return new NetworkError(said`the message was not sent (${recipient(body)}): ${endpoint}: ${why}`, details);
  return new NetworkError(
    said`the message MAY HAVE BEEN SENT (${recipient(body)}, timestamp ${body.timestamp}): ${endpoint}: ${why}; not retried, so as not to send twice: check with the service before sending again`,
    details,
  );
}

/** What every row of `template send --csv` takes from the flags: the defaults of missing cells. */
export interface TemplateDefaults {
  templateId: number;
  channel?: string;
  channelId?: string;
  userId: string;
  replyUrl?: string;
  variables: Record<string, string>;
  /** Unix seconds now (or the fixed `--timestamp`). */
  timestamp(): number;
  allowDuplicates?: boolean;
  delimiter?: string;
  /** Where a missing reply_url is given, added to its problem. */
  replyUrlHint: string;
}

/**
 * `template send --csv`'s rows, every one checked (checkRows): columns channel, channel_id, user_id and
 * reply_url (each falling back to its default); every other column is a variable.
 */
export function templateRows(
  file: CsvFile,
  given: TemplateDefaults,
  reading: { region?: string; e164?: boolean },
): { rows: SendRow<TemplateRequest>[]; problems: Problem[] } {
  return checkRows(file, {
    headerProblem:
      file.header.includes('channel_id') || given.channelId
        ? undefined
        : `the header has no channel_id column and --channel-id is not given${delimiterHint(file.header, given.delimiter ?? ',')}`,
    fields: new Set(['channel', 'channel_id', 'user_id', 'reply_url']),
    variables: given.variables,
    build: (f, variable, line) => {
      const built = buildTemplate(
        {
          template_id: given.templateId,
          timestamp: given.timestamp(),
          channel: f.channel || given.channel,
          channel_id: f.channel_id || given.channelId,
          user_id: f.user_id ?? given.userId,
          variable,
          reply_url: f.reply_url || given.replyUrl,
        },
        reading,
        line,
      );
      return built.ok ? built : { ok: false, problems: withReplyUrlHint(built.problems, given.replyUrlHint) };
    },
    who: (f, b) => `${b.channel}:${(f.channel_id || given.channelId || '').trim()}${b.user_id ? `/${b.user_id}` : ''}`,
    allowDuplicates: given.allowDuplicates,
    duplicate: { label: '', verb: 'message' },
  });
}

/** The problem of a missing reply_url, with where one is given (`hint`). */
export function withReplyUrlHint(problems: readonly Problem[], hint: string): Problem[] {
  return problems.map((p) => (p.message === REPLY_URL_MISSING ? { ...p, message: `${p.message} (${hint})` } : p));
}
