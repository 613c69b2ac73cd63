/**
 * One template message as the tests send it (the commands' tests, the answer tests in test/api,
 * the variants and json-shapes tests): its flags, and the environment that sends it to a test peer.
 * scripts/demo.mjs spells the same message out itself: the demo runs as plain Node and imports no
 * test code.
 */
import { tempConfigDir } from './cli.js';

/** The flags of one message: template 7 on WhatsApp to `channelId`, two variables, a reply URL. */
export function templateMessage(channelId = '+6281234567001'): string[] {
  return [
    '--template-id',
    '7',
    '--channel',
    'whatsapp',
    '--channel-id',
    channelId,
    '--var',
    'date=2026-12-01',
    '--var',
    'name=Budi',
    '--reply-url',
    'https://example.com/replies',
  ];
}

/** `template send` of that message, confirmed (--yes). */
export function templateSend(channelId?: string): string[] {
  return ['template', 'send', ...templateMessage(channelId), '--yes'];
}

/** The environment of a template send to a test peer at `baseUrl`: throwaway sign key and secret, fresh folders. */
export function templatePeerEnv(baseUrl: string): Record<string, string> {
  return {
    CALLCTL_BASE_URL: baseUrl,
    CALLCTL_SIGN_KEY: 'sign-key-123',
    CALLCTL_SIGN_SECRET: 'sign-secret-123',
    CALLCTL_CONFIG_DIR: tempConfigDir(),
    XDG_STATE_HOME: tempConfigDir(),
  };
}

/** The flags of a `template send --csv` run: each row's template, channel, reply URL and `date` variable. */
export const TEMPLATE_CSV_FLAGS = [
  '--template-id',
  '9',
  '--channel',
  'whatsapp',
  '--reply-url',
  'https://example.com/replies',
  '--var',
  'date=2026-12-01',
];
