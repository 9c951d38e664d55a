import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// README.md is the project's guide: every link in it must lead somewhere, every command it shows
// must exist, and it stays short enough to read (design reasons live in server/decisions/, figures
// in the benchmark's output).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = join(ROOT, 'README.md');
/** The README is a guide, not a diary: past this many lines, move detail to the file it belongs in. */
const MAX_README_LINES = 900;

/** npm's own commands a README may show besides the project's scripts (`npm ci`, `npm install`). */
const NPM_COMMANDS = new Set([
  'ci',
  'install',
  'i',
  'exec',
  'init',
  'uninstall',
  'update',
  'outdated',
  'audit',
  'ls',
  'pack',
  'version',
]);
/** npm's shortcuts that run the script of the same name (`npm test` runs scripts.test). */
const NPM_SCRIPT_SHORTCUTS = new Set(['test', 'start', 'stop', 'restart']);

interface MarkdownParts {
  /** Each line outside fenced code blocks, with its 1-based number. */
  readonly prose: readonly { readonly line: number; readonly text: string }[];
  /** Each line inside fenced code blocks, with its 1-based number. */
  readonly code: readonly { readonly line: number; readonly text: string }[];
}

function splitMarkdown(markdown: string): MarkdownParts {
  const prose: { line: number; text: string }[] = [];
  const code: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    const opening = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence === undefined && opening !== null) {
      fence = opening[1];
      return;
    }
    if (fence !== undefined && text.trim().startsWith(fence) && text.trim().replace(/[`~]/g, '') === '') {
      fence = undefined;
      return;
    }
    (fence === undefined ? prose : code).push({ line, text });
  });
  return { prose, code };
}

/** Inline code spans, whatever their number of backticks, with their content kept as text. */
function withoutInlineCode(text: string, keep: boolean): string {
  return text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, content: string) =>
    keep ? content.trim() : '',
  );
}

/**
 * The anchor GitHub gives a heading (github-slugger): the heading's text lower-cased, every
 * character but letters, digits, marks, `_`, `-` and spaces removed, each space a hyphen; a
 * repeated anchor gets `-1`, `-2`, ….
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of splitMarkdown(markdown).prose) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading === null) continue;
    const rendered = withoutInlineCode(heading[1] ?? '', true)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '');
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every link and image target outside code: `[text](target)`, `![alt](target)`. */
function linkTargets(markdown: string): { readonly line: number; readonly target: string }[] {
  const targets: { line: number; target: string }[] = [];
  for (const { line, text } of splitMarkdown(markdown).prose) {
    for (const match of withoutInlineCode(text, false).matchAll(
      /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    )) {
      targets.push({ line, target: match[1] ?? '' });
    }
  }
  return targets;
}

/**
 * What is wrong with the links of `markdown`, a file at `file`: a relative target that does not
 * exist, or an anchor that no heading of its file makes. Links to other sites are not followed.
 */
function brokenLinks(markdown: string, file: string): string[] {
  const problems: string[] = [];
  const own = headingAnchors(markdown);
  for (const { line, target } of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#', 2);
    const where = `${relative(ROOT, file)}:${line}: ${target}`;
    if (path === '') {
      if (anchor !== undefined && !own.has(decodeURIComponent(anchor)))
        problems.push(`${where}: no heading makes this anchor`);
      continue;
    }
    const targetFile = resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(targetFile)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined && targetFile.endsWith('.md') && statSync(targetFile).isFile()) {
      if (!headingAnchors(readFileSync(targetFile, 'utf8')).has(decodeURIComponent(anchor))) {
        problems.push(`${where}: no heading of ${relative(ROOT, targetFile)} makes this anchor`);
      }
    }
  }
  return problems;
}

/**
 * What is wrong with the commands the code blocks of `markdown` show: an `npm run X` or `npm X`
 * whose script package.json does not have, or a script file (`npx tsx scripts/…`,
 * `node scripts/…`) or test file (`npx vitest run test/…`) that does not exist.
 */
function missingCommands(markdown: string, scripts: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const { line, text } of splitMarkdown(markdown).code) {
    const where = `README.md:${line}`;
    for (const match of text.matchAll(/(?<![\w-])npm\s+(run(?:-script)?\s+)?([\w:.-]+)/g)) {
      const name = match[2] ?? '';
      const isRun = match[1] !== undefined;
      if (isRun || NPM_SCRIPT_SHORTCUTS.has(name)) {
        if (!scripts.has(name))
          problems.push(`${where}: npm ${isRun ? 'run ' : ''}${name}: package.json has no script "${name}"`);
      } else if (!NPM_COMMANDS.has(name)) {
        problems.push(`${where}: npm ${name}: neither a script nor one of npm's commands`);
      }
    }
    for (const match of text.matchAll(/(?<![\w/.-])(?:npx\s+tsx|tsx|node)\s+((?:\.\/)?scripts\/[\w./-]+)/g)) {
      const file = match[1] ?? '';
      if (!existsSync(join(ROOT, file))) problems.push(`${where}: ${file}: no such file`);
    }
    for (const match of text.matchAll(/npx\s+vitest\s+run\s+((?:test|server|client|scripts)\/[\w./-]*)/g)) {
      const file = match[1] ?? '';
      if (!existsSync(join(ROOT, file))) problems.push(`${where}: ${file}: no such test file or folder`);
    }
  }
  return problems;
}

function packageScripts(): Set<string> {
  const parsed: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const scripts = typeof parsed === 'object' && parsed !== null && 'scripts' in parsed ? parsed.scripts : undefined;
  return new Set(typeof scripts === 'object' && scripts !== null ? Object.keys(scripts) : []);
}

describe('README.md', () => {
  const readme = readFileSync(README, 'utf8');

  it("links only to files that exist and to anchors its headings (or the linked file's) make", () => {
    expect(brokenLinks(readme, README)).toEqual([]);
  });

  it('shows only commands that exist: package.json scripts, npm commands, files under scripts/ and test/', () => {
    expect(missingCommands(readme, packageScripts())).toEqual([]);
  });

  it(`stays under ${MAX_README_LINES} lines`, () => {
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    expect(lines, 'move a design reason to server/decisions/ or shorten a section').toBeLessThan(MAX_README_LINES);
  });
});

describe('the README checks', () => {
  it('make the anchors GitHub makes', () => {
    const anchors = headingAnchors(
      [
        '# House rules (lint)',
        "## The dashboard's pages",
        '## One configuration: `redocly.yaml`',
        '### 64-bit integers',
        '## Notes',
        '## Notes',
        '```',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'house-rules-lint',
      'the-dashboards-pages',
      'one-configuration-redoclyyaml',
      '64-bit-integers',
      'notes',
      'notes-1',
    ]);
  });

  it('report a link to a file that does not exist, and to an anchor no heading makes', () => {
    const sample = [
      '# Start',
      'See [the start](#start), [the package](package.json), [a missing file](docs/missing.md),',
      '[a missing section](#nowhere), [another site](https://example.com/#x) and `[code](not/a/link.md)`.',
      '```',
      '[in a code block](also/not/a/link.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(sample, README)).toEqual([
      'README.md:2: docs/missing.md: no such file',
      'README.md:3: #nowhere: no heading makes this anchor',
    ]);
  });

  it('report an anchor into another Markdown file that its headings do not make', () => {
    expect(brokenLinks('[records](server/decisions/README.md#no-such-section)', README)).toEqual([
      'README.md:1: server/decisions/README.md#no-such-section: no heading of server/decisions/README.md makes this anchor',
    ]);
  });

  it('report a script package.json lacks and a script file that does not exist', () => {
    const sample = [
      '```sh',
      'npm ci && npm test',
      'npm run generate -- --check',
      'npm run no-such-script',
      'npm frobnicate',
      'npx tsx scripts/no-such-tool.ts --runs 3',
      'npx vitest run test/no-such.test.ts',
      '```',
      '`npm run only-in-prose` is not a code block.',
    ].join('\n');
    expect(missingCommands(sample, new Set(['test', 'generate']))).toEqual([
      'README.md:4: npm run no-such-script: package.json has no script "no-such-script"',
      "README.md:5: npm frobnicate: neither a script nor one of npm's commands",
      'README.md:6: scripts/no-such-tool.ts: no such file',
      'README.md:7: test/no-such.test.ts: no such test file or folder',
    ]);
  });
});
