/**
 * `npm run release:api`: releases the document as it is now, under its `info.version`:
 * - writes openapi/released/<version>.json, the bundled document, and never overwrites one;
 * - puts the release's entry (version, date, the changes since the release before it, as
 *   diff:api classifies them) at the top of openapi/CHANGELOG.md, which the reference built by
 *   `npm run docs` shows as its last section;
 * - empties openapi/breaking-changes-allowed.yaml, whose entries were about this release.
 * It refuses a version that is released already, one lower than the latest release, and a
 * document the breaking-change gate of diff:api refuses.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { BundleError } from './codegen/bundle.js';
import { PROCESS_IO, loadLatestRelease, type Io } from './diff-api.js';
import { AllowListError, readAllowList } from './api-diff/gate.js';
import { addEntry, changesToList, compareVersions, listReleases, parseVersion, renderEntry } from './api-diff/releases.js';
import { PROJECT_FILES, buildReport, formatReport } from './api-diff/report.js';
import { SourceError, loadDocumentFile } from './api-diff/sources.js';
import { parseFlags, runAsMain } from './cli.js';

export const USAGE = `Usage: npm run release:api -- [--date YYYY-MM-DD]

Releases ${PROJECT_FILES.document} under its info.version: writes ${PROJECT_FILES.released}/<version>.json
(never over an existing one), adds the release's entry, with the changes since the latest
release, at the top of ${PROJECT_FILES.changelog}, and empties ${PROJECT_FILES.allowList}.
Refuses a version released already or lower than the latest, and a document with a breaking
change that \`npm run diff:api\` refuses.

  --date YYYY-MM-DD  the release's date (default today, UTC)
  --help             show this text`;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function runReleaseApi(argv: readonly string[], io: Io): Promise<number> {
  const values = parseFlags(argv, { date: { type: 'string' }, help: { type: 'boolean' } }, USAGE, io);
  if (typeof values === 'number') return values;
  const date = values.date ?? new Date().toISOString().slice(0, 10);
  if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
    io.stderr(`--date ${date} is not a date written YYYY-MM-DD.\n\n${USAGE}\n`);
    return 2;
  }
  const fail = (message: string): number => {
    io.stderr(`release:api: ${message}\n`);
    return 1;
  };
  const file = (relative: string): string => path.join(io.root, relative);
  try {
    const current = await loadDocumentFile(file(PROJECT_FILES.document), PROJECT_FILES.document);
    const version = current.version === undefined ? undefined : parseVersion(current.version);
    if (version === undefined) return fail(`info.version ${JSON.stringify(current.version ?? null)} is not a version to release under (1.2.3, or 1.2.3-rc.1)`);
    const target = `${PROJECT_FILES.released}/${version.text}.json`;
    const releases = await listReleases(file(PROJECT_FILES.released));
    if (releases.some((release) => compareVersions(release.version, version) === 0)) {
      return fail(`${version.text} is released already: ${target} is never rewritten. Raise info.version to release the document as it is now.`);
    }
    const latest = releases.at(-1);
    if (latest !== undefined && compareVersions(latest.version, version) > 0) {
      return fail(`info.version ${version.text} is lower than the latest release, ${latest.version.text}`);
    }
    const base = await loadLatestRelease(io.root);
    const allowances = await readAllowList(file(PROJECT_FILES.allowList), PROJECT_FILES.allowList);
    const report = base === undefined ? undefined : buildReport(base, current, allowances, PROJECT_FILES.allowList);
    if (report !== undefined && !report.gate.passed) {
      const { stdout, stderr } = formatReport(report, 0);
      io.stdout(stdout);
      io.stderr(stderr);
      return fail(`${version.text} is not released: the gate refuses its breaking changes (above)`);
    }

    await mkdir(file(PROJECT_FILES.released), { recursive: true });
    // `wx`: a release written meanwhile by another run is never replaced.
    await writeFile(file(target), `${JSON.stringify(current.document, null, 2)}\n`, { flag: 'wx' });
    const entry = renderEntry({
      version: version.text,
      date,
      ...(report === undefined || latest === undefined ? {} : { previous: latest.version.text, gate: report.gate }),
    });
    const changelog = await readFile(file(PROJECT_FILES.changelog), 'utf8').catch(() => undefined);
    await writeFile(file(PROJECT_FILES.changelog), addEntry(changelog, entry));
    const emptied = await emptyAllowList(file(PROJECT_FILES.allowList));
    const listed = report === undefined ? undefined : changesToList(report.gate).length;

    io.stdout(
      `release:api: released ${version.text} (${date}): wrote ${target}; ` +
        `${listed === undefined ? 'the first release' : `${listed} change${listed === 1 ? '' : 's'} since ${latest?.version.text ?? 'the latest release'}`} ` +
        `in ${PROJECT_FILES.changelog}${emptied > 0 ? `; emptied ${PROJECT_FILES.allowList} (${emptied} entr${emptied === 1 ? 'y' : 'ies'})` : ''}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof SourceError || error instanceof BundleError || error instanceof AllowListError) return fail(error.message);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fail(`${(error as NodeJS.ErrnoException).path ?? 'the release'} appeared meanwhile: not rewritten`);
    throw error;
  }
}

/** Sets `allowed` to an empty list, keeping the file's comments; returns how many entries it held. */
async function emptyAllowList(file: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return 0;
  const document = parseDocument(text);
  const allowed: unknown = document.toJS()?.allowed;
  const count = Array.isArray(allowed) ? allowed.length : 0;
  if (count === 0) return 0;
  document.set('allowed', document.createNode([]));
  await writeFile(file, document.toString());
  return count;
}

runAsMain(import.meta.url, (argv) => runReleaseApi(argv, PROCESS_IO), { end: 'drain' });
