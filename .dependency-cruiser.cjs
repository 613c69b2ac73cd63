/**
 * The layers of design.md's architecture map, as rules `npm run lint` enforces:
 *   commands -> engines (upload, reach, hooks, report) -> state, api -> core
 * Nothing imports upward, nothing imports in a circle (dynamic import() included), and the
 * sandbox imports nothing of the client. test/lint/layers.test.ts plants a file breaking each rule
 * and checks that it fires. CONTRIBUTING's table of layers is the same map.
 */
const COMMANDS = '^src/(commands|help|completion)/|^src/(main|program|context|quick)\\.ts$';
const ENGINES = '^src/(upload|reach|hooks|report)/';
const STATE = '^src/state/';
const API = '^src/api/';
const CORE = '^src/(schemas|csv|files|signing|output|config)/|^src/(?!main|program|context|quick)[^/]+\\.ts$';
const SANDBOX = '^src/sandbox/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules in a circle cannot be read, tested or loaded one without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'engines-not-up',
      severity: 'error',
      comment: 'Engines are handed what they need; they never reach back into the commands.',
      from: { path: ENGINES },
      to: { path: COMMANDS },
    },
    {
      name: 'state-and-api-not-up',
      severity: 'error',
      comment: 'State and the transport sit below the engines and the commands.',
      from: { path: [STATE, API] },
      to: { path: [COMMANDS, ENGINES] },
    },
    {
      name: 'state-and-api-apart',
      severity: 'error',
      comment: 'State never talks to the service, and the transport keeps no state.',
      from: { path: STATE },
      to: { path: API },
    },
    {
      name: 'api-not-state',
      severity: 'error',
      comment: 'The transport keeps no state.',
      from: { path: API },
      to: { path: STATE },
    },
    {
      name: 'core-not-up',
      severity: 'error',
      comment:
        'The core (schemas, csv, files, signing, output, config and the small shared modules) depends on nothing above it.',
      from: { path: CORE },
      to: { path: [COMMANDS, ENGINES, STATE, API] },
    },
    {
      name: 'sandbox-apart',
      severity: 'error',
      comment: 'The sandbox is written from the spec alone: it imports nothing of the client.',
      from: { path: SANDBOX },
      to: { path: '^src/', pathNot: SANDBOX },
    },
    {
      name: 'nobody-imports-the-sandbox',
      severity: 'error',
      comment: 'Only the sandbox command starts the simulator.',
      from: { path: '^src/', pathNot: [SANDBOX, '^src/commands/sandbox/'] },
      to: { path: SANDBOX },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      // A page's browser code, bundled into strings by the build (scripts/page-bundle.mjs).
      to: { couldNotResolve: true, pathNot: '\\.bundle$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
