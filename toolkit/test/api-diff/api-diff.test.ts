// The breaking-change gate (src/api-diff/, contract-first diff and npm run release:api): how
// each pair of test/fixtures/api-diff/ is classified, by api-smart-diff and by us; the gate's
// exit status; releases and their changelog; each API of a project's redocly.yaml checked and
// released with its own files.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareDocuments, libraryVerdict, prepareForComparison } from '../../src/api-diff/compare.js';
import { AllowListError, applyGate, parseAllowList } from '../../src/api-diff/gate.js';
import { verdictOf, type Json, type Verdict } from '../../src/api-diff/model.js';
import { addEntry, listReleases } from '../../src/api-diff/releases.js';
import { RULE_NAMES } from '../../src/api-diff/rules.js';
import { runDiffApi, type Io } from '../../src/diff-api.js';
import { docsTargets, documentWithChangelog, projectDocsPaths } from '../../src/docs.js';
import { runReleaseApi } from '../../src/release-api.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/api-diff/', import.meta.url));
const CASES = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

interface ExpectedChange {
  readonly pointer: string;
  readonly action: string;
  readonly library: string;
  readonly type: string;
  readonly rule?: string;
}
interface Expected {
  readonly title: string;
  readonly library: Verdict;
  readonly verdict: Verdict;
  readonly changes: readonly ExpectedChange[];
}

const fixture = (name: string, file: string): string => path.join(FIXTURES, name, file);
const readYaml = (file: string): Json => parse(readFileSync(file, 'utf8')) as Json;
const expectedOf = (name: string): Expected => readYaml(fixture(name, 'expected.yaml')) as unknown as Expected;

/** The changes the issue names, each a pair here. */
const REQUIRED_CASES = [
  'operation-removed',
  'parameter-removed',
  'parameter-made-required',
  'request-property-required-added',
  'request-type-narrowed',
  'request-enum-narrowed',
  'pattern-added',
  'pattern-narrowed',
  'max-length-narrowed',
  'minimum-raised',
  'response-property-removed',
  'response-property-nullable',
  'response-enum-widened',
  'success-status-removed',
  'security-scheme-changed',
  'scopes-changed',
  'request-media-type-removed',
  'response-media-type-removed',
  'operation-deprecated',
  'parameter-deprecated',
  'description-edits',
  'request-property-optional-added',
  'response-property-added',
  'operation-added',
  'request-enum-widened',
  'optional-parameter-added',
];

describe('classification of each pair of documents', () => {
  it('has a pair for every change the gate must know, and puts every rule of ours to work', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    expect(REQUIRED_CASES.filter((name) => !CASES.includes(name))).toEqual([]);
    const rules = new Set(
      CASES.flatMap((name) =>
        expectedOf(name).changes.flatMap((change) => (change.rule === undefined ? [] : [change.rule])),
      ),
    );
    expect([...rules].sort()).toEqual([...RULE_NAMES].sort());
  });

  it.each(CASES)('%s', (name) => {
    const before = readYaml(fixture(name, 'before.yaml'));
    const after = readYaml(fixture(name, 'after.yaml'));
    const expected = expectedOf(name);
    const changes = compareDocuments(before, after);
    expect(
      changes.map(({ pointer, action, library, type, rule }) => ({
        pointer,
        action,
        library,
        type,
        ...(rule === undefined ? {} : { rule }),
      })),
    ).toEqual(expected.changes);
    expect(verdictOf(changes.map((change) => change.type))).toBe(expected.verdict);
    // What the library says alone: when it is fixed upstream, this fails and the rule can go.
    expect(libraryVerdict(before, after)).toBe(expected.library);
    for (const change of changes) expect(change.description).not.toBe('');
  });

  it('finds no change between a document and itself', () => {
    const document = readYaml(fixture('operation-removed', 'before.yaml'));
    expect(compareDocuments(document, structuredClone(document))).toEqual([]);
  });

  it('describes each change in one line naming its operation and, where short, its values', () => {
    const describe = (name: string): string[] =>
      compareDocuments(readYaml(fixture(name, 'before.yaml')), readYaml(fixture(name, 'after.yaml'))).map(
        (change) => change.description,
      );
    expect(describe('max-length-narrowed')).toEqual([
      'POST /v1/card: [Replaced] maxLength validator of `holderName` in Request Body content (application/json) (64 → 32)',
    ]);
    expect(describe('parameter-removed')).toEqual(['GET /v1/card: [Removed] query parameter `status`']);
    expect(describe('scope-added-to-requirement')).toEqual([
      'POST /v1/card: [Replaced] security requirement: oauth2 [cards:write] → oauth2 [cards:write, cards:read]',
    ]);
    expect(describe('response-media-type-removed')).toEqual([
      'GET /v1/card/{id}: [Removed] content type application/hal+json of Response 200',
    ]);
    for (const line of describe('response-ref-enum-widened')) expect(line).not.toContain('\n');
  });
});

describe('preparing the documents', () => {
  const base = (schemas: Record<string, Json>, schema: Json): Json => ({
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0' },
    paths: {
      '/a': {
        post: {
          requestBody: { content: { 'application/json': { schema } } },
          responses: { '204': { description: 'done' } },
        },
      },
    },
    components: { schemas },
  });

  it('inlines references; keeps a cycle as a reference, with what it points at', () => {
    const node: Json = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      },
    };
    const prepared = prepareForComparison(base({ Node: node }, { $ref: '#/components/schemas/Node' })) as {
      paths: Json;
      components: Json;
    };
    expect(JSON.stringify(prepared.paths)).toContain(
      '"children":{"type":"array","items":{"$ref":"#/components/schemas/Node"}}',
    );
    expect(prepared.components).toEqual({ schemas: { Node: node } });
    const after = structuredClone(node) as { properties: Record<string, Json> };
    after.properties['name'] = { type: 'string', maxLength: 10 };
    const changes = compareDocuments(
      base({ Node: node }, { $ref: '#/components/schemas/Node' }),
      base({ Node: after as unknown as Json }, { $ref: '#/components/schemas/Node' }),
    );
    // The library follows the cycle once more, and stops there.
    expect(changes.map((change) => [change.pointer, change.type])).toEqual([
      ['#/paths/~1a/post/requestBody/content/application~1json/schema/properties/name/maxLength', 'breaking'],
      [
        '#/paths/~1a/post/requestBody/content/application~1json/schema/properties/children/items/properties/name/maxLength',
        'breaking',
      ],
    ]);
  });

  it('lets documentation beside a $ref override the target’s, and reads other keywords beside it as allOf', () => {
    const prepared = prepareForComparison(
      base(
        { Name: { type: 'string', description: 'a name' } },
        {
          type: 'object',
          properties: {
            a: { $ref: '#/components/schemas/Name', description: 'the a' },
            b: { $ref: '#/components/schemas/Name', maxLength: 5 },
          },
        },
      ),
    ) as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: Record<string, { schema: { properties: Record<string, Json> } }> } }>
      >;
    };
    const properties = prepared.paths['/a']?.['post']?.requestBody.content['application/json']?.schema.properties;
    expect(properties?.['a']).toEqual({ type: 'string', description: 'the a' });
    expect(properties?.['b']).toEqual({ allOf: [{ type: 'string', description: 'a name' }, { maxLength: 5 }] });
  });

  it('leaves out the generator’s notice, which is no part of the contract', () => {
    const document = readYaml(fixture('operation-added', 'before.yaml')) as Record<string, Json>;
    expect(compareDocuments({ ...document, 'x-generated': 'GENERATED by contract-first generate' }, document)).toEqual(
      [],
    );
  });
});

describe('the gate', () => {
  const [breaking] = compareDocuments(
    readYaml(fixture('parameter-removed', 'before.yaml')),
    readYaml(fixture('parameter-removed', 'after.yaml')),
  );
  if (breaking === undefined) throw new Error('the parameter-removed pair has a change');

  it('blocks a breaking change, unless the major version rose or the allow-list covers it', () => {
    expect(applyGate([breaking], '1.0.0', '1.1.0', []).passed).toBe(false);
    expect(applyGate([breaking], '1.4.0', '2.0.0', []).passed).toBe(true);
    expect(applyGate([breaking], '2.0.0', '1.0.0', []).passed).toBe(false);
    const allowed = applyGate([breaking], '1.0.0', '1.0.0', [
      { path: breaking.pointer, action: 'remove', reason: 'nobody sends it' },
    ]);
    expect(allowed.passed).toBe(true);
    expect(allowed.changes[0]?.allowed).toBe('nobody sends it');
    // An entry covers the changes below its path; a wrong action covers nothing, and is reported unused.
    expect(
      applyGate([breaking], '1.0.0', '1.0.0', [{ path: '#/paths/~1v1~1card/get', reason: 'the operation is reworked' }])
        .passed,
    ).toBe(true);
    const wrongAction = applyGate([breaking], '1.0.0', '1.0.0', [
      { path: breaking.pointer, action: 'add', reason: 'x' },
    ]);
    expect(wrongAction.passed).toBe(false);
    expect(wrongAction.unusedAllowances).toHaveLength(1);
    expect(
      applyGate([breaking], '1.0.0', '1.0.0', [{ path: '#/paths/~1v1~1card/get/param', reason: 'x' }]).passed,
    ).toBe(false);
  });

  it('reads the allow-list strictly', () => {
    expect(parseAllowList('allowed: []\n', 'a.yaml')).toEqual([]);
    expect(parseAllowList('# nothing yet\n', 'a.yaml')).toEqual([]);
    expect(parseAllowList("allowed:\n  - path: '#/paths/~1a/get'\n    reason: gone\n", 'a.yaml')).toEqual([
      { path: '#/paths/~1a/get', reason: 'gone' },
    ]);
    expect(() => parseAllowList("allowed:\n  - path: '#/paths/~1a/get'\n", 'a.yaml')).toThrow(
      /allowed\[0\]\.reason must say why/,
    );
    expect(() => parseAllowList('allowed:\n  - path: paths./a\n    reason: r\n', 'a.yaml')).toThrow(/JSON pointer/);
    expect(() => parseAllowList("allowed:\n  - path: '#/a'\n    action: delete\n    reason: r\n", 'a.yaml')).toThrow(
      /action must be one of/,
    );
    expect(() => parseAllowList("allowed:\n  - path: '#/a'\n    reason: r\n    until: 2.0.0\n", 'a.yaml')).toThrow(
      AllowListError,
    );
    expect(() => parseAllowList('allow: []\n', 'a.yaml')).toThrow(/one key, `allowed`/);
  });
});

/** Runs a command of ours in-process, as npm would from `cwd`, with the project at `root`. */
async function run(
  command: typeof runDiffApi,
  argv: readonly string[],
  root: string,
  cwd: string = root,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), cwd, root };
  const code = await command(argv, io);
  return { code, stdout, stderr };
}

/** An API of a test project's redocly.yaml: its document and, optionally, where its other files go. */
interface TestApi {
  readonly root: string;
  readonly 'x-released'?: string;
  readonly 'x-breaking-changes-allowed'?: string;
  readonly 'x-changelog'?: string;
}

/** Writes `<root>/redocly.yaml` naming these APIs, each generating into generated/<name>/. */
async function writeProjectConfig(root: string, apis: Record<string, TestApi>): Promise<void> {
  const entries = Object.fromEntries(
    Object.entries(apis).map(([name, api]) => [name, { ...api, output: `generated/${name}/openapi.json` }]),
  );
  await mkdir(root, { recursive: true });
  await writeFile(path.join(root, 'redocly.yaml'), stringify({ apis: entries }));
}

/** Copies a fixture into the project at `root` as `file`, under `version` when given. */
async function placeDocument(
  root: string,
  file: string,
  name: string,
  which: 'before.yaml' | 'after.yaml',
  version?: string,
): Promise<void> {
  const document = readYaml(fixture(name, which)) as { info: { version: string } };
  if (version !== undefined) document.info.version = version;
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), stringify(document));
}

/** Releases a fixture as `<version>.json` in the folder `released` of the project at `root`. */
async function placeRelease(
  root: string,
  released: string,
  name: string,
  which: 'before.yaml' | 'after.yaml',
  version = '1.0.0',
): Promise<void> {
  await mkdir(path.join(root, released), { recursive: true });
  await writeFile(path.join(root, released, `${version}.json`), JSON.stringify(readYaml(fixture(name, which))));
}

describe('npm run diff:api', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'diff-api-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const pair = (name: string): string[] => [
    '--base',
    fixture(name, 'before.yaml'),
    '--input',
    fixture(name, 'after.yaml'),
    '--allow',
    path.join(work, 'none.yaml'),
  ];

  it('exits 1 on a breaking change, naming it and what would let it through', async () => {
    const result = await run(runDiffApi, pair('parameter-removed'), work);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 change (1 breaking)');
    expect(result.stdout).toContain(
      'breaking      GET /v1/card: [Removed] query parameter `status`\n              #/paths/~1v1~1card/get/parameters/1\n',
    );
    expect(result.stderr).toContain(
      'FAILED: 1 breaking change is neither allowed nor in a new major version. Raise info.version to 2.0.0',
    );
    expect(result.stderr).toContain("- path: '#/paths/~1v1~1card/get/parameters/1'\n    action: remove");
  });

  it('exits 0 when info.version’s major part rose', async () => {
    const after = readYaml(fixture('parameter-removed', 'after.yaml')) as { info: { version: string } };
    after.info.version = '2.0.0';
    await writeFile(path.join(work, 'major.yaml'), stringify(after));
    const result = await run(
      runDiffApi,
      ['--base', fixture('parameter-removed', 'before.yaml'), '--input', 'major.yaml', '--allow', 'none.yaml'],
      work,
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      "passed: info.version's major part went from 1 to 2, which allows its breaking change",
    );
  });

  it('exits 0 when the allow-list covers each breaking change, and says why', async () => {
    await writeFile(
      path.join(work, 'allowed.yaml'),
      "allowed:\n  - path: '#/paths/~1v1~1card/get/parameters/1'\n    action: remove\n    reason: No partner sends the status filter.\n",
    );
    const result = await run(runDiffApi, [...pair('parameter-removed').slice(0, 4), '--allow', 'allowed.yaml'], work);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('allowed: No partner sends the status filter.');
    expect(result.stdout).toContain('passed: the breaking change is allowed in allowed.yaml');
  });

  it('warns of an allow-list entry that covers nothing, and fails on a malformed one', async () => {
    await writeFile(
      path.join(work, 'stale.yaml'),
      "allowed:\n  - path: '#/paths/~1v1~1gone'\n    reason: released already\n",
    );
    const stale = await run(runDiffApi, [...pair('operation-added').slice(0, 4), '--allow', 'stale.yaml'], work);
    expect(stale.code).toBe(0);
    expect(stale.stderr).toContain('warning: stale.yaml: #/paths/~1v1~1gone covers no breaking change; remove it');
    await writeFile(path.join(work, 'bad.yaml'), "allowed:\n  - path: '#/paths/~1v1~1card'\n");
    const bad = await run(runDiffApi, [...pair('operation-added').slice(0, 4), '--allow', 'bad.yaml'], work);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('diff:api: bad.yaml: allowed[0].reason must say why');
  });

  it('exits 0 on changes that break nothing, and prints them', async () => {
    const result = await run(runDiffApi, pair('operation-added'), work);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('1 change (1 non-breaking)');
    expect(result.stdout).toContain('non-breaking  [Added] operation DELETE /v1/card/{id}');
  });

  it('prints the same as JSON with --json, and says where a rule of ours overrules the library', async () => {
    const result = await run(runDiffApi, [...pair('response-property-nullable'), '--json'], work);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      passed: boolean;
      counts: Record<string, number>;
      changes: Array<Record<string, unknown>>;
      blocking: string[];
    };
    expect(report.passed).toBe(false);
    expect(report.counts['breaking']).toBe(3);
    expect(report.blocking).toHaveLength(3);
    expect(report.changes[0]).toMatchObject({
      type: 'breaking',
      library: 'non-breaking',
      rule: 'type-as-set',
      action: 'replace',
    });
    const text = await run(runDiffApi, pair('response-property-nullable'), work);
    expect(text.stdout).toContain('api-smart-diff says non-breaking; our rule type-as-set says breaking');
  });

  it('rejects wrong arguments with the usage, exit 2', async () => {
    expect(await run(runDiffApi, ['--bogus'], work)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Usage: contract-first diff') as unknown,
    });
    expect((await run(runDiffApi, ['--base', 'a.yaml', '--base-ref', 'HEAD'], work)).code).toBe(2);
    expect((await run(runDiffApi, ['extra'], work)).code).toBe(2);
    expect(await run(runDiffApi, ['--help'], work)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('--base-ref REF') as unknown,
    });
  });

  it('compares with the latest release by default, in version order', async () => {
    const root = path.join(work, 'project');
    await mkdir(path.join(root, 'openapi/released'), { recursive: true });
    await writeProjectConfig(root, { partner: { root: 'openapi/openapi.yaml' } });
    await copyFile(fixture('operation-removed', 'after.yaml'), path.join(root, 'openapi/openapi.yaml'));
    expect(await run(runDiffApi, [], root)).toEqual({
      code: 0,
      stdout:
        'diff:api: partner: nothing released yet (no <version>.json in openapi/released/): nothing to compare; `npm run release:api -- --api partner` releases it\n',
      stderr: '',
    });
    const before = JSON.stringify(readYaml(fixture('operation-removed', 'before.yaml')));
    for (const version of ['1.2.0', '1.10.0', '1.9.3', '1.10.0-rc.1'])
      await writeFile(path.join(root, `openapi/released/${version}.json`), before);
    await writeFile(path.join(root, 'openapi/released/notes.json'), '{}');
    expect((await listReleases(path.join(root, 'openapi/released'))).map((release) => release.version.text)).toEqual([
      '1.2.0',
      '1.9.3',
      '1.10.0-rc.1',
      '1.10.0',
    ]);
    const result = await run(runDiffApi, [], root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'diff:api: partner: openapi/openapi.yaml (1.0.0) against openapi/released/1.10.0.json (1.0.0): 1 change (1 breaking)',
    );
  });

  it('compares each API with its document at a git commit with --base-ref', async () => {
    const root = path.join(work, 'repository');
    await mkdir(path.join(root, 'openapi'), { recursive: true });
    await writeProjectConfig(root, { partner: { root: 'openapi/openapi.yaml' } });
    await copyFile(fixture('request-enum-narrowed', 'before.yaml'), path.join(root, 'openapi/openapi.yaml'));
    const git = (...args: string[]): void => {
      const result = spawnSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.test', ...args], {
        cwd: root,
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(result.stderr);
    };
    git('init', '--quiet');
    git('add', '.');
    git('commit', '--quiet', '-m', 'the document');
    await copyFile(fixture('request-enum-narrowed', 'after.yaml'), path.join(root, 'openapi/openapi.yaml'));
    const result = await run(runDiffApi, ['--base-ref', 'HEAD'], root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'diff:api: partner: openapi/openapi.yaml (1.0.0) against openapi/openapi.yaml at HEAD (1.0.0): 1 change (1 breaking)',
    );
    const unknown = await run(runDiffApi, ['--base-ref', 'no-such-branch'], root);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no-such-branch is not a commit of the repository');

    // A second API whose document references a file in another folder: read as both are at
    // the commit. A third one, added since, is not there: nothing to compare.
    const ledger = readYaml(fixture('operation-added', 'before.yaml')) as {
      components: { schemas: Record<string, Json> };
    };
    const card = ledger.components.schemas['Card'] as { properties: Record<string, Json> };
    ledger.components.schemas['Card'] = { $ref: '../shared/card.yaml' };
    await mkdir(path.join(root, 'ledger'));
    await mkdir(path.join(root, 'shared'));
    await writeFile(path.join(root, 'ledger/ledger.yaml'), stringify(ledger));
    await writeFile(path.join(root, 'shared/card.yaml'), stringify(card));
    git('add', '.');
    git('commit', '--quiet', '-m', 'the ledger');
    card.properties['holderName'] = { type: 'string', maxLength: 10 };
    await writeFile(path.join(root, 'shared/card.yaml'), stringify(card));
    await placeDocument(root, 'audit/audit.yaml', 'operation-added', 'before.yaml');
    await writeProjectConfig(root, {
      partner: { root: 'openapi/openapi.yaml' },
      ledger: { root: 'ledger/ledger.yaml' },
      audit: { root: 'audit/audit.yaml' },
    });
    const three = await run(runDiffApi, ['--base-ref', 'HEAD'], root);
    expect(three).toMatchObject({ code: 0, stderr: '' });
    expect(three.stdout).toContain(
      'diff:api: partner: openapi/openapi.yaml (1.0.0) against openapi/openapi.yaml at HEAD (1.0.0): no change',
    );
    expect(three.stdout).toContain(
      'diff:api: ledger: ledger/ledger.yaml (1.0.0) against ledger/ledger.yaml at HEAD (1.0.0): 3 changes (3 non-breaking)',
    );
    expect(three.stdout).toContain(
      '[Added] maxLength validator to `holderName` in Response 201 content (application/json) (10)',
    );
    expect(three.stdout.endsWith('diff:api: audit: audit/audit.yaml is not in HEAD: nothing to compare\n')).toBe(true);
    expect((await run(runDiffApi, ['--base-ref', 'HEAD', '--api', 'audit'], root)).code).toBe(0);
  });
});

describe('npm run diff:api over the APIs of redocly.yaml', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'diff-api-apis-'));
    // cards: released, then an operation added; ledger: nothing released yet.
    await writeProjectConfig(root, { cards: { root: 'cards/openapi.yaml' }, ledger: { root: 'ledger/ledger.yaml' } });
    await placeDocument(root, 'cards/openapi.yaml', 'operation-added', 'after.yaml');
    await placeRelease(root, 'cards/released', 'operation-added', 'before.yaml');
    await placeDocument(root, 'ledger/ledger.yaml', 'description-edits', 'after.yaml');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const NOTHING_RELEASED =
    'diff:api: ledger: nothing released yet (no <version>.json in ledger/released/): nothing to compare; `npm run release:api -- --api ledger` releases it\n';

  it('checks every API with no flags, and passes one with nothing released, saying so in one line', async () => {
    const result = await run(runDiffApi, [], root);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      'diff:api: cards: cards/openapi.yaml (1.0.0) against cards/released/1.0.0.json (1.0.0): 1 change (1 non-breaking)',
    );
    expect(result.stdout).toContain('non-breaking  [Added] operation DELETE /v1/card/{id}');
    expect(result.stdout.endsWith(NOTHING_RELEASED)).toBe(true);
  });

  it('checks one API with --api, and rejects an API redocly.yaml does not name', async () => {
    expect(await run(runDiffApi, ['--api', 'ledger'], root)).toEqual({ code: 0, stdout: NOTHING_RELEASED, stderr: '' });
    const cards = await run(runDiffApi, ['--api', 'cards'], root);
    expect(cards.code).toBe(0);
    expect(cards.stdout).toContain('diff:api: cards: cards/openapi.yaml (1.0.0) against cards/released/1.0.0.json');
    expect(cards.stdout).not.toContain('ledger');
    const unknown = await run(runDiffApi, ['--api', 'payments'], root);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--api payments: redocly.yaml names no such API; its apis: are cards, ledger');
  });

  it('asks which API a file given with --input, --base or --allow belongs to, when there are several', async () => {
    const input = path.join(root, 'cards/openapi.yaml');
    const ambiguous = await run(runDiffApi, ['--input', input], root);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(
      '--input names a file of one API, and redocly.yaml names 2: say which with --api NAME (cards, ledger).',
    );
    expect((await run(runDiffApi, ['--allow', 'none.yaml'], root)).code).toBe(2);
    const chosen = await run(runDiffApi, ['--api', 'cards', '--input', input], root);
    expect(chosen.code).toBe(0);
    expect(chosen.stdout).toContain('diff:api: cards: cards/openapi.yaml (1.0.0) against cards/released/1.0.0.json');
  });

  it('prints one report per API with --json, and one API’s report alone with --api', async () => {
    const all = JSON.parse((await run(runDiffApi, ['--json'], root)).stdout) as {
      passed: boolean;
      apis: Array<Record<string, unknown>>;
    };
    expect(all.passed).toBe(true);
    expect(all.apis.map((api) => [api['api'], api['passed']])).toEqual([
      ['cards', true],
      ['ledger', true],
    ]);
    expect(all.apis[1]?.['skipped']).toContain('nothing released yet');
    const one = JSON.parse((await run(runDiffApi, ['--json', '--api', 'cards'], root)).stdout) as Record<
      string,
      unknown
    >;
    expect(one).toMatchObject({ api: 'cards', passed: true, counts: { 'non-breaking': 1 } });
  });

  it('gates each API with its own allow-list, from x-breaking-changes-allowed', async () => {
    const project = path.join(root, 'gated');
    await writeProjectConfig(project, {
      cards: { root: 'cards/openapi.yaml' },
      ledger: {
        root: 'ledger/ledger.yaml',
        'x-released': 'releases/ledger',
        'x-breaking-changes-allowed': 'policy/ledger-allowed.yaml',
      },
    });
    await placeDocument(project, 'cards/openapi.yaml', 'parameter-removed', 'after.yaml');
    await placeRelease(project, 'cards/released', 'parameter-removed', 'before.yaml');
    await placeDocument(project, 'ledger/ledger.yaml', 'parameter-removed', 'after.yaml');
    await placeRelease(project, 'releases/ledger', 'parameter-removed', 'before.yaml');
    await mkdir(path.join(project, 'policy'));
    await writeFile(
      path.join(project, 'policy/ledger-allowed.yaml'),
      "allowed:\n  - path: '#/paths/~1v1~1card/get/parameters/1'\n    reason: The ledger never sent it.\n",
    );
    const result = await run(runDiffApi, [], project);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'diff:api: ledger: passed: the breaking change is allowed in policy/ledger-allowed.yaml',
    );
    expect(result.stderr).toContain(
      'diff:api: cards: FAILED: 1 breaking change is neither allowed nor in a new major version. Raise info.version to 2.0.0, or list it in cards/breaking-changes-allowed.yaml',
    );
    expect(result.stderr).not.toContain('ledger');
    expect((await run(runDiffApi, ['--api', 'ledger'], project)).code).toBe(0);
  });
});

describe('npm run release:api', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'release-api-'));
    await mkdir(path.join(root, 'openapi'));
    await writeProjectConfig(root, { partner: { root: 'openapi/openapi.yaml' } });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Puts a fixture in place as the document, under `version`. */
  const useDocument = async (name: string, file: 'before.yaml' | 'after.yaml', version: string): Promise<void> => {
    const document = readYaml(fixture(name, file)) as { info: { version: string } };
    document.info.version = version;
    await writeFile(path.join(root, 'openapi/openapi.yaml'), stringify(document));
  };
  const changelog = (): Promise<string> => readFile(path.join(root, 'openapi/CHANGELOG.md'), 'utf8');

  it('releases the first version: the bundled document, and its changelog entry', async () => {
    await useDocument('operation-added', 'before.yaml', '1.0.0');
    const result = await run(runReleaseApi, ['--date', '2026-01-05'], root);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      'release:api: partner: released 1.0.0 (2026-01-05): wrote openapi/released/1.0.0.json; the first release in openapi/CHANGELOG.md\n',
    );
    const released = JSON.parse(await readFile(path.join(root, 'openapi/released/1.0.0.json'), 'utf8')) as Json;
    expect(released).toEqual(readYaml(fixture('operation-added', 'before.yaml')));
    expect(await changelog()).toMatch(/^# Changelog\n\n[^]*\n## 1\.0\.0 \(2026-01-05\)\n\nThe first release\.\n$/);
  });

  it('never rewrites a release', async () => {
    const before = await readFile(path.join(root, 'openapi/released/1.0.0.json'), 'utf8');
    await useDocument('operation-added', 'after.yaml', '1.0.0');
    const result = await run(runReleaseApi, ['--date', '2026-01-06'], root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('1.0.0 is released already: openapi/released/1.0.0.json is never rewritten');
    expect(await readFile(path.join(root, 'openapi/released/1.0.0.json'), 'utf8')).toBe(before);
  });

  it('adds the next release first in the changelog, with its classified changes', async () => {
    await useDocument('operation-added', 'after.yaml', '1.1.0');
    const result = await run(runReleaseApi, ['--date', '2026-02-01'], root);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('1 change since 1.0.0');
    const text = await changelog();
    expect(text).toContain(
      '## 1.1.0 (2026-02-01)\n\nSince 1.0.0: 1 non-breaking.\n\n### Non-breaking\n\n- [Added] operation DELETE /v1/card/{id} (`#/paths/~1v1~1card~1{id}/delete`).\n\n## 1.0.0 (2026-01-05)',
    );
  });

  it('rejects a version lower than the latest, and a breaking change the gate rejects', async () => {
    await useDocument('operation-added', 'after.yaml', '1.0.5');
    expect((await run(runReleaseApi, [], root)).stderr).toContain(
      'info.version 1.0.5 is lower than the latest release, 1.1.0',
    );
    const document = readYaml(fixture('operation-added', 'after.yaml')) as {
      info: { version: string };
      paths: Record<string, Record<string, Json>>;
    };
    document.info.version = '1.2.0';
    delete document.paths['/v1/card']?.['get'];
    await writeFile(path.join(root, 'openapi/openapi.yaml'), stringify(document));
    const rejected = await run(runReleaseApi, [], root);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('1.2.0 is not released: the gate rejects its breaking changes');
    expect((await listReleases(path.join(root, 'openapi/released'))).map((release) => release.version.text)).toEqual([
      '1.0.0',
      '1.1.0',
    ]);
  });

  it('releases an allowed breaking change with its reason, and empties the allow-list, comments kept', async () => {
    const allowList = path.join(root, 'openapi/breaking-changes-allowed.yaml');
    await writeFile(
      allowList,
      "# Accepted breaks.\nallowed:\n  - path: '#/paths/~1v1~1card/get'\n    action: remove\n    reason: Replaced by the search operation.\n",
    );
    const result = await run(runReleaseApi, ['--date', '2026-03-01'], root);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('emptied openapi/breaking-changes-allowed.yaml (1 entry)');
    expect(await changelog()).toContain(
      '### Breaking\n\n- [Removed] operation GET /v1/card (`#/paths/~1v1~1card/get`). Accepted: Replaced by the search operation.\n',
    );
    expect(await readFile(allowList, 'utf8')).toBe('# Accepted breaks.\nallowed: []\n');
  });

  it('rejects a date that is not YYYY-MM-DD, exit 2', async () => {
    expect((await run(runReleaseApi, ['--date', '1 March'], root)).code).toBe(2);
    expect((await run(runReleaseApi, ['--date', '2026-02-30x'], root)).code).toBe(2);
  });

  it('releases the API --api names, into the folders redocly.yaml gives it; the first API by default', async () => {
    const project = path.join(root, 'two');
    await writeProjectConfig(project, {
      cards: { root: 'cards/openapi.yaml' },
      ledger: { root: 'ledger/ledger.yaml', 'x-released': 'releases/ledger', 'x-changelog': 'docs/ledger-changes.md' },
    });
    await placeDocument(project, 'cards/openapi.yaml', 'operation-added', 'before.yaml', '1.0.0');
    await placeDocument(project, 'ledger/ledger.yaml', 'operation-added', 'after.yaml', '3.0.0');

    const ledger = await run(runReleaseApi, ['--api', 'ledger', '--date', '2026-04-01'], project);
    expect(ledger).toEqual({
      code: 0,
      stdout:
        'release:api: ledger: released 3.0.0 (2026-04-01): wrote releases/ledger/3.0.0.json; the first release in docs/ledger-changes.md\n',
      stderr: '',
    });
    expect(JSON.parse(await readFile(path.join(project, 'releases/ledger/3.0.0.json'), 'utf8'))).toEqual({
      ...(readYaml(fixture('operation-added', 'after.yaml')) as Record<string, Json>),
      info: expect.objectContaining({ version: '3.0.0' }) as unknown,
    });
    expect(await readFile(path.join(project, 'docs/ledger-changes.md'), 'utf8')).toContain('## 3.0.0 (2026-04-01)');
    expect((await listReleases(path.join(project, 'cards/released'))).length).toBe(0);

    // No --api: the first API of apis:.
    const cards = await run(runReleaseApi, ['--date', '2026-04-02'], project);
    expect(cards.stdout).toBe(
      'release:api: cards: released 1.0.0 (2026-04-02): wrote cards/released/1.0.0.json; the first release in cards/CHANGELOG.md\n',
    );
    expect((await listReleases(path.join(project, 'releases/ledger'))).map((release) => release.version.text)).toEqual([
      '3.0.0',
    ]);

    // diff:api now compares both.
    const diff = await run(runDiffApi, [], project);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain(
      'diff:api: cards: cards/openapi.yaml (1.0.0) against cards/released/1.0.0.json (1.0.0): no change',
    );
    expect(diff.stdout).toContain(
      'diff:api: ledger: ledger/ledger.yaml (3.0.0) against releases/ledger/3.0.0.json (3.0.0): no change',
    );

    const unknown = await run(runReleaseApi, ['--api', 'payments'], project);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--api payments: redocly.yaml names no such API; its apis: are cards, ledger');
  });

  it('keeps older entries below a new one, under the title', () => {
    const once = addEntry(undefined, '## 1.0.0 (2026-01-01)\n\nThe first release.\n');
    const twice = addEntry(once, '## 1.1.0 (2026-02-01)\n\nNo change to the interface since 1.0.0.\n');
    expect(twice.indexOf('## 1.1.0')).toBeLessThan(twice.indexOf('## 1.0.0'));
    expect(twice.startsWith('# Changelog\n')).toBe(true);
    expect(twice.endsWith('The first release.\n')).toBe(true);
  });
});

describe('the reference pages of the APIs of redocly.yaml', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docs-pages-'));
    await writeProjectConfig(root, {
      cards: { root: 'cards/openapi.yaml' },
      ledger: { root: 'ledger/ledger.yaml', 'x-changelog': 'docs/ledger-changes.md' },
    });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('gives each API a page at generated/docs/<name>.html, with its changelog and the project’s redocly.yaml', () => {
    expect(projectDocsPaths(root)).toEqual([
      {
        api: path.join(root, 'cards/openapi.yaml'),
        config: path.join(root, 'redocly.yaml'),
        output: path.join(root, 'generated/docs/cards.html'),
        changelog: path.join(root, 'cards/CHANGELOG.md'),
      },
      {
        api: path.join(root, 'ledger/ledger.yaml'),
        config: path.join(root, 'redocly.yaml'),
        output: path.join(root, 'generated/docs/ledger.html'),
        changelog: path.join(root, 'docs/ledger-changes.md'),
      },
    ]);
    expect(docsTargets({}, root, root)).toEqual(projectDocsPaths(root));
  });

  it('builds one page with --api, by name or document, and asks where a page of another document goes', () => {
    const [, ledger] = projectDocsPaths(root);
    expect(docsTargets({ api: 'ledger' }, root, root)).toEqual([ledger]);
    expect(docsTargets({ api: 'ledger/ledger.yaml', out: 'page.html' }, root, root)).toEqual([
      { ...ledger, output: path.join(root, 'page.html') },
    ]);
    expect(() => docsTargets({ out: 'page.html' }, root, root)).toThrow(
      '--out names a file of one page, and redocly.yaml names 2 APIs: say which with --api (cards, ledger).',
    );
    expect(() => docsTargets({ api: 'other.yaml' }, root, root)).toThrow(/say where its page goes with --out FILE/);
    expect(docsTargets({ api: 'other.yaml', out: 'other.html' }, root, root)).toEqual([
      {
        api: path.join(root, 'other.yaml'),
        config: path.join(root, 'redocly.yaml'),
        output: path.join(root, 'other.html'),
        changelog: path.join(root, 'CHANGELOG.md'),
      },
    ]);
  });
});

describe('the changelog in the reference', () => {
  it('is appended to info.description, where Redoc lists its heading as a section', async () => {
    const document = await documentWithChangelog(
      fixture('operation-added', 'before.yaml'),
      '# Changelog\n\n## 1.0.0 (2026-01-05)\n\nThe first release.\n',
    );
    expect((document['info'] as { description: string }).description).toBe(
      'A small card API, the base of every pair.\n\n# Changelog\n\n## 1.0.0 (2026-01-05)\n\nThe first release.\n',
    );
    expect(document['paths']).toEqual((readYaml(fixture('operation-added', 'before.yaml')) as { paths: Json }).paths);
  });
});
