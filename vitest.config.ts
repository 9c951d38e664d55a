import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Pure tests: no database, no server, no child process. Most sit beside their code; the two in
 * test/contract read the document and write temporary files only, and the import rules read the
 * source tree.
 */
const UNIT = [
  'server/**/*.test.ts',
  'client/**/*.test.ts',
  'scripts/**/*.test.ts',
  'toolkit/src/**/*.test.ts',
  'test/contract/document.test.ts',
  'test/architecture/*.test.ts',
  'test/readme.test.ts',
];
/**
 * The toolkit and the project's tools, which open no database or only an embedded one whatever
 * DATABASE_URL says: the generator, the dev loop, the linting and diff rules, the CLIs' own
 * databases, `npm start` (on a new embedded database, as a new user starts it), the dashboard's
 * pages in a browser (their API calls are test/http/dashboard.test.ts's, on both databases), the
 * SDK's transport, the validator and PGlite patches, PGlite's thread. CI's pass on PostgreSQL
 * leaves them out: they ran in the pass before it, unchanged.
 */
const TOOLING = [
  'test/contract/*.test.ts',
  'test/dev/*.test.ts',
  'test/onboard/*.test.ts',
  'test/http/start.test.ts',
  'test/dashboard/pages.test.ts',
  'test/sdk/tokens.test.ts',
  'test/sdk/transport.test.ts',
  'test/database/pglite-patches.test.ts',
  'test/database/embedded-thread.test.ts',
  'test/new-api/*.test.ts',
  'toolkit/test/**/*.test.ts',
];
/** The long proofs: fuzz, crash, several instances, security. */
const PROOF = ['test/proof/**/*.test.ts'];
/** Type-level tests, checked by the compiler and never run. */
const TYPES = ['{server,client,scripts,test}/**/*.test-d.ts'];

/**
 * The longest files first, whatever their project, so that the two workers finish together:
 * by the last run's durations where every file has one, else (a clean clone, as in CI) the tests
 * of `npm run new-api`, which install and test whole projects (started last, one ran alone while
 * the other worker had nothing left), then proofs, then the tools (a minute or more each for the
 * dev loop, the checker, `npm start` and the CLIs: started after the service's tests, one ran
 * alone at the end), then the tests of the service, then the unit tests, larger files first.
 */
const KIND_ORDER = ['new-api', 'proof', 'tooling', 'integration', 'unit'];
const NEW_API_TESTS = ['test/new-api/', 'toolkit/test/new-project/'];
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
    const durations = files.map((spec) => cache.getFileTestResults(key(spec))?.duration);
    if (durations.every((duration) => duration !== undefined)) {
      const byFile = new Map(files.map((spec, i) => [spec, durations[i] ?? 0]));
      return [...files].sort((a, b) => (byFile.get(b) ?? 0) - (byFile.get(a) ?? 0));
    }
    const kind = (spec: TestSpecification) =>
      KIND_ORDER.indexOf(
        NEW_API_TESTS.some((folder) => relative(config.root, spec.moduleId).startsWith(folder))
          ? 'new-api'
          : spec.project.name,
      );
    const size = (spec: TestSpecification) => cache.getFileStats(key(spec))?.size ?? 0;
    return [...files].sort((a, b) => kind(a) - kind(b) || size(b) - size(a));
  }
}

/** The files a new project is given (toolkit/template/): tested in the projects made from them. */
const TEMPLATE = 'toolkit/template/**';

export default defineConfig({
  test: {
    exclude: [...configDefaults.exclude, TEMPLATE],
    // PGlite costs hundreds of MB per open database: keep the worker count modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a page or a server to reach a state; 1 s (the default) is short when
    // both CPUs are busy with other test files (a build, a browser).
    expect: { poll: { timeout: 10_000 } },
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...configDefaults.exclude, TEMPLATE],
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        // One process per worker for all its files (isolate: false): each file starts its own app
        // on its own database, and none mocks or changes what another reads; importing the service
        // once a worker instead of once a file spares a sixth of the project's time.
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, TEMPLATE, ...UNIT, ...TOOLING, ...PROOF],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'tooling',
          include: TOOLING,
          exclude: [...configDefaults.exclude, TEMPLATE, ...UNIT],
          pool: 'forks',
        },
      },
      {
        extends: true,
        test: { name: 'proof', include: PROOF, pool: 'forks' },
      },
      {
        extends: true,
        test: {
          name: 'types',
          include: [],
          typecheck: { enabled: true, only: true, include: TYPES, tsconfig: 'tsconfig.typecheck.json' },
        },
      },
    ],
  },
});
