/**
 * `npm run release:api`: releases one API of the project (`apis:` in redocly.yaml, read by
 * config.ts; `--api NAME`, by default the first) as its document is now, under its `info.version`:
 * - writes `<version>.json`, the bundled document, into the API's released folder, and never
 *   overwrites one;
 * - puts the release's entry (version, date, the changes since the release before it, as
 *   diff:api classifies them) at the top of the API's changelog (Markdown), which the reference
 *   built by `npm run docs` shows as its last section;
 * - empties the API's allow-list, whose entries were about this release.
 * It rejects a version that is released already, one lower than the latest release, and a
 * document the breaking-change gate of diff:api rejects.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { BundleError } from './codegen/bundle.js';
import { PROCESS_IO, apiNamed, loadLatestRelease, type Io } from './diff-api.js';
import { AllowListError, readAllowList } from './api-diff/gate.js';
import {
  addEntry,
  changesToList,
  compareVersions,
  listReleases,
  parseVersion,
  renderEntry,
} from './api-diff/releases.js';
import { buildReport, formatReport } from './api-diff/report.js';
import { SourceError, loadDocumentFile } from './api-diff/sources.js';
import { parseFlags, reportUsageError, runAsMain, type Command } from './cli.js';
import { CONFIG_FILE, ConfigError, projectPath, readProjectConfig, type ApiConfig } from './config.js';

export const USAGE = `Usage: contract-first release [--api NAME] [--date YYYY-MM-DD]

Releases one API of the project (apis: in ${CONFIG_FILE}) under its document's info.version:
writes <version>.json, the bundled document, into the API's released folder (never over an
existing one), adds the release's entry, with the changes since the latest release, at the
top of the API's changelog, and empties the API's allow-list. Rejects a version released
already or lower than the latest, and a document with a breaking change that
\`npm run diff:api\` rejects.

  --api NAME         the API to release (its key under apis:; default the first one listed)
  --date YYYY-MM-DD  the release's date (default today, UTC)
  --help             show this text

Each API's files come from ${CONFIG_FILE} (apis.<name>): root, the document; x-released, its
releases (default released/ beside the document); x-changelog (default CHANGELOG.md beside
it); x-breaking-changes-allowed, its allow-list (default breaking-changes-allowed.yaml beside it).`;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function runReleaseApi(argv: readonly string[], io: Io): Promise<number> {
  const values = parseFlags(
    argv,
    { api: { type: 'string' }, date: { type: 'string' }, help: { type: 'boolean' } },
    USAGE,
    io,
  );
  if (typeof values === 'number') return values;
  const date = values.date ?? new Date().toISOString().slice(0, 10);
  if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
    return reportUsageError(`--date ${date} is not a date written YYYY-MM-DD.`, USAGE, io);
  }
  let api: ApiConfig;
  let shown: (file: string) => string;
  try {
    const config = readProjectConfig(io.root);
    const named = values.api === undefined ? config.apis[0] : apiNamed(config, values.api);
    if (typeof named === 'string') {
      return reportUsageError(`${named}.`, USAGE, io);
    }
    if (named === undefined) throw new ConfigError(`${CONFIG_FILE} names no API`);
    api = named;
    shown = (file) => projectPath(config, file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`release:api: ${error.message}\n`);
    return 1;
  }
  const fail = (message: string): number => {
    io.stderr(`release:api: ${api.name}: ${message}\n`);
    return 1;
  };
  const changelogShown = shown(api.changelog);
  const allowListShown = shown(api.allowList);
  try {
    const current = await loadDocumentFile(api.root, shown(api.root));
    const version = current.version === undefined ? undefined : parseVersion(current.version);
    if (version === undefined)
      return fail(
        `info.version ${JSON.stringify(current.version ?? null)} is not a version to release under (1.2.3, or 1.2.3-rc.1)`,
      );
    const target = path.join(api.released, `${version.text}.json`);
    const targetShown = shown(target);
    const releases = await listReleases(api.released);
    if (releases.some((release) => compareVersions(release.version, version) === 0)) {
      return fail(
        `${version.text} is released already: ${targetShown} is never rewritten. Raise info.version to release the document as it is now.`,
      );
    }
    const latest = releases.at(-1);
    if (latest !== undefined && compareVersions(latest.version, version) > 0) {
      return fail(`info.version ${version.text} is lower than the latest release, ${latest.version.text}`);
    }
    const base = await loadLatestRelease(api, io.root);
    const allowances = await readAllowList(api.allowList, allowListShown);
    const report = base === undefined ? undefined : buildReport(base, current, allowances, allowListShown, api.name);
    if (report !== undefined && !report.gate.passed) {
      const { stdout, stderr } = formatReport(report, 0);
      io.stdout(stdout);
      io.stderr(stderr);
      return fail(`${version.text} is not released: the gate rejects its breaking changes (above)`);
    }

    await mkdir(api.released, { recursive: true });
    // `wx`: a release written meanwhile by another run is never replaced.
    await writeFile(target, `${JSON.stringify(current.document, null, 2)}\n`, { flag: 'wx' });
    const entry = renderEntry({
      version: version.text,
      date,
      ...(report === undefined || latest === undefined ? {} : { previous: latest.version.text, gate: report.gate }),
    });
    const changelog = await readFile(api.changelog, 'utf8').catch(() => undefined);
    await mkdir(path.dirname(api.changelog), { recursive: true });
    await writeFile(api.changelog, addEntry(changelog, entry));
    const emptied = await emptyAllowList(api.allowList);
    const listed = report === undefined ? undefined : changesToList(report.gate).length;

    io.stdout(
      `release:api: ${api.name}: released ${version.text} (${date}): wrote ${targetShown}; ` +
        `${listed === undefined ? 'the first release' : `${listed} change${listed === 1 ? '' : 's'} since ${latest?.version.text ?? 'the latest release'}`} ` +
        `in ${changelogShown}${emptied > 0 ? `; emptied ${allowListShown} (${emptied} entr${emptied === 1 ? 'y' : 'ies'})` : ''}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof SourceError || error instanceof BundleError || error instanceof AllowListError)
      return fail(error.message);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const existing = (error as NodeJS.ErrnoException).path;
      return fail(`${existing === undefined ? 'the release' : shown(existing)} appeared meanwhile: not rewritten`);
    }
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

export const COMMAND: Command = { run: (argv) => runReleaseApi(argv, PROCESS_IO), options: { end: 'drain' } };
runAsMain(import.meta.url, COMMAND.run, COMMAND.options);
