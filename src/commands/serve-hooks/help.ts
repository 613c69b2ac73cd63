import { JSON_SHAPES } from '../../help/json-shapes.js';

/** The end of `serve-hooks --help`: what it answers, how it verifies, its output, its bounds. */
export const SERVE_HOOKS_HELP = `
Types: plan.end, task.end, workflow.api_push, template.status, chatbot.session_closed,
chatbot.transfer, unknown (told apart by the body's shape).

Answers: 200 {} for an accepted event (a retry included; a schema problem is a warning unless
--strict); 401 for a bad or missing signature, a stale or replayed plan end (unless
--on-bad-sign ack); 503 when the sign command cannot answer or the log cannot be written (the
service sends it again; never forwarded); 400 not JSON, nested over 64 levels or holding a key
twice; 405 not POST; 413 over --max-body-kib; 415 not application/json; 431 headers over
--max-header-kib; 500 when a handler of ours fails unexpectedly (told once on stderr, counted;
the receiver goes on). GET /healthz answers 200 while the process runs; GET /readyz answers
200, or 503 with the reasons while notifications would get 503 (log or store cannot be
written, forward queue full, stopping). Every line on stderr starts with its time.

Verification:
  plan.end, task.end   Sign = lowercase hex MD5 of Timestamp+KEY (plan) or TaskID+KEY (task);
                       KEYs from --key/--key-file, else CALLCTL_HOOK_KEYS, else profile hook-keys.
                       The output names the key that matched (key 1, key 2...).
                       Plan end also: Timestamp within --max-age of now (Unix seconds or
                       ms, text or integer), and a Timestamp+Sign pair seen before with
                       another PlanName or PlanDetails is a replay (401).
  chatbot.*            X-Service-Sign, checked with --sign-command, else with the secret by
                       callctl's ASSUMPTION (the spec does not give the computation):
                       HMAC-SHA256 of the raw body, hex. Neither given: recorded as unverified.
                       A sign command that fails, times out or prints nothing: 503 (fail closed).
  others               unsigned by the spec.
Forwards carry X-Callctl-Verdict: verified, unverified, unsigned or skipped; X-Callctl-Event:
the event's number (as the live view, hooks events and hooks show give it); X-Callctl-Event-Id:
NUMBER@FIRST-ARRIVAL-TIME, the same on every attempt by any receiver (drop a repeat by it); and
X-Callctl-Attempt: 1, 2... (a sender's own X-Callctl-* and Webhook-* headers are dropped).
With a forward secret (--forward-secret-file, else CALLCTL_FORWARD_SECRET: whsec_ and a
base64 key of 24 bytes or more) forwards are signed as Standard Webhooks defines: webhook-id
(the event id), webhook-timestamp (each attempt's) and webhook-signature; the app verifies them
with a standardwebhooks library. Only verified and unsigned-type events are signed; without a
secret, none is.

Retries: the same event again (task: TaskID+PlanName; plan: PlanName+PlanDetails; template:
msg_id+status; API push: workflow+node+call id; chatbot: call_id+event; never Timestamp or
Sign, so a retry with a new Timestamp and Sign is the same event) within 15 minutes, across
restarts with --log, is answered 200, shown as "retry n", not forwarded again.

Output: on a terminal one line per event; piped or --json one JSON object per event, with the
ids its body carries (callee masked unless --show-numbers):
${JSON_SHAPES.serveHooks}
Messages (listening, refused requests, forward results) go to stderr.

Examples:
  CALLCTL_HOOK_KEYS=k1,k2 callctl serve-hooks --log events.ndjson
  callctl serve-hooks --key-file keys.txt --forward-to http://127.0.0.1:3000/hooks --events task.end
  callctl serve-hooks --skip-verify --json | jq 'select(.type=="plan.end")'

Shared store (several receivers behind one load balancer): with a postgres:// store every
event is committed before it is answered 200; retries are recognised across receivers and
restarts; each event is forwarded by one receiver; a forward left unfinished (its receiver died)
is taken over after --forward-lease; an event past a full forward queue waits in the store for
the first receiver with room. The store unreachable: 503 (the service retries), one line
when the outage starts and one when it ends. Tables are created or upgraded at start.

Bounds (flags above; what happens past each):
  body over 1 MiB                 413, connection closed
  --header-timeout (10 s)         headers not all in: 408, connection closed
  --request-timeout (30 s)        whole request (headers and body) not in: connection closed
                                  (408 when Node's check sees it first); an idle keep-alive
                                  connection is closed after 5 s
  --max-connections (512)         further connections are closed at once
  --max-connections-per-peer (64) further connections from that address are closed at once
  --refused-log-rate (10/s)       refused requests past it are answered but not recorded;
                                  counted (GET /healthz, a warning at most every 10 s, on stop)
  --forward-queue (1000, 64 MiB)  past it an accepted event is acknowledged and waits in --log
                                  or the store, forwarded oldest first as the queue empties;
                                  with neither it is answered 503 (the service sends it again).
                                  Events left on stop are named (hooks replay sends them).

Settings file: --config FILE (JSON, or TOML) holds any of these flags by name (max-connections
= 100, forward-to = "http://..."), checked as the flags are; a flag on the command line wins.
Secrets stay out of it: key-file (not key), store-file or CALLCTL_STORE for a URL with a password.
--print-config prints the settings in effect and exits. A forward-to URL may hold a user and
password (sent as Basic auth): the password, and only it, is shown as *** in every output.

SIGINT/SIGTERM: stop accepting (GET /readyz answers 503), answer requests in flight, finish
forwards, flush the log and the store, exit 0, all within --drain-timeout; a second signal cuts
what is left at once (exit 130; nothing cut was acknowledged).`;
