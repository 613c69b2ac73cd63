import { Option, type Command } from '../commander.js';
import { collect, type Deps } from '../action.js';
import { wholeNumber } from '../flag-values.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { CSV_SEND_JSON_HELP, csvSendFlags } from '../csv-send-flags.js';

const wholeNumberArg = wholeNumber();

export function register(parent: Command, { run }: Deps): void {
  const template = parent.command('template').description('chatbot template messages');
  const command = template
    .command('send')
    .description('send one template message now, or one per row of a CSV file (POST /api/v1/template/unitcast)')
    .addOption(
      new Option('--template-id <id>', 'template_id, a whole number (required)')
        .argParser(wholeNumberArg)
        .makeOptionMandatory(),
    )
    .option('--channel <name>', 'channel (with --csv: the default for a missing channel column)')
    .option('--channel-id <id>', 'channel_id (with --csv: the default for a missing channel_id column)')
    .option('--user-id <id>', 'user_id (may be empty)', '')
    .option('--var <key=value>', 'a template variable; repeatable; date and name are required', collect)
    .option('--vars-file <file>', 'variables as a JSON object of strings; --var wins')
    .option('--reply-url <url>', 'where replies go: sent as custom = {"reply_url": URL} as JSON text')
    .addOption(
      new Option(
        '--timestamp <seconds>',
        'timestamp, Unix seconds (default: now); fix it to sign a body ahead',
      ).argParser(wholeNumberArg),
    )
    .option(
      '--signature <value>',
      'X-Service-Sign as is: a one-time value bound to this exact body, not a reusable secret (see --dry-run)',
    )
    .option('--sign-command <cmd>', 'a shell command that reads the exact body on stdin and prints X-Service-Sign')
    .option(
      '--sign-secret-file <file>',
      'secret for the built-in default signature (else CALLCTL_SIGN_SECRET, CALLCTL_SIGN_SECRET_FILE)',
    );
  csvSendFlags(command, {
    dryRun: 'print the exact request (key and signature redacted) and send nothing',
    csv: 'one message per row: header row; channel, channel_id, user_id, reply_url columns (else the flags); every other column a variable',
    unit: 'messages',
    reach: 'message',
    reached: 'messaged',
  })
    .option('--allow-duplicates', 'with --csv: allow the same channel, channel_id and user_id on several rows')
    .addHelpText(
      'after',
      `
Headers: X-Service-Sign-Key is the API key (env CALLCTL_SIGN_KEY, profile sign-key; a secret).
X-Service-Sign comes from, in this order: --signature; --sign-command (given the exact body on
stdin, its trimmed output is the signature); else callctl's built-in default, an ASSUMPTION (the
spec does not give the computation): HMAC-SHA256 of the exact body keyed with the secret, lowercase
hex, the secret from --sign-secret-file, CALLCTL_SIGN_SECRET or CALLCTL_SIGN_SECRET_FILE.
The base URL is --base-url, CALLCTL_BASE_URL or the profile's base-url.

Success: HTTP 2xx with code 0 or 200 (callctl's reading; the spec gives none). Any other answer
exits 1 with the service's message and request_id. Never retried once the body may have reached
the service: a connection that fails after sending exits 5 and says the message may have gone out.

--csv: every row is checked before anything is sent (exit 3 with line numbers); a journal in the
state folder makes a re-run of the same file skip answered rows and never send a row twice; rows
sent without an answer (the run was killed) are uncertain and not sent again unless
--resend-uncertain. A ledger per destination (template endpoint and template id, however the URL
is spelled) remembers who was messaged: a recipient (channel, channel id, user) messaged within
--recall-window (default 24h), from any file, is skipped and reported, unless --call-again.
--signature does not go with --csv (each body differs). Exit 0 when every row
was sent, 1 when some were refused, 5 when some are uncertain (an error line names them; a
re-run sends the rest, never them) or a connection failed, 130 interrupted.
Without a terminal every progress, warning and error line on stderr starts with an ISO-8601 time.

Examples:
  callctl template send --template-id 7 --channel whatsapp --channel-id +6281234567001 \\
    --var date=2026-12-01 --var name=Budi --reply-url https://example.com/replies --yes
  callctl template send --template-id 7 --channel whatsapp --channel-id +6281234567001 --var date=2026-12-01 \\
    --var name=Budi --reply-url https://example.com/r --timestamp 1764547200 --dry-run --json
  callctl template send --template-id 7 --channel whatsapp --reply-url https://example.com/r \\
    --csv recipients.csv --rate 20 --sign-command 'my-signer --key prod' --yes

JSON (--json): one message: the service's answer,
${JSON_SHAPES.templateSend};
${CSV_SEND_JSON_HELP}`,
    )
    .action(run(() => import('./send.js').then((m) => m.runTemplateSend)));
}
