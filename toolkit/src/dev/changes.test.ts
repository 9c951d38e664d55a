import { describe, expect, it } from 'vitest';
import { classifyChange as classifyWith, isServerFile, type ChangeRules } from './changes.js';
import { withReloadScript } from './front.js';

/** This repository's rules: its documents under openapi/, and the dashboard's pages as a build. */
const RULES: ChangeRules = {
  documentDirs: ['openapi/', 'openapi/dashboard/'],
  builds: [
    { watch: 'client/dashboard/', extensions: ['.ts', '.css', '.html'], module: '/x/scripts/build/dashboard.ts' },
  ],
};
const classifyChange = (file: string) => classifyWith(file, RULES);

describe('what a save asks of npm run dev', () => {
  it('lints and generates for the document, its lint rules included', () => {
    expect(classifyChange('openapi/paths/v1_bank.yaml')).toBe('document');
    expect(classifyChange('openapi/openapi.yaml')).toBe('document');
    expect(classifyChange('redocly.yaml')).toBe('document');
    expect(classifyChange('openapi/components/examples/x.json')).toBe('document');
    expect(classifyChange('openapi/lint/house-rules.js')).toBe('document');
  });

  it('restarts for the server code, type-checks only for the SDK and the tests', () => {
    expect(classifyChange('server/http/handlers/banks.ts')).toBe('server');
    expect(classifyChange('server/domain/cursor.test.ts')).toBe('code');
    expect(classifyChange('server/http/handler-kinds.test-d.ts')).toBe('code');
    expect(classifyChange('client/index.ts')).toBe('code');
  });

  it("runs a build of x-dev for the files it watches (the dashboard's pages), not for their tests or other files", () => {
    expect(classifyChange('client/dashboard/main.ts')).toBe(0);
    expect(classifyChange('client/dashboard/pages/transfers.ts')).toBe(0);
    expect(classifyChange('client/dashboard/styles.css')).toBe(0);
    expect(classifyChange('client/dashboard/index.html')).toBe(0);
    expect(classifyChange('client/dashboard/format.test.ts')).toBe('code');
    expect(classifyChange('client/dashboard/screenshots/login.png')).toBeUndefined();
  });

  it('ignores what is neither: editor files, temporary saves, other folders', () => {
    for (const file of [
      'openapi/paths/v1_bank.yaml.123.saving',
      'openapi/.v1_bank.yaml.swp',
      'server/notes.md',
      'server/x.ts~',
      'generated/server.ts',
      'test/dev/x.ts',
      'scripts/build.ts',
      'README.md',
    ]) {
      expect(classifyChange(file), file).toBeUndefined();
    }
  });

  it('holds a restart back for type errors in what the server runs only', () => {
    expect(isServerFile('server/app.ts')).toBe(true);
    expect(isServerFile('generated/server.ts')).toBe(true);
    expect(isServerFile('server/domain/cursor.test.ts')).toBe(false);
    expect(isServerFile('client/index.ts')).toBe(false);
  });
});

describe('the reference page of npm run dev', () => {
  it('gets its reload script before </body>, or at the end without one', () => {
    expect(withReloadScript('<html><body><p>x</p></body></html>')).toMatch(
      /<p>x<\/p><script>new EventSource\("\/docs\/events"\)[^<]*<\/script><\/body><\/html>$/,
    );
    expect(withReloadScript('<p>x</p>')).toMatch(/^<p>x<\/p><script>/);
  });
});
