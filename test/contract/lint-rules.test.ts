// The house rules of the contract live in the linter (redocly.yaml: configurable rules, the
// toolkit's plugin toolkit/lint/contract-rules.js with this service's fixes, and the plugin
// openapi/lint/house-rules.js). Each has a fixture under test/fixtures/lint/<rule>/ that makes it
// fire; this test runs the project's Redocly CLI, as `npm run lint` does, on
// every fixture and on the project's documents (openapi/openapi.yaml, the partner API, and
// openapi/dashboard/dashboard.yaml, the dashboard's) at once, and checks what a designer is told, where.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../helpers/project-root.js';
import { runRedocly } from 'contract-first';

const CONFIG = 'redocly.yaml';
const DOCUMENTS = ['openapi/openapi.yaml', 'openapi/dashboard/dashboard.yaml'];
const FIXTURES = 'test/fixtures/lint';

/** A finding as the CLI reports it: the file, the line and column, the rule and the message. */
interface Finding {
  file: string;
  line: number;
  col: number;
  ruleId: string;
  message: string;
}

interface JsonProblem {
  ruleId: string;
  message: string;
  location: { source: { ref: string }; start?: { line: number; col: number } }[];
}

/** The house rules redocly.yaml turns on: the plugins' (contract-first/…, house/…) and the configurable ones (rule/…). */
const houseRules = Object.keys(
  (parse(readFileSync(path.join(PROJECT_ROOT, CONFIG), 'utf8')) as { rules: Record<string, unknown> }).rules,
)
  .filter((id) => id.startsWith('contract-first/') || id.startsWith('house/') || id.startsWith('rule/'))
  .sort();

const fixtureNames = readdirSync(path.join(PROJECT_ROOT, FIXTURES)).sort();
const fixtureRoot = (name: string) => `${FIXTURES}/${name}/openapi.yaml`;

const lint = await runRedocly(
  [
    'lint',
    '--config',
    CONFIG,
    '--format',
    'json',
    '--max-problems',
    '1000',
    ...DOCUMENTS,
    ...fixtureNames.map(fixtureRoot),
  ],
  { cwd: PROJECT_ROOT },
);
// One JSON report per document, printed one after the other (`}{` where one ends and the next begins).
const reports = JSON.parse(`[${lint.stdout.trim().replace(/^\}\{$/gm, '},{')}]`) as { problems: JsonProblem[] }[];
const findings: Finding[] = reports
  .flatMap((r) => r.problems)
  .map((p) => {
    const [location] = p.location;
    return {
      file: path
        .relative(PROJECT_ROOT, path.resolve(PROJECT_ROOT, location?.source.ref ?? ''))
        .split(path.sep)
        .join('/'),
      line: location?.start?.line ?? 0,
      col: location?.start?.col ?? 0,
      ruleId: p.ruleId,
      message: p.message,
    };
  });
const byPosition = (a: Finding, b: Finding) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.message.localeCompare(b.message);
const findingsUnder = (folder: string) => findings.filter((f) => f.file.startsWith(`${folder}/`)).sort(byPosition);

// What each rule's fixture makes it say, and where: nothing else fires on the fixture.
const F = FIXTURES;
const EXPECTED: Record<string, Finding[]> = {
  'contract-first/operation-415-for-body': [
    {
      file: `${F}/operation-415-for-body/openapi.yaml`,
      line: 44,
      col: 7,
      ruleId: 'contract-first/operation-415-for-body',
      message:
        'Operation updateWidget takes a request body but declares no 415 response, which the server sends for a body of a ' +
        "media type it does not take: add `'415': $ref: ../components/responses/UnsupportedMediaType.yaml`.",
    },
  ],
  'contract-first/path-parameter-example': [
    {
      file: `${F}/path-parameter-example/openapi.yaml`,
      line: 27,
      col: 11,
      ruleId: 'contract-first/path-parameter-example',
      message:
        'Path parameter id has no example: tests can only draw a value from its schema, which names nothing that exists: ' +
        'add an `example` of an id that exists in the sandbox.',
    },
  ],
  'contract-first/operation-400-for-input': [
    {
      file: `${F}/operation-400-for-input/openapi.yaml`,
      line: 33,
      col: 7,
      ruleId: 'contract-first/operation-400-for-input',
      message:
        'Operation getWidget takes input (parameters or a request body) but declares no 400 response, which the server sends for a ' +
        "request off the contract: add a `'400'` response " +
        'with an `Error` body (`$ref: ../components/schemas/Error.yaml`) and an `InvalidRequest` example of the input it refuses.',
    },
  ],
  'contract-first/operation-401-when-secured': [
    {
      file: `${F}/operation-401-when-secured/openapi.yaml`,
      line: 34,
      col: 7,
      ruleId: 'contract-first/operation-401-when-secured',
      message:
        'Operation getWidget is secured (oauth2) but declares no 401 response, which the server sends for a request without valid ' +
        "credentials: add `'401': $ref: ../components/responses/Unauthorized.yaml` (`WriteUnauthorized.yaml` for a signed write).",
    },
  ],
  'house/operation-403-when-secured': [
    {
      file: `${F}/operation-403-when-secured/openapi.yaml`,
      line: 34,
      col: 7,
      ruleId: 'house/operation-403-when-secured',
      message:
        "Operation getWidget is secured (oauth2) but declares no 403 response: add `'403': $ref: ../components/responses/Forbidden.yaml`.",
    },
  ],
  'contract-first/security-scheme-defined': [
    {
      file: `${F}/security-scheme-defined/openapi.yaml`,
      line: 27,
      col: 11,
      ruleId: 'contract-first/security-scheme-defined',
      message:
        'The security requirement names "apiKey", which components.securitySchemes does not define: define it there, or correct the name.',
    },
    // Redocly's own rule says it too.
    {
      file: `${F}/security-scheme-defined/openapi.yaml`,
      line: 27,
      col: 11,
      ruleId: 'security-defined',
      message: 'There is no `apiKey` security scheme defined.',
    },
  ],
  'contract-first/required-with-default': [
    {
      file: `${F}/required-with-default/openapi.yaml`,
      line: 30,
      col: 21,
      ruleId: 'contract-first/required-with-default',
      message:
        'Parameter `limit` is required and has a default: the validator writes the default into a request that leaves it out, so the ' +
        'server takes such requests, while clients read that they must send it. Drop `required`, or the default.',
    },
    {
      file: `${F}/required-with-default/openapi.yaml`,
      line: 92,
      col: 22,
      ruleId: 'contract-first/required-with-default',
      message:
        'Property `kind` is required and has a default: the validator writes the default into a request that leaves it out, so the ' +
        'server takes such requests, while clients read that they must send it. Drop `required`, or the default.',
    },
  ],
  'contract-first/closed-allof-member': [
    {
      file: `${F}/closed-allof-member/openapi.yaml`,
      line: 90,
      col: 11,
      ruleId: 'contract-first/closed-allof-member',
      message:
        'Member 0 of this allOf is closed (additionalProperties: false), so it rejects `id`, `count`, which the rest of the composition ' +
        'declares: no object satisfies it. Leave the member open and close the composition with `unevaluatedProperties: false` beside its allOf.',
    },
    // What follows from it: the document's own example of a widget fails its schema.
    {
      file: `${F}/closed-allof-member/openapi.yaml`,
      line: 48,
      col: 21,
      ruleId: 'house/json-body-example',
      message:
        'Operation getWidget: example `widget` of the 200 response (application/json) does not match its schema (/ must NOT have additional ' +
        'properties): correct the example, or the schema.',
    },
    {
      file: `${F}/closed-allof-member/openapi.yaml`,
      line: 49,
      col: 21,
      ruleId: 'no-invalid-media-type-examples',
      message: 'Example value must conform to the schema: must NOT have additional properties `id`.',
    },
  ],
  'rule/operation-500-or-default': [
    {
      file: `${F}/operation-500-or-default/openapi.yaml`,
      line: 33,
      col: 7,
      ruleId: 'rule/operation-500-or-default',
      message:
        'Operation declares neither a 500 nor a default response (openapi.yaml #/paths/~1v1~1widget~1{id}/get/responses): ' +
        "add `'500': $ref: ../components/responses/InternalError.yaml`.",
    },
  ],
  'house/schema-closed': [
    {
      file: `${F}/schema-closed/openapi.yaml`,
      line: 97,
      col: 7,
      ruleId: 'house/schema-closed',
      message:
        'Object schema openapi.yaml#/components/schemas/Widget is open: add `additionalProperties: false` ' +
        '(or `unevaluatedProperties: false`) so that undeclared properties are rejected.',
    },
    {
      file: `${F}/schema-closed/openapi.yaml`,
      line: 116,
      col: 7,
      ruleId: 'house/schema-closed',
      message:
        'Schema openapi.yaml#/components/schemas/Gizmo composes objects with allOf but is open: add `unevaluatedProperties: false` to it ' +
        '(not `additionalProperties: false`, which would reject the properties of its members; the members stay open, as parts).',
    },
  ],
  'house/json-body-example': [
    {
      file: `${F}/json-body-example/paths/v1_widget.yaml`,
      line: 9,
      col: 7,
      ruleId: 'house/json-body-example',
      message:
        'Operation createWidget: the request body (application/json) has no example: add `examples:` under `application/json` ' +
        'with a named example, summarised, whose `value` validates against the schema.',
    },
    {
      file: `${F}/json-body-example/paths/v1_widget.yaml`,
      line: 26,
      col: 17,
      ruleId: 'house/json-body-example',
      message:
        'Operation createWidget: example `widget` of the 200 response (application/json) does not match its schema ' +
        '(/count must match format "int64"): correct the example, or the schema.',
    },
  ],
  'contract-first/file-referenced': [
    {
      file: `${F}/file-referenced/openapi.yaml`,
      line: 21,
      col: 1,
      ruleId: 'contract-first/file-referenced',
      message:
        'File paths/v1_gadget_{id}.yaml is part of no document: nothing reached from openapi.yaml references it. ' +
        'Reference it where it belongs (from openapi.yaml: `$ref: paths/v1_gadget_{id}.yaml`), or delete it.',
    },
    {
      file: `${F}/file-referenced/openapi.yaml`,
      line: 24,
      col: 1,
      ruleId: 'contract-first/file-referenced',
      message:
        'File components/schemas/Gadget.yaml is part of no document: nothing reached from openapi.yaml references it. ' +
        'Reference it where it belongs (from openapi.yaml: `$ref: components/schemas/Gadget.yaml`), or delete it.',
    },
  ],
  'rule/operation-id-verb-noun': [
    {
      file: `${F}/operation-id-verb-noun/openapi.yaml`,
      line: 22,
      col: 20,
      ruleId: 'rule/operation-id-verb-noun',
      message:
        'operationId must be lowerCamelCase verbNoun: one of the verbs list, get, create, set, update, delete, cancel, execute, ' +
        'approve or reject, then the noun in PascalCase (listTransfers, getCard, setCardLimits). A new verb is added to this rule in ' +
        'redocly.yaml.',
    },
  ],
};

describe('house rules (lint)', () => {
  it('ran: the CLI reported on every document it was given', () => {
    expect(reports, lint.stderr).toHaveLength(DOCUMENTS.length + fixtureNames.length);
    for (const document of DOCUMENTS) expect(lint.stderr, document).toContain(`${document}: validated in`);
  });

  it('our documents, the partner API and the dashboard, give zero findings', () => {
    expect(findingsUnder('openapi')).toEqual([]);
  });

  it('every house rule of redocly.yaml has its fixture, and every fixture its rule', () => {
    expect(houseRules).toEqual(Object.keys(EXPECTED).sort());
    expect(houseRules.map((id) => id.slice(id.indexOf('/') + 1)).sort()).toEqual(fixtureNames);
  });

  it.each(Object.entries(EXPECTED))('%s fires on its fixture, at the line, saying what to do', (ruleId, expected) => {
    const fixture = ruleId.slice(ruleId.indexOf('/') + 1);
    expect(findingsUnder(`${FIXTURES}/${fixture}`)).toEqual([...expected].sort(byPosition));
  });
});
