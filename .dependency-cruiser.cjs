// The layers of the project, as import rules: `npm run lint:imports`, and
// test/architecture/imports.test.ts. The paths are relative to the root cruised (the project, or
// the planted tree under test/fixtures/layers/ that proves the rules bite).
const TOOLKIT = ['^toolkit/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'toolkit-not-service',
      comment:
        'The OpenAPI toolkit (the contract-first package in toolkit/) works on any document: it uses nothing of the Partner Payments Service.',
      severity: 'error',
      from: { path: TOOLKIT },
      to: { path: ['^server/', '^client/', '^openapi/', '^generated/', '^scripts/', '^test/'], pathNot: TOOLKIT },
    },
    {
      name: 'service-not-into-toolkit',
      comment:
        "The service uses the toolkit as any project does: by the package's name and exports (contract-first, contract-first/runtime, …), never a path into its files.",
      severity: 'error',
      from: { path: ['^server/', '^client/', '^generated/', '^scripts/', '^test/'] },
      to: { path: '^toolkit/', pathNot: '^toolkit/dist/' },
    },
    {
      name: 'server-not-outside',
      comment: 'The server runs alone: it imports nothing of the scripts, the tests or the SDK.',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: ['^scripts/', '^test/', '^client/'] },
    },
    {
      name: 'scripts-not-test',
      comment:
        'Scripts never import the tests; what both use lives under scripts/ (the proof harness in scripts/proof/).',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^test/' },
    },
    {
      name: 'client-alone',
      comment: 'The SDK is typed by generated/ and imports nothing else of the project.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: ['^server/', '^scripts/', '^test/'] },
    },
    {
      name: 'dashboard-pages-browser-only',
      comment:
        "The dashboard's pages (client/dashboard/) run in a browser: they import only themselves, generated/dashboard/'s types and packages, never Node's modules or the SDK.",
      severity: 'error',
      from: { path: '^client/dashboard/' },
      to: {
        pathNot: ['^client/dashboard/', '^generated/dashboard/openapi-types[.]ts$', '^node_modules/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'dashboard-pages-no-node',
      comment: "The dashboard's pages run in a browser: no module of Node's.",
      severity: 'error',
      from: { path: '^client/dashboard/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'sdk-not-pages',
      comment: "The SDK does not use the dashboard's pages.",
      severity: 'error',
      from: { path: '^client/', pathNot: '^client/dashboard/' },
      to: { path: '^client/dashboard/' },
    },
    {
      name: 'domain-below-http-and-store',
      comment: 'The rules in server/domain/ know neither HTTP nor SQL, nor the app that wires them.',
      severity: 'error',
      from: { path: '^server/domain/' },
      to: {
        path: [
          '^server/http/',
          '^server/dashboard/',
          '^server/store/',
          '^server/database/',
          '^server/sandbox/',
          '^server/app[.]ts$',
          '^server/main[.]ts$',
        ],
      },
    },
    {
      name: 'store-below-http',
      comment:
        'The SQL in server/store/ is called by HTTP (both APIs) and by the sandbox data, never the other way round.',
      severity: 'error',
      from: { path: '^server/store/' },
      to: {
        path: ['^server/http/', '^server/dashboard/', '^server/sandbox/', '^server/app[.]ts$', '^server/main[.]ts$'],
      },
    },
    {
      name: 'database-below-store',
      comment:
        'The database (server/database/: engines, schema, migrations) knows nothing of the queries above it, nor of HTTP.',
      severity: 'error',
      from: { path: '^server/database/' },
      to: {
        path: [
          '^server/store/',
          '^server/http/',
          '^server/dashboard/',
          '^server/sandbox/',
          '^server/domain/',
          '^server/app[.]ts$',
          '^server/main[.]ts$',
        ],
      },
    },
    {
      name: 'database-through-its-index',
      comment:
        'The rest of the server uses the database through server/database/index.ts only: how each engine runs statements stays behind it.',
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/database/' },
      to: { path: '^server/database/', pathNot: '^server/database/index[.]ts$' },
    },
    {
      name: 'sandbox-below-http',
      comment: 'The sandbox data in server/sandbox/ is written through the store, never through HTTP.',
      severity: 'error',
      from: { path: '^server/sandbox/' },
      to: { path: ['^server/http/', '^server/dashboard/', '^server/app[.]ts$', '^server/main[.]ts$'] },
    },
    {
      name: 'worker-not-http',
      comment: 'The settlement worker runs without the HTTP layer.',
      severity: 'error',
      from: { path: '^server/settlement-worker[.]ts$' },
      to: { path: ['^server/http/', '^server/dashboard/'] },
    },
    {
      name: 'partner-api-not-dashboard',
      comment:
        'The partner API knows nothing of the dashboard; the dashboard uses its shared helpers (errors, pagination, presenters), not the reverse.',
      severity: 'error',
      from: { path: '^server/http/' },
      to: { path: '^server/dashboard/' },
    },
    {
      name: 'generated-self-contained',
      comment:
        "generated/ imports only itself, the toolkit's runtime (contract-first/runtime) and packages: nothing of the service.",
      severity: 'error',
      from: { path: '^generated/' },
      to: { dependencyTypes: ['local'], pathNot: ['^generated/', '^toolkit/dist/runtime/'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: '^node_modules/' },
    exclude: { path: ['^test/fixtures/', '^node_modules/', '^toolkit/template/', '^toolkit/test/fixtures/'] },
  },
};
