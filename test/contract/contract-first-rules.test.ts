// The toolkit's lint rules on their own (toolkit/lint/contract-first.yaml), as a new
// project and `generate`, `serve` and `new-api` run them: public documents we never wrote give no
// error (a project made from one passes `npm run lint`), and each of the toolkit's rules fires on
// its fixture with its own words, at its own severity.
import path from 'node:path';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/project-root.js';
import { lintDocument, type LintFinding } from 'contract-first';

const PUBLIC = path.join(PROJECT_ROOT, 'toolkit/test/fixtures/third-party');
const FIXTURES = path.join(PROJECT_ROOT, 'test/fixtures/lint');

/** The fixtures' one server is on localhost, which Redocly's no-server-example.com warns of. */
const ofInterest = (findings: readonly LintFinding[]) =>
  findings.filter((finding) => finding.ruleId !== 'no-server-example.com');
const brief = (findings: readonly LintFinding[]) =>
  ofInterest(findings).map(({ severity, ruleId, line, message }) => ({ severity, ruleId, line, message }));

describe("the toolkit's lint rules", () => {
  it.each(readdirSync(PUBLIC).filter((name) => name.endsWith('.yaml')))(
    'give no error on the public document %s',
    async (name) => {
      const findings = await lintDocument(path.join(PUBLIC, name), PROJECT_ROOT);
      expect(findings.filter((finding) => finding.severity === 'error')).toEqual([]);
    },
  );

  it('say what the server responds with that a document does not declare, as warnings with a fix any document can follow', async () => {
    const input = await lintDocument(path.join(FIXTURES, 'operation-400-for-input/openapi.yaml'), PROJECT_ROOT);
    expect(brief(input)).toEqual([
      {
        severity: 'warning',
        ruleId: 'contract-first/operation-400-for-input',
        line: 33,
        message:
          'Operation getWidget takes input (parameters or a request body) but declares no 400 response, which the server sends for a ' +
          "request off the contract: add a `'400'` response with the document's error body",
      },
    ]);
    const secured = await lintDocument(path.join(FIXTURES, 'operation-401-when-secured/openapi.yaml'), PROJECT_ROOT);
    expect(brief(secured)).toEqual([
      {
        severity: 'warning',
        ruleId: 'contract-first/operation-401-when-secured',
        line: 34,
        message:
          'Operation getWidget is secured (oauth2) but declares no 401 response, which the server sends for a request without valid ' +
          "credentials: add a `'401'` response with the document's error body",
      },
    ]);
  });

  it("leave alone the requests the server sends, webhooks and callbacks: their responses are the subscriber's", async () => {
    const sent = [];
    for (const name of ['readme-webhooks.yaml', 'oai-tictactoe.yaml']) {
      const findings = await lintDocument(path.join(PUBLIC, name), PROJECT_ROOT);
      sent.push(
        ...findings.filter(
          (finding) =>
            /^contract-first\/operation-40[01]/.test(finding.ruleId) &&
            /^#\/webhooks\/|\/callbacks\//.test(finding.pointer),
        ),
      );
    }
    expect(sent).toEqual([]);
  });

  it('warn of a required parameter or property that has a default', async () => {
    const findings = await lintDocument(path.join(FIXTURES, 'required-with-default/openapi.yaml'), PROJECT_ROOT);
    const tail =
      'is required and has a default: the validator writes the default into a request that leaves it out, so the server takes such requests, while clients read that they must send it. Drop `required`, or the default.';
    expect(brief(findings).filter((finding) => finding.ruleId === 'contract-first/required-with-default')).toEqual([
      {
        severity: 'warning',
        ruleId: 'contract-first/required-with-default',
        line: 30,
        message: `Parameter \`limit\` ${tail}`,
      },
      {
        severity: 'warning',
        ruleId: 'contract-first/required-with-default',
        line: 92,
        message: `Property \`kind\` ${tail}`,
      },
    ]);
  });

  it('warn of a security scheme that is not defined, and of a file nothing references', async () => {
    const scheme = await lintDocument(path.join(FIXTURES, 'security-scheme-defined/openapi.yaml'), PROJECT_ROOT);
    expect(brief(scheme)).toEqual([
      {
        severity: 'warning',
        ruleId: 'contract-first/security-scheme-defined',
        line: 27,
        message:
          'The security requirement names "apiKey", which components.securitySchemes does not define: define it there, or correct the name.',
      },
    ]);
    const files = await lintDocument(path.join(FIXTURES, 'file-referenced/openapi.yaml'), PROJECT_ROOT);
    expect(ofInterest(files).map((finding) => [finding.severity, finding.ruleId])).toEqual([
      ['warning', 'contract-first/file-referenced'],
      ['warning', 'contract-first/file-referenced'],
    ]);
  });

  it('refuse, as an error, an allOf member closed against the rest of its composition', async () => {
    const findings = await lintDocument(path.join(FIXTURES, 'closed-allof-member/openapi.yaml'), PROJECT_ROOT);
    expect(
      findings.filter((finding) => finding.severity === 'error').map((finding) => [finding.ruleId, finding.pointer]),
    ).toEqual([['contract-first/closed-allof-member', '#/components/schemas/Widget/allOf/0']]);
    // Its consequence, the document's own example failing, is a warning of Redocly's.
    expect(
      ofInterest(findings)
        .filter((finding) => finding.severity === 'warning')
        .map((finding) => finding.ruleId),
    ).toEqual(['no-invalid-media-type-examples']);
  });
});
