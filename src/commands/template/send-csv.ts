import { resolve } from 'node:path';
import { delimiterHint } from '../../csv/delimiter-hint.js';
import type { Context } from '../../context.js';
import type { TemplateRequest } from '../../schemas/template.js';
import type { SendRow } from '../../reach/rows.js';
import { readCsv } from '../../csv/table.js';
import { deliver } from '../../api/deliver.js';
import type { Problem } from '../../csv/problems.js';
import {
  buildTemplate,
  oldTemplateNames,
  prepareTemplate,
  rekeyRecipient,
  templateAnswer,
  templateEndpoint,
} from '../../reach/template.js';
import { templateDestination } from '../../store/destination.js';
import { withCredentialHint } from '../../reach/refused.js';
import { oldJournalName } from '../../store/row-journal.js';
import { collectVariables } from '../shared/variables.js';
import { withSignFlag } from '../shared/signature.js';
import { runCsvSend } from '../shared/csv-send.js';
import { invalidInput, regionOf } from '../shared/send-ui.js';
import { resolveTemplateTarget, withReplyUrlHint, type TemplateSendOptions } from './target.js';

const FIELD_COLUMNS = new Set(['channel', 'channel_id', 'user_id', 'reply_url']);

/**
 * `template send --csv`: one message per row. Columns channel, channel_id, user_id and reply_url
 * (each falling back to its flag); every other column is a variable (empty cells left out).
 * The timestamp is taken when each row is sent (or `--timestamp`), and each body signed then.
 */
export async function runTemplateCsv(ctx: Context, opts: TemplateSendOptions): Promise<number> {
  const target = await resolveTemplateTarget(ctx, opts);
  const reading = { region: await regionOf(ctx, opts), e164: opts.e164 === true };
  const common = collectVariables(opts.var, opts.varsFile);
  const file = await readCsv(opts.csv!, opts.delimiter);
  const problems: Problem[] = [...file.problems];
  if (!file.header.includes('channel_id') && !opts.channelId)
    problems.unshift({
      line: 1,
      message: `the header has no channel_id column and --channel-id is not given${delimiterHint(file.header, opts.delimiter ?? ',')}`,
    });
  const rows: SendRow<TemplateRequest>[] = [];
  const seen = new Map<string, { line: number; who: string }>();
  const nowSeconds = () => opts.timestamp ?? Math.floor(ctx.io.now() / 1000);
  // With a sound header, every row is checked, so that one run lists every problem.
  if (!problems.some((p) => p.line === 1)) {
    for (const r of file.rows) {
      const f = r.fields;
      const variable = { ...common };
      for (const [k, v] of Object.entries(f)) if (!FIELD_COLUMNS.has(k) && v !== '') variable[k] = v;
      const built = buildTemplate(
        {
          template_id: opts.templateId,
          timestamp: nowSeconds(),
          channel: f.channel || opts.channel,
          channel_id: f.channel_id || opts.channelId,
          user_id: f.user_id ?? opts.userId,
          variable,
          reply_url: f.reply_url || opts.replyUrl,
        },
        reading,
        r.line,
      );
      if (!built.ok) {
        problems.push(...withReplyUrlHint(built.problems, 'a reply_url column or --reply-url URL'));
        continue;
      }
      const b = built.body;
      const who = `${b.channel}:${(f.channel_id || opts.channelId || '').trim()}${b.user_id ? `/${b.user_id}` : ''}`;
      const earlier = seen.get(built.person);
      if (earlier !== undefined && !opts.allowDuplicates) {
        problems.push({
          line: r.line,
          message: `${who} is ${earlier.who === who ? '' : `${built.person}, `}also on line ${earlier.line} (--allow-duplicates to message it twice)`,
        });
      }
      seen.set(built.person, { line: r.line, who });
      rows.push({ row: r.row, line: r.line, who, person: built.person, body: b });
    }
  }
  if (problems.length > 0) throw invalidInput(ctx, `${opts.csv}`, problems);
  const transport = await ctx.transport();
  const endpoint = templateEndpoint(target);
  const old = oldTemplateNames(target, opts.templateId);
  const stamp = (row: SendRow<TemplateRequest>) => ({ ...row.body, timestamp: nowSeconds() });
  return runCsvSend(
    ctx,
    {
      key: {
        command: 'template',
        destination: templateDestination(target.baseUrl, target.signKey, opts.templateId),
        sha256: file.sha256,
      },
      old: { journal: oldJournalName('template', old.target, file.sha256), ledger: old.ledger },
      rekey: rekeyRecipient(reading.region),
      file: resolve(ctx.io.cwd, opts.csv!),
      shownFile: opts.csv!,
      meta: { endpoint, template_id: opts.templateId },
      rows,
      sender: {
        prepare: (row) => withSignFlag(prepareTemplate(target, stamp(row))),
        deliver: async (req) => withCredentialHint(await deliver(transport, req, templateAnswer), target.sources),
      },
      preview: (row) => prepareTemplate(target, stamp(row), target.signature.kind !== 'command'),
      words: { one: 'message', many: 'messages', verb: 'Send' },
      columns: { who: 'recipient', id: 'task_id' },
      about: [`About to send template ${opts.templateId} messages: ${endpoint}`],
    },
    opts,
  );
}
