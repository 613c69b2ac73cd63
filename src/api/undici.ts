/**
 * undici, re-exported from one module: undici is CommonJS, and a dynamic `import('undici')` in
 * the bundle would not expose its named exports. Import this module lazily instead.
 */
export { EnvHttpProxyAgent, request } from 'undici';
