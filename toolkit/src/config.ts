/**
 * The project's configuration: `redocly.yaml` at its root, the file Redocly's own commands read.
 * Its `apis:` names each document of the project, and every command of the toolkit takes the
 * documents from there (lint, generate, dev, diff:api, release:api, docs, docs:check):
 *
 *   apis:
 *     orders:                                   # the API's name
 *       root: openapi/openapi.yaml              # the document (Redocly's own key)
 *       output: generated/openapi.json          # the bundle (Redocly's own key): generate writes
 *                                               # openapi.json, openapi-types.ts and server.ts here
 *       x-docs: generated/docs/index.html       # the reference (default generated/docs/<name>.html)
 *       x-released: openapi/released            # releases (default: released/ beside the document)
 *       x-breaking-changes-allowed: openapi/breaking-changes-allowed.yaml   # (default: beside it)
 *       x-changelog: openapi/CHANGELOG.md       # (default: beside it)
 *       x-handlers: server/handlers             # generate adds a typed stub here for each operation
 *                                               # without one (none by default)
 *   x-dev:
 *     server: server/main.ts                    # what `npm run dev` runs (default server/main.ts)
 *     builds:                                   # more steps before a restart, when files change
 *       - watch: client/pages/                  # a change under this folder …
 *         extensions: [.ts, .css, .html]        # … to one of these files …
 *         module: scripts/build-pages.ts        # … runs `buildForDev({ root, serverDir })` of it
 *
 * Redocly accepts `x-` keys in its configuration and ignores them. Paths are relative to the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const CONFIG_FILE = 'redocly.yaml';

export interface ApiConfig {
  /** The API's name: its key under `apis:`, without a `@version` suffix. */
  readonly name: string;
  /** The document's root file, absolute. */
  readonly root: string;
  /** The folder generate writes into, absolute. */
  readonly out: string;
  /** The HTML reference `npm run docs` writes, absolute. */
  readonly docs: string;
  /** The folder of released documents (`<version>.json`), absolute. */
  readonly released: string;
  /** The breaking changes allowed in the next release, absolute. */
  readonly allowList: string;
  /** The changelog `npm run release:api` writes and the reference shows, absolute. */
  readonly changelog: string;
  /** Where `npm run generate` adds handler stubs for new operations, absolute; undefined: it adds none. */
  readonly handlers: string | undefined;
}

/** A step `npm run dev` runs before it restarts the server, when a file it watches changes. */
export interface DevBuild {
  /** A folder relative to the project root, with a trailing slash. */
  readonly watch: string;
  /** The file endings that count (`.ts`); empty: every file. */
  readonly extensions: readonly string[];
  /** The module, absolute; it exports `buildForDev({ root, serverDir })`. */
  readonly module: string;
}

export interface ProjectConfig {
  /** The project root: the folder of redocly.yaml. */
  readonly root: string;
  readonly file: string;
  readonly apis: readonly ApiConfig[];
  readonly dev: {
    /** The server's entry point, absolute. */
    readonly server: string;
    readonly builds: readonly DevBuild[];
  };
}

/** The configuration is missing or says something the toolkit cannot use: the message says what to write. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(entry: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new ConfigError(`${where}.${key} must be a path (a non-empty string)`);
  return value;
}

function readApi(key: string, entry: unknown, dir: string, file: string): ApiConfig {
  const where = `${file}: apis.${key}`;
  if (!isRecord(entry))
    throw new ConfigError(
      `${where} must be a mapping with \`root\` (the document) and \`output\` (generated/openapi.json or another openapi.json)`,
    );
  const rootFile = text(entry, 'root', where);
  if (rootFile === undefined)
    throw new ConfigError(`${where} has no \`root\`: name the document, as \`root: openapi/openapi.yaml\``);
  const output = text(entry, 'output', where);
  if (output === undefined)
    throw new ConfigError(
      `${where} has no \`output\`: name where its bundle goes, as \`output: generated/openapi.json\` (generate writes its files beside it)`,
    );
  if (path.basename(output) !== 'openapi.json')
    throw new ConfigError(
      `${where}.output must name a file openapi.json (generate writes openapi-types.ts and server.ts beside it); it is ${output}`,
    );
  const name = key.replace(/@.*$/, '');
  const root = path.resolve(dir, rootFile);
  const beside = (fileName: string): string => path.join(path.dirname(root), fileName);
  const at = (extension: string, fallback: string): string => {
    const value = text(entry, extension, where);
    return value === undefined ? fallback : path.resolve(dir, value);
  };
  return {
    name,
    root,
    out: path.dirname(path.resolve(dir, output)),
    docs: at('x-docs', path.join(dir, 'generated/docs', `${name}.html`)),
    released: at('x-released', beside('released')),
    allowList: at('x-breaking-changes-allowed', beside('breaking-changes-allowed.yaml')),
    changelog: at('x-changelog', beside('CHANGELOG.md')),
    handlers:
      text(entry, 'x-handlers', where) === undefined
        ? undefined
        : path.resolve(dir, text(entry, 'x-handlers', where) as string),
  };
}

function readDev(value: unknown, dir: string, file: string): ProjectConfig['dev'] {
  const where = `${file}: x-dev`;
  const dev = value === undefined ? {} : value;
  if (!isRecord(dev)) throw new ConfigError(`${where} must be a mapping (server, builds)`);
  const server = path.resolve(dir, text(dev, 'server', where) ?? 'server/main.ts');
  const builds = dev['builds'] ?? [];
  if (!Array.isArray(builds)) throw new ConfigError(`${where}.builds must be a list of { watch, extensions, module }`);
  return {
    server,
    builds: builds.map((build: unknown, index): DevBuild => {
      const at = `${where}.builds[${index}]`;
      if (!isRecord(build)) throw new ConfigError(`${at} must be a mapping with watch and module`);
      const watch = text(build, 'watch', at);
      const module = text(build, 'module', at);
      if (watch === undefined || module === undefined)
        throw new ConfigError(`${at} needs \`watch\` (a folder) and \`module\` (a file exporting buildForDev)`);
      const extensions = build['extensions'] ?? [];
      if (!Array.isArray(extensions) || !extensions.every((extension) => typeof extension === 'string'))
        throw new ConfigError(`${at}.extensions must be a list of file endings such as .ts`);
      return {
        watch: `${path.posix.normalize(watch.split(path.sep).join('/')).replace(/\/$/, '')}/`,
        extensions,
        module: path.resolve(dir, module),
      };
    }),
  };
}

/** Reads `<root>/redocly.yaml`. */
export function readProjectConfig(root: string): ProjectConfig {
  const file = path.join(root, CONFIG_FILE);
  if (!existsSync(file))
    throw new ConfigError(`${file} is missing: the toolkit reads the project's documents from its \`apis:\``);
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${file} is not YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(parsed) || !isRecord(parsed['apis']) || Object.keys(parsed['apis']).length === 0) {
    throw new ConfigError(
      `${CONFIG_FILE} names no document: add \`apis:\` with one entry per document (root and output)`,
    );
  }
  const apis = Object.entries(parsed['apis']).map(([key, entry]) => readApi(key, entry, root, CONFIG_FILE));
  const names = new Set<string>();
  for (const api of apis) {
    if (names.has(api.name)) throw new ConfigError(`${CONFIG_FILE}: two entries of apis: are named ${api.name}`);
    names.add(api.name);
  }
  const outs = new Set<string>();
  for (const api of apis) {
    if (outs.has(api.out))
      throw new ConfigError(
        `${CONFIG_FILE}: two documents generate into ${path.relative(root, api.out)}/; give each its own output`,
      );
    outs.add(api.out);
  }
  return { root, file, apis, dev: readDev(parsed['x-dev'], root, CONFIG_FILE) };
}

/** A path as the project names it: relative to its root, with forward slashes. */
export function projectPath(config: Pick<ProjectConfig, 'root'>, file: string): string {
  const relative = path.relative(config.root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}

/**
 * The project a command works on: the nearest folder holding redocly.yaml, from `from` up (npm
 * runs a project's scripts at its root, so that is where they start); `from` itself when no
 * folder above it holds one.
 */
export function findProjectRoot(from: string = process.cwd()): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, CONFIG_FILE))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from);
  }
}
