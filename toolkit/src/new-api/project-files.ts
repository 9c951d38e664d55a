/**
 * The files a new project is given once, and then owns: the template beside this file (copied as
 * it is; `_gitignore` becomes `.gitignore`, `_ci/` becomes `.ci/`), and those written for its
 * document: package.json, redocly.yaml, README.md, server/security.ts and test/credentials.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SecuritySchemeInfo } from '../codegen/operations.js';

const TEMPLATE = fileURLToPath(new URL('../../template/', import.meta.url));

export interface ProjectFile {
  /** Relative to the project root, with forward slashes. */
  readonly path: string;
  readonly content: string;
  /** An executable script (.ci/run). */
  readonly executable?: boolean;
}

export interface ProjectFacts {
  /** The npm package name, also the API's name in redocly.yaml. */
  readonly name: string;
  /** The document's info.title. */
  readonly title: string;
  /** The document's root, relative to the project root (`openapi/openapi.yaml`). */
  readonly document: string;
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeInfo>>;
  /** The operations, for the README: method, path and operationId. */
  readonly operations: ReadonlyArray<{ readonly method: string; readonly path: string; readonly key: string }>;
  /** The path the server mounts the operations under: that of the document's first server ('' for none). */
  readonly serverBase: string;
  /** Every package the project declares, this one (`contract-first`, by path or version) included. */
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly engines: Readonly<Record<string, string>>;
  /**
   * Rules that found errors in the document the generator still carries (mistakes it works around),
   * each with the findings: the project's redocly.yaml makes them warnings, and lists them.
   */
  readonly mistakes?: Readonly<Record<string, readonly string[]>>;
}

const slashed = (file: string): string => file.split(path.sep).join('/');
const targetOf = (file: string): string => file.replace(/^_gitignore$/, '.gitignore').replace(/^_ci\//, '.ci/');

/** The template's files, as they are. */
function templateFiles(): ProjectFile[] {
  return readdirSync(TEMPLATE, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => slashed(path.relative(TEMPLATE, path.join(entry.parentPath, entry.name))))
    .sort()
    .map((file) => ({
      path: targetOf(file),
      content: readFileSync(path.join(TEMPLATE, file), 'utf8'),
      ...(file.startsWith('_ci/') ? { executable: true } : {}),
    }));
}

/** An npm package name from a title: `Redocly Museum API` → `redocly-museum-api`. */
export function packageNameOf(title: string): string {
  const name = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return name === '' ? 'api' : name;
}

/** The project's package.json: what npm needs to write its lock file, before the rest is known. */
export function projectManifest(
  facts: Pick<ProjectFacts, 'name' | 'title' | 'document' | 'engines' | 'dependencies' | 'devDependencies'>,
): string {
  const manifest = {
    name: facts.name,
    version: '0.1.0',
    private: true,
    description: `${facts.title}: a contract-first server of ${facts.document}`,
    type: 'module',
    engines: facts.engines,
    scripts: {
      lint: 'contract-first lint',
      generate: 'contract-first generate',
      dev: 'contract-first dev',
      serve: 'contract-first serve',
      check: 'contract-first check',
      typecheck: 'tsc --noEmit',
      test: 'npm run lint && npm run generate -- --check && npm run diff:api && npm run typecheck && vitest run',
      start: 'tsx server/main.ts',
      'diff:api': 'contract-first diff',
      'release:api': 'contract-first release',
      docs: 'contract-first docs',
      'docs:check': 'contract-first docs --check',
    },
    dependencies: facts.dependencies,
    devDependencies: facts.devDependencies,
    // esbuild (under tsx) works without its install script, which only checks its binary.
    allowScripts: { esbuild: false },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The rules the document breaks in ways the generator works around: warnings, each finding listed. */
function mistakeRules(facts: ProjectFacts): string {
  const rules = Object.entries(facts.mistakes ?? {});
  if (rules.length === 0) return '';
  const comment = (line: string): string => `  #   ${line}`;
  return `
# The document has mistakes that Redocly reports as errors and that the generator works around: they
# are warnings here until they are mended (then remove these lines to make them errors again).
rules:
${rules.map(([rule, findings]) => `${findings.map(comment).join('\n')}\n  ${rule}: warn`).join('\n')}
`;
}

function redoclyYaml(facts: ProjectFacts): string {
  return `# The project's configuration, read by Redocly and by every command of contract-first
# (its README says what each key means).
#
# apis: the document, where generate writes its files (beside \`output\`), the reference page,
# and the folder of handler stubs generate adds to when the document gains an operation.
apis:
  ${facts.name}:
    root: ${facts.document}
    output: generated/openapi.json
    x-docs: generated/docs/index.html
    x-handlers: server/handlers

# The rules every contract-first API keeps: errors for what leaves the served API wrong, warnings
# for mistakes the generator works around and for responses the document should declare. Add your
# own conventions below (Redocly's built-in and configurable rules, https://redocly.com/docs/cli/rules),
# or raise a warning to an error.
extends:
  - ./node_modules/contract-first/lint/contract-first.yaml
${mistakeRules(facts)}`;
}

/**
 * A scheme's credential: what its verifier receives, in words for the comment above it in
 * server/security.ts, and where the contract tests send it, for its line in test/credentials.ts.
 */
function credentialOf(scheme: SecuritySchemeInfo): { readonly words: string; readonly hint: string } {
  const bearer = `{ header: { Authorization: 'Bearer …' } }`;
  switch (scheme.type) {
    case 'apiKey': {
      const name = `'${(scheme.name ?? '?').replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
      const place = scheme.in === 'query' || scheme.in === 'cookie' ? scheme.in : 'header';
      return {
        words: `an API key, \`{ key }\`, from the ${scheme.in ?? '?'} ${scheme.name ?? '?'}`,
        hint: `{ ${place}: { ${name}: '…' } }`,
      };
    }
    case 'http':
      return (scheme.scheme ?? '').toLowerCase() === 'basic'
        ? {
            words: 'HTTP Basic credentials, `{ username, password }`',
            hint: `{ header: { Authorization: 'Basic …' } }`,
          }
        : { words: `the ${scheme.scheme ?? ''} token of the Authorization header, \`{ token }\``, hint: bearer };
    case 'oauth2':
    case 'openIdConnect':
      return {
        words: 'an OAuth 2.0 bearer token, `{ token }`; `context.scopes` lists the scopes the operation asks',
        hint: bearer,
      };
    case 'mutualTLS':
      return { words: 'the verified client certificate, `{ certificate }`', hint: '{ header: { … } }' };
    default:
      return { words: 'a credential of a kind the toolkit does not read', hint: '{ header: { … } }' };
  }
}

function securityTs(facts: ProjectFacts): string {
  const names = Object.keys(facts.securitySchemes);
  const entries = names.map((name) => {
    const scheme = facts.securitySchemes[name] as SecuritySchemeInfo;
    return `  // ${name}: ${credentialOf(scheme).words}.\n  ${JSON.stringify(name)}: notConfigured,`;
  });
  return `import type { securitySchemes } from '../generated/server.js';
import { notConfigured, type Verifiers } from 'contract-first/runtime';

/**
 * One verifier per security scheme of the document: a function that says whether the credential a
 * request carries is good for the operation. Until a scheme's verifier is written it stays
 * \`notConfigured\`, and every operation that needs that scheme is rejected with 401: none is
 * served open. A scheme the document adds does not compile until it is here.
 *
 * A verifier returns true to let the request through, false to respond with 401, and may throw an error
 * with \`status: 403\` for a credential that is good but lacks what the operation needs. An example:
 *
 *   api_key: async ({ key }) => key === process.env['API_KEY'],
 */
export const verifiers: Verifiers<typeof securitySchemes> = {
${entries.join('\n')}
};
`;
}

function credentialsTs(facts: ProjectFacts): string {
  return `import type { TestCredentials } from 'contract-first/testing';
import type { securitySchemes } from '../generated/server.js';

/**
 * What the contract tests (test/contract.test.ts) send for each security scheme whose verifier
 * server/security.ts has: an operation that needs a scheme without one here is rejected (401), and
 * the tests check that it is. Once a verifier is written, give the tests a credential it accepts:
 *
 *   api_key: { header: { 'X-API-Key': 'a key the verifier accepts' } },
 *   bearer: { header: { Authorization: 'Bearer …' } },
 */
export const credentials: TestCredentials<typeof securitySchemes> = {${Object.keys(facts.securitySchemes).length === 0 ? '' : '\n'}${Object.keys(
    facts.securitySchemes,
  )
    .map(
      (name) =>
        `  // ${JSON.stringify(name)}: ${credentialOf(facts.securitySchemes[name] as SecuritySchemeInfo).hint},\n`,
    )
    .join('')}};
`;
}

function readme(facts: ProjectFacts): string {
  const rows = facts.operations.map((op) => `| \`${op.method.toUpperCase()} ${op.path}\` | \`${op.key}\` |`).join('\n');
  const schemes = Object.keys(facts.securitySchemes);
  return `# ${facts.title}

A contract-first server of one OpenAPI 3.1 document, [\`${facts.document}\`](${facts.document}): the
document is the single source of truth, and everything else follows from it.

## Start

\`\`\`sh
npm ci          # install
npm test        # lint the document, check generated/ is fresh, diff against the last release, type-check, test
npm start       # serve it at http://localhost:3000 (PORT to change)
\`\`\`

Until you write them, the handlers respond with the document's own examples, or 501 where it gives
none; operations that need credentials respond with 401 until their verifier is written (below).

## Where things are

| path | what it is | yours? |
|---|---|---|
| \`${facts.document}\` | the document | yes: start every change here |
| \`redocly.yaml\` | the documents, where their output goes, and the lint rules | yes |
| \`generated/\` | types, route table and bundled document, written by \`npm run generate\` | never edit |
| \`server/handlers/\` | one handler per operation, named after its operationId | yes |
| \`server/security.ts\` | one verifier per security scheme | yes |
| \`server/app.ts\`, \`server/main.ts\` | the server, and what \`npm start\` runs | yes |
| \`client/index.ts\` | a typed client of the API (openapi-fetch) | yes |
| \`test/\` | contract tests built from the document's examples; your own tests | yes |
| \`${toolkitPath(facts)}\` | contract-first, the toolkit: commands, runtime and lint rules | replaced by a newer one |

## Changing the API

1. Edit \`${facts.document}\`.
2. \`npm run generate\`: lints it (the toolkit's rules), rewrites \`generated/\`, and adds a stub in
   \`server/handlers/\` for each new operation. The compiler then asks for it in
   \`server/handlers/index.ts\`.
3. \`npm run typecheck\`: every handler that no longer matches the document is an error that names
   the operation and the statuses it declares.
4. \`npm test\`. Every test runs with response validation on: a handler that responds off the
   contract fails.
5. \`npm run diff:api\` tells what clients would see change, and fails on a breaking change;
   \`npm run release:api\` keeps the released document in \`openapi/released/\`.

\`npm run dev\` does steps 2 and 3 and restarts the server on every save, and serves the reference at
http://localhost:3000/docs. \`npm run docs\` writes it to \`generated/docs/index.html\`.

## Checking a running server

\`npm run check -- --input ${facts.document} --base-url http://localhost:3000${facts.serverBase}\` sends requests generated
from the document's schemas (valid ones, invalid ones, ones without credentials, create-then-read
sequences) to a running server and reports each response that breaks the document, with a \`curl\`
line and the command that replays it (\`--help\` for its options; \`--header "NAME: VALUE"\` or
\`--auth MODULE\` for credentials). \`test/check.test.ts\` runs the same check against this server
in \`npm test\`.

## Operations

| operation | handler |
|---|---|
${rows}

## Security

${
  schemes.length === 0
    ? 'The document declares no security scheme.'
    : `Each scheme of the document (${schemes.map((name) => `\`${name}\``).join(', ')}) has a verifier in \`server/security.ts\`,
\`notConfigured\` until you write it: operations that need it are rejected with 401, never served
open. Give the contract tests a credential your verifier accepts in \`test/credentials.ts\`.`
}

## The toolkit

The commands (\`npm run generate\`, \`lint\`, \`dev\`, \`check\`, …) and the runtime the server imports
(\`contract-first/runtime\`) come from the package \`contract-first\`, a dependency like any other:
\`npx contract-first --help\` lists its commands. ${toolkitSource(facts)}

To update it, install the newer version (\`npm install contract-first@VERSION\`, or the newer packed
file), then run \`npm run generate\` and \`npm test\`: \`generated/\` follows the new version, and
the compiler names any handler the change affects.
`;
}

/** Where the project has the packed package, when it depends on one by path. */
function toolkitPath(facts: ProjectFacts): string {
  const spec = facts.dependencies['contract-first'] ?? '';
  return spec.startsWith('file:') ? spec.slice('file:'.length) : 'node_modules/contract-first/';
}

/** Where this project's copy of the package comes from, and how to move to a registry's. */
function toolkitSource(facts: ProjectFacts): string {
  const spec = facts.dependencies['contract-first'] ?? '';
  if (!spec.startsWith('file:')) return `It is installed from the registry (\`${spec}\`).`;
  return `It is installed from the packed file \`${toolkitPath(facts)}\`, kept in this project so that
\`npm ci\` needs nothing but the registry's other packages. Once \`contract-first\` is on your registry,
\`npm install contract-first@VERSION\` moves to it; then delete the file.`;
}

/** Every file the project owns from the start, for its document. */
export function projectFiles(facts: ProjectFacts): ProjectFile[] {
  return [
    ...templateFiles(),
    { path: 'package.json', content: projectManifest(facts) },
    { path: 'redocly.yaml', content: redoclyYaml(facts) },
    { path: 'README.md', content: readme(facts) },
    { path: 'server/security.ts', content: securityTs(facts) },
    { path: 'test/credentials.ts', content: credentialsTs(facts) },
  ];
}
