import { timeText } from '../time-flags.js';
import { Option, type Command } from '../commander.js';
import { choosesOutput, positiveInt, type Deps } from '../action.js';
import { port } from '../flag-values.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import * as trigger from './trigger.js';

/** The flags of the inspector (`hooks ui`); `serve-hooks --ui` takes them with a `--ui-` prefix. */
function inspectorOptions(command: Command): Command {
  return command
    .option('--host <host>', 'address to listen on (any but loopback needs a token)', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', port, 8788)
    .option('--token-file <file>', 'the token every request must carry (first line; else one is made when needed)')
    .option('--open', 'open the page in a browser')
    .option('--forward-to <url>', 'where "Send again" sends an event (as hooks replay --to)')
    .option('--forward-secret-file <file>', 'whsec_ secret signing what is sent again (or CALLCTL_FORWARD_SECRET)')
    .option('--chatbot-secret-file <file>', 'secret to sign chatbot events sent again (or CALLCTL_CHATBOT_SECRET)')
    .option('--sign-command <cmd>', 'command that prints X-Service-Sign for a body on stdin');
}

export function register(parent: Command, deps: Deps): void {
  const hooks = parent
    .command('hooks')
    .description(
      'recorded notifications: list (events), one whole (show), a page (ui), send again (replay); signed samples (trigger)',
    );
  trigger.register(hooks, deps);
  hooks
    .command('events')
    .description('list recorded events from the NDJSON log or the shared store, filtered; --follow for new ones')
    .option('--log <file>', 'an NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option(
      '--type <types>',
      'only these types, comma-separated (refused: requests refused before their type was known)',
    )
    .option(
      '--since <when>',
      'received at or after a time (2026-11-22T14:00:00+07:00), a date (00:00 UTC) or a duration ago (15m, 2h, 3d)',
      timeText,
    )
    .option('--until <when>', 'received before a time, a date or a duration ago (after --since)', timeText)
    .option('--plan <name>', 'only events of this plan (PlanName)')
    .option('--task <id>', 'only events of this task')
    .option('--callee <number>', 'only events for this callee number')
    .option('--verdict <verdicts>', 'verified, rejected, unverified, skipped, unsigned, refused; comma-separated')
    .option('--retries', "only the service's retries")
    .option('--no-retries', 'only first arrivals')
    .option('--limit <n>', 'the latest N matching events', positiveInt)
    .option('--follow', 'then show new events as they arrive, until Ctrl-C')
    .option('--show-numbers', 'show callee numbers in full (masked by default)')
    .addOption(
      choosesOutput(
        new Option(
          '--format <format>',
          'csv: the piped columns as CSV with a header; ndjson: the lines of --json (on a terminal too)',
        ),
      ),
    )
    .addHelpText(
      'after',
      `
Output: on a terminal one line per event (time, type, ids, the event's status, verdict, retry, #id, forward);
piped, TSV: id, time, type, plan, task, callee, status (the event's), verdict, retry, httpStatus
(the HTTP status answered), forward.
--format csv: the same columns as CSV (a header, CRLF line ends); a cell starting with =, +, -, @,
a tab or a carriage return gets a leading ' (anyone can send a notification: a spreadsheet must
run none of its text), a number or phone number excepted. --format ndjson: as --json.
Each event is written as it is read (the store in pages, in order): any number of events.
Callee numbers are masked unless --show-numbers.
--follow: PostgreSQL wakes on LISTEN/NOTIFY; an NDJSON log is watched for growth.

Examples:
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl hooks events --type task.end --since 2h
  callctl hooks events --log events.ndjson --verdict rejected --json
  callctl hooks events --plan P-2026-11 --follow

JSON (--json), one object per line (the ids the body carries; "forward": shared store only):
${JSON_SHAPES.hooksEvents}`,
    )
    .action(deps.run(() => import('./events.js').then((m) => m.runHooksEvents)));
  hooks
    .command('show <id>')
    .description('print one recorded event whole: headers (secrets redacted), body, verdict, key, retries, forward')
    .option('--log <file>', 'an NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--show-numbers', 'show callee numbers in full (masked by default)')
    .addHelpText(
      'after',
      `
The id is the one \`hooks events\` shows (#id): in an NDJSON log, the record's number in the file.
Exit 1 when there is no such event (not found, as a task the service does not know).

Examples:
  callctl hooks show 1842
  callctl hooks show 12 --log events.ndjson --json

JSON (--json): the record as kept (secret headers redacted), its ids, arrivals and forward:
${JSON_SHAPES.hooksShow}`,
    )
    .action(deps.run(() => import('./show.js').then((m) => m.runHooksShow)));
  inspectorOptions(
    hooks
      .command('ui')
      .description('a local inspector page over recorded events: live list, filters, detail, send again')
      .option('--log <file>', 'an NDJSON log written by serve-hooks --log')
      .addOption(storeOption())
      .addOption(storeFileOption()),
  )
    .addHelpText(
      'after',
      `
Serves a page listing what serve-hooks recorded, newest first, filling live as events arrive;
filters (those of hooks events) are kept in the address, so a link can be shared. An event's
detail shows what hooks show shows; "Send again" posts it to --forward-to as hooks replay would
(events not verified on arrival only when ticked); "Copy as curl"; export the filtered list as
CSV or NDJSON. Callee numbers are masked unless "Show numbers" is ticked.

Safe by default: 127.0.0.1 only; on any other --host every request needs a token (made at
random and printed once in the address, or read from --token-file). Actions are POSTs with a
CSRF token; the page runs only its own script and fetches nothing from elsewhere.

Examples:
  callctl hooks ui --log events.ndjson --open
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl hooks ui --forward-to http://127.0.0.1:3000/hooks
  callctl hooks ui --log events.ndjson --host 0.0.0.0 --token-file ~/.config/callctl/ui-token`,
    )
    .action(deps.run(() => import('./ui.js').then((m) => m.runHooksUi)));
  hooks
    .command('replay')
    .description('send events recorded by serve-hooks (--log file or the store) again, byte for byte, in order')
    .option('--log <file>', 'the NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--to <url>', 'where to send them')
    .option('--events <types>', 'only these types, comma-separated')
    .option(
      '--since <when>',
      'only events received since a time (2026-11-22T14:00:00+07:00), a date (00:00 UTC) or a duration ago (15m, 2h, 3d)',
      timeText,
    )
    .option('--chatbot-secret-file <file>', 'secret to sign chatbot events again (or CALLCTL_CHATBOT_SECRET)')
    .option('--sign-command <cmd>', 'command that prints X-Service-Sign for a body on stdin')
    .option('--forward-secret-file <file>', 'whsec_ secret signing them as forwards are (or CALLCTL_FORWARD_SECRET)')
    .option('--include-unverified', 'also send events that were not verified on arrival (unsigned); default: skip them')
    .addHelpText(
      'after',
      `
Sent: accepted events, each once (retries from the service, rejected and refused requests are
skipped), with their recorded Content-Type and User-Agent. The log never keeps X-Service-Sign:
chatbot events verified on arrival are signed again when a secret or --sign-command is given.
Events not verified on arrival (no secret then, --skip-verify) are skipped, or with
--include-unverified sent as they came, never signed by callctl. With a forward secret
(--forward-secret-file, else CALLCTL_FORWARD_SECRET) each is signed as serve-hooks signs its
forwards (Standard Webhooks, the same webhook-id as its forward). Failed sends are
retried on network errors, 408, 429 and 5xx with back-off.

Output: one line per event (time, type, the HTTP status); piped or --json one JSON object per event
(shape below). Exit 1 when the receiver refused one (4xx); 5 when
it could not be reached or kept answering 5xx or 429 after retries (run again later).

Examples:
  callctl hooks replay --log events.ndjson --to http://127.0.0.1:3000/hooks --events task.end --since 2h
  callctl hooks replay --log /var/lib/callctl/events.ndjson --to http://127.0.0.1:3000/hooks --since 2026-11-22T08:00:00Z --json

JSON (--json), one object per line ("status": the receiver's, null when none came):
${JSON_SHAPES.hooksReplay}`,
    )
    .action(deps.run(() => import('./replay.js').then((m) => m.runHooksReplay)));
}
