import type { Command } from '../commander.js';
import { collect, type Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { CSV_SEND_JSON_HELP, csvSendFlags } from '../csv-send-flags.js';

export function register(parent: Command, { run }: Deps): void {
  const command = parent
    .command('push')
    .description(
      'place one outbound call now, or one per row of a CSV file (POST {flex_route_url}/api/push/<push_token>)',
    )
    .option(
      '--caller-id <id>',
      'caller_id of the person to call (required without --csv): any text without control characters; a phone number is one person however it is spelled',
    )
    .option(
      '--phone-only',
      'send only a caller_id that is a phone number (else any text the spec allows; profile: caller-id-phone-only true)',
    )
    .option('--client-name <name>', 'client_name')
    .option('--var <key=value>', 'a variable; repeatable; wins over --vars-file (debt_amount: sent as given)', collect)
    .option('--vars-file <file>', 'variables as a JSON object of strings, e.g. {"debt_amount": "1500000"}')
    .option('--test', 'use the test address and test token (flex-test-url, push-test-token)')
    .option(
      '--flex-url <url>',
      'flex-route address (env CALLCTL_FLEX_URL / CALLCTL_FLEX_TEST_URL with --test; profile flex-url / flex-test-url)',
    )
    .option(
      '--push-token-stdin',
      'read the push token from stdin (else env CALLCTL_PUSH_TOKEN / CALLCTL_PUSH_TEST_TOKEN, profile push-token / push-test-token)',
    );
  csvSendFlags(command, {
    dryRun: 'print the exact request (token redacted) and send nothing',
    csv: 'one push per row: header row; caller_id required, client_name optional, every other column a variable',
    unit: 'pushes',
    reach: 'call',
    reached: 'called',
  })
    .option('--allow-duplicates', 'with --csv: allow the same caller_id on several rows')
    .addHelpText(
      'after',
      `
The push token is a secret: it is never a flag value; set it once with
  printf %s "$TOKEN" | callctl config set push-token --stdin
It is redacted (***) in --verbose output, in --dry-run and in every error.

Success: HTTP 2xx with code 0 or 200 (callctl's reading; the spec gives none). Any other answer
exits 1 with the service's message and trace_id. Never retried once the body may have reached the
service: a connection that fails after sending exits 5 and says the call may have been placed.

--csv: every row is checked before anything is sent (exit 3 with line numbers). A journal in the
state folder records each row before it is sent and its answer after, so a re-run of the same
file never calls anyone twice: answered rows are skipped; rows sent without an answer (the run
was killed) are reported as uncertain and not sent again unless --resend-uncertain. A ledger per
destination (the flex-route address, however spelled: localhost or 127.0.0.1, trailing slash, case
of the host) remembers who was called: a caller_id called through it within --recall-window
(default 24h), from any file, is skipped and reported, unless --call-again. Exit 0 when
every row was sent, 1 when some were refused, 5 when some are uncertain (an error line names
them; a re-run sends the rest, never them) or a connection failed (re-run to continue), 130
when interrupted. Without a terminal every progress, warning and
error line on stderr starts with an ISO-8601 time.

Examples:
  callctl push --caller-id +6281234567001 --client-name Budi --var debt_amount=1500000
  callctl push --test --caller-id +6281234567001 --vars-file vars.json --dry-run
  callctl push --csv callers.csv --rate 10 --yes --json

JSON (--json): one push: the service's answer,
${JSON_SHAPES.push};
${CSV_SEND_JSON_HELP}`,
    )
    .action(run(() => import('./push.js').then((m) => m.runPush)));
}
