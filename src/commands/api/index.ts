import { Option, type Command } from '../commander.js';
import { collect, type Deps } from '../action.js';

export function register(parent: Command, { run }: Deps): void {
  parent
    .command('api <METHOD> <PATH>')
    .description(
      "send any request of the service's interface with the profile's token, retries (reads only) and redaction",
    )
    .option(
      '-f, --field <key=value>',
      'a string field: the query of a GET, a key of the JSON body of a POST (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '-F, --typed-field <key=value>',
        'as -f, with the value read as JSON when it is (numbers, true, null, arrays)',
      ).argParser(collect),
    )
    .option('--input <file>', 'the exact JSON body of a POST, from a file or - for stdin (fields then go in the query)')
    .option('--flex', 'the flex-route address (flex-url); {push_token} in PATH becomes the push token')
    .option('--test', 'with --flex: the test address and test push token')
    .option('--template-api', 'the template API (at the base URL) with X-Service-Sign-Key and X-Service-Sign headers')
    .option('--signature <sign>', 'with --template-api: X-Service-Sign as given')
    .option(
      '--sign-command <cmd>',
      'with --template-api: a command that reads the body on stdin and prints X-Service-Sign',
    )
    .option(
      '--sign-secret-file <file>',
      'with --template-api: secret of the default signature (HMAC-SHA256, an assumption)',
    )
    .option('--raw', "print the whole answer, not only the envelope's data")
    .option('-i, --include', 'print the status line and the headers (secrets redacted), then the whole answer')
    .option(
      '-H, --header <name:value>',
      'a request header (repeatable); never Authorization, which is the token callctl sends',
      collect,
    )
    .option('--paginate', 'GET /service/cloud/workflow/instancelist: walk every page, print them as one list')
    .option(
      '-y, --yes',
      'send a POST that is not a read without asking (required without a terminal: some operations reach people)',
    )
    .addHelpText(
      'after',
      `
For the operations the service lists by title only (creating tasks, cancelling calls,
recordings...) and for looking at any answer as it comes. PATH is a path under the address, never
a full URL: the token goes only to its own base URL.

Addresses and headers:
  (default)        base URL, Authorization: Token (renewed once when rejected and
                   CALLCTL_APP_KEY/SECRET are set); prints the envelope's data
  --flex           flex-url (flex-test-url with --test), no token header; {push_token} in PATH
  --template-api   base URL, X-Service-Sign-Key (sign-key) and X-Service-Sign of the exact body

A read is sent without asking and retried on network errors, 429 and 5xx: every GET, and the
POSTs that only read (workflow/taskdetail, workflow/apinoticeinfo; the list is READ_ENDPOINTS in
src/api/reads.ts). Any other POST is sent once (it may reach people) and asks first on a
terminal; without one it needs --yes.

Field selection: pipe the JSON to jq, as every example here does. callctl has no --jq of its own:
jq is the language people know from gh api --jq, and no well-kept JavaScript jq exists (the npm
ones wrap a WebAssembly build or download a jq binary at install); a second query dialect (such
as JMESPath) would be one more thing to learn for what jq already does. Secrets are redacted from what is printed
and from --verbose; a field named APPSecret, token, push_token or Sign is refused (use --input).

Exit codes as every command: 1 the service refused (envelope code not 200, HTTP 4xx), 2 usage,
3 --input not readable or not JSON, 4 token missing or rejected, 5 network/timeout/5xx after retries.

Examples:
  callctl api GET /service/cloud/robot
  callctl api GET /service/cloud/detail -f TaskID=T-DEBT-0001 | jq '.detail | length'
  callctl api POST /service/cloud/workflow/taskdetail -f task_id=WT-IC-0001 | jq '.details | length'
  callctl api GET /service/cloud/workflow/instancelist --paginate | jq -r '.lists[].workflow_id'
  callctl api GET /service/cloud/robot -i -H 'Accept-Language: id'
  callctl api GET /service/cloud/planstatus -f PlanName=PLAN-A --raw
  callctl api POST '/api/push/{push_token}' --flex --input call.json --yes
  callctl api POST /api/v1/template/unitcast --template-api --input message.json --yes

JSON: always; the envelope's data (cloud), or the whole answer (--flex, --template-api, --raw).`,
    )
    .action(run(() => import('./run.js').then((m) => m.runApi)));
}
