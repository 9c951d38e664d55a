/**
 * `contract-first new` on test/fixtures/generator/error-shape.yaml, whose errors all take one shape
 * with five required fields and a required header: before any handler is written, the server's own
 * error responses (400, 401, 404, 405, 415, a stub's 501 aside) keep that shape, so `check` against
 * its `npm start` finds nothing about an error body, media type or header.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/check/run.js';
import { exerciseDocument, type DocumentRun, type ProjectChecks } from './documents.js';
import { startProject } from './project.js';

const DOCUMENT = fileURLToPath(new URL('../fixtures/generator/error-shape.yaml', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const runs: DocumentRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((run) => run.project.remove()));
});

const ERROR_SHAPE_CHECKS: ProjectChecks = {
  async asMade(project) {
    const server = await startProject(project);
    try {
      const unauthorized = await fetch(`${server.baseUrl}/v1/orders`);
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get('content-type')).toMatch(/^application\/json/);
      expect(unauthorized.headers.get('x-request-id')).toMatch(UUID);
      const body = (await unauthorized.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['code', 'message', 'retryable', 'status', 'traceId']);
      expect(body).toMatchObject({ status: 401, retryable: expect.any(Boolean) as boolean });
      expect(body['traceId']).toMatch(UUID);
      expect(['invalid_request', 'unauthorized', 'not_found', 'conflict', 'internal']).toContain(body['code']);
      expect(String(body['message']).length).toBeGreaterThan(0);

      const report = await runCheck({
        input: DOCUMENT,
        baseUrl: `${server.baseUrl}/v1`,
        cases: 20,
        seed: 1,
        headers: [['Authorization', 'Bearer token']],
      });
      expect(report.requests).toBeGreaterThan(0);
      const aboutErrorResponses = report.findings.filter(
        (finding) =>
          finding.status !== null &&
          finding.status >= 400 &&
          finding.status !== 501 &&
          ['response-body', 'content-type', 'response-header', 'undeclared-status'].includes(finding.kind),
      );
      expect(
        aboutErrorResponses.map(
          (finding) => `${finding.kind} ${finding.operation} ${finding.status}: ${finding.message}`,
        ),
      ).toEqual([]);
    } finally {
      await server.stop();
    }
  },
};

describe('contract-first new on a document whose error shape requires several fields', () => {
  it("keeps the document's error shape in every error response of its own, before any handler is written", async () => {
    runs.push(await exerciseDocument(DOCUMENT, 'error-shape', [], ERROR_SHAPE_CHECKS));
  }, 300_000);
});
