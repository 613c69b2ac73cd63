/**
 * The simulator's defaults, in a module of their own: `callctl sandbox` declares its flags' defaults
 * from them without loading the simulator.
 */

/** Throwaway credentials of the local simulator (printed by `callctl sandbox`). */
export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  appKey: 'demo-app-key',
  appSecret: 'sbx-secret-4f9d2c7a1e8b6035',
  tokenTtlSeconds: 7200,
  timeScale: 1,
  seed: 1,
  pushToken: 'ptk-6c1f9e2a7b4d',
  signKey: 'demo-sign-key',
  signSecret: 'sbx-sign-secret-93b1e07c5d2a',
  notifyKey: 'demo-hook-key',
  keepEntries: true,
  maxRequestRecords: 10_000,
  maxRecordedBodyBytes: 16 * 1024,
} as const;
