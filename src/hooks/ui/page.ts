import { markup } from '../../output/html.js';
import page from './client/inspector.bundle';

/**
 * What every answer of the inspector carries: scripts and styles only from itself (the page has
 * no inline script or style, and takes nothing from elsewhere: it works offline), requests only
 * to itself, never framed, never sniffed, never cached, no referrer sent.
 */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The page's script and style sheet, bundled by the build (scripts/page-bundle.mjs). */
export const ASSETS: Record<string, { type: string; body: string }> = {
  '/inspector.js': { type: 'text/javascript; charset=utf-8', body: page.script },
  '/inspector.css': { type: 'text/css; charset=utf-8', body: page.css },
};

/** The page itself: an empty frame that the script fills from the JSON API. */
export function shell(options: { where: string; csrf: string; canSend: boolean }): string {
  return markup`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${options.csrf}">
<meta name="can-send" content="${options.canSend ? 'yes' : 'no'}">
<title>callctl inspector</title>
<link rel="stylesheet" href="/inspector.css">
<script src="/inspector.js" defer></script></head>
<body><header><h1>callctl inspector</h1><p class="where">Events recorded in <code>${options.where}</code> <span id="live" role="status" aria-live="polite">connecting…</span></p></header>
<main id="app"><noscript>The inspector needs JavaScript; <code>callctl hooks events</code> lists the same events.</noscript></main>
</body></html>
`.text;
}
