/**
 * The layers of design.md's architecture map, as rules `npm run lint` enforces:
 *   commands -> engines (upload, reach, hooks, report) -> store, api -> core
 * Nothing imports upward, nothing imports in a circle (dynamic import() included), the sandbox
 * imports nothing of the client, and the store's two back ends (src/store/files, postgres) are
 * reached only through its interface: the resolver alone imports them, and neither the other. test/lint/layers.test.ts plants a file breaking each rule
 * and checks that it fires. CONTRIBUTING's table of layers is the same map.
 */
const COMMANDS = '^src/(commands|help|completion)/|^src/(main|program|context|quick)\\.ts$';
const ENGINES = '^src/(upload|reach|hooks|report)/';
const STORE = '^src/store/';
const STORE_BACK_ENDS = '^src/store/(files|postgres)/';
const STORE_RESOLVER = '^src/store/resolve\\.ts$';
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
      name: 'store-and-api-not-up',
      severity: 'error',
      comment: 'The store and the transport sit below the engines and the commands.',
      from: { path: [STORE, API] },
      to: { path: [COMMANDS, ENGINES] },
    },
    {
      name: 'store-and-api-apart',
      severity: 'error',
      comment: 'The store never talks to the service, and the transport keeps no state.',
      from: { path: STORE },
      to: { path: API },
    },
    {
      name: 'api-not-store',
      severity: 'error',
      comment: 'The transport keeps no state.',
      from: { path: API },
      to: { path: STORE },
    },
    {
      name: 'store-back-ends-behind-the-interface',
      severity: 'error',
      comment:
        'Nothing outside src/store names a back end: code above it uses the interface (src/store/store.ts, events.ts) and gets its store from the resolver (src/store/resolve.ts), the one module that imports src/store/files or src/store/postgres.',
      from: { path: '^src/', pathNot: [STORE_BACK_ENDS, STORE_RESOLVER] },
      to: { path: STORE_BACK_ENDS },
    },
    {
      name: 'store-back-ends-apart',
      severity: 'error',
      comment: 'Each back end is complete on its own: files/ never imports postgres/, nor postgres/ files/.',
      from: { path: '^src/store/(files|postgres)/' },
      to: { path: '^src/store/(files|postgres)/', pathNot: '^src/store/$1/' },
    },
    {
      name: 'core-not-up',
      severity: 'error',
      comment:
        'The core (schemas, csv, files, signing, output, config and the small shared modules) depends on nothing above it.',
      from: { path: CORE },
      to: { path: [COMMANDS, ENGINES, STORE, API] },
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
