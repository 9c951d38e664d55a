/**
 * This package as one versioned file, `contract-first-<version>.tgz`, the way `npm pack` makes it,
 * for a project to depend on by path until the package is installed from a registry.
 *
 * The packed package carries its bundled dependencies (`bundleDependencies` in package.json): the
 * copies of express-openapi-validator, Ajv and fast-deep-equal this package was installed and
 * tested with, with the library fixes of patches/ applied, and everything they load. A project that
 * installs the file gets those copies, so it needs no patch of its own. They are copied from where
 * this package resolves them (its own node_modules once installed; the workspace's, patched by its
 * postinstall, in this repository) into a staging folder that `npm pack` then packs.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's folder: where its package.json is, in the source tree or installed. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly files?: readonly string[];
  readonly scripts?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly bundleDependencies?: readonly string[];
  readonly [key: string]: unknown;
}

const readManifest = async (dir: string): Promise<PackageManifest> =>
  JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as PackageManifest;

/** The folder of package `name` as Node resolves it from `from` (a folder). */
function packageDir(name: string, from: string): string | undefined {
  const require = createRequire(path.join(from, 'package.json'));
  for (const paths of require.resolve.paths(name) ?? []) {
    const dir = path.join(paths, name);
    try {
      require.resolve(path.join(dir, 'package.json'));
      return dir;
    } catch {
      // not in this node_modules: the next one up
    }
  }
  return undefined;
}

/** Where `dir` goes under the staging folder's node_modules: its path below the outermost node_modules/ it lies in. */
function stagedPath(dir: string): string {
  const parts = dir.split(path.sep);
  const first = parts.indexOf('node_modules');
  return parts.slice(first + 1).join(path.sep);
}

/**
 * The bundled packages and every package they load, each resolved as Node resolves it, as
 * `{ from: installed folder, to: path under node_modules/ }`. A package nested inside another is
 * copied with it. Their peers come too, but for this package's own peers (express), which the
 * project installs.
 */
async function bundledClosure(
  root: string,
  names: readonly string[],
  ownPeers: ReadonlySet<string>,
): Promise<{ copies: Map<string, string>; peers: Map<string, string> }> {
  const copies = new Map<string, string>();
  /** The peers reached, by name, with the version installed. */
  const peers = new Map<string, string>();
  const pending: Array<{ name: string; from: string; optional: boolean; peer?: boolean }> = names.map((name) => ({
    name,
    from: root,
    optional: false,
  }));
  const seen = new Set<string>();
  while (pending.length > 0) {
    const { name, from, optional, peer } = pending.pop() as {
      name: string;
      from: string;
      optional: boolean;
      peer?: boolean;
    };
    const dir = packageDir(name, from);
    if (dir === undefined) {
      if (optional) continue;
      throw new Error(`${name}, which ${path.basename(from)} needs, is not installed: run \`npm ci\` first`);
    }
    if (seen.has(dir)) continue;
    seen.add(dir);
    const inside = [...copies.keys()].some((copied) => dir.startsWith(`${copied}${path.sep}`));
    if (!inside) {
      const target = stagedPath(dir);
      const clash = [...copies.entries()].find(([other, to]) => to === target && other !== dir);
      if (clash !== undefined)
        throw new Error(`two copies of ${name} would be bundled at node_modules/${target}: ${clash[0]} and ${dir}`);
      copies.set(dir, target);
    }
    const manifest = await readManifest(dir);
    if (peer === true && !inside) peers.set(name, manifest.version);
    for (const dependency of Object.keys(manifest.dependencies ?? {}))
      pending.push({ name: dependency, from: dir, optional: false });
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {}))
      pending.push({ name: dependency, from: dir, optional: true });
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
      if (!ownPeers.has(peer))
        pending.push({
          name: peer,
          from: dir,
          optional: manifest.peerDependenciesMeta?.[peer]?.optional === true,
          peer: true,
        });
    }
  }
  return { copies, peers };
}

function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(
          new Error(`${path.basename(command)} ${args.join(' ')} failed in ${cwd}: ${stderr.trim() || error.message}`),
        );
      else resolve(stdout);
    });
  });
}

/** npm, as the command that runs this one has it (npx, npm run), else the one on PATH. */
export function npmCommand(args: readonly string[]): { readonly command: string; readonly args: readonly string[] } {
  const cli = process.env['npm_execpath'];
  return cli !== undefined && /npm-cli\.js$/.test(cli)
    ? { command: process.execPath, args: [cli, ...args] }
    : { command: 'npm', args };
}

/** This package's files, staged for `npm pack` in a folder of their own; `pack` then writes the file. */
export interface StagedToolkit {
  /** Packs the staged files into `destination` (a folder), returns the file's path and removes the staging folder. */
  pack(destination: string): Promise<string>;
  /** Removes the staging folder without packing. */
  discard(): Promise<void>;
}

/**
 * Stages this package for packing: its files and the bundled packages. Its package.json goes
 * without its scripts: the package is built already.
 */
export async function stageToolkit(root: string = PACKAGE_ROOT): Promise<StagedToolkit> {
  const manifest = await readManifest(root);
  const staging = await mkdtemp(path.join(os.tmpdir(), 'contract-first-pack-'));
  const discard = () => rm(staging, { recursive: true, force: true });
  try {
    const { copies, peers } = await bundledClosure(
      root,
      manifest.bundleDependencies ?? [],
      new Set(Object.keys(manifest.peerDependencies ?? {})),
    );
    // npm pack bundles what bundled packages depend on, not their peers: those are bundled by name.
    // devDependencies stay: they pin what a new project installs beside this package (new-api/dependencies.ts).
    const { scripts: _scripts, ...rest } = manifest;
    const packed = {
      ...rest,
      dependencies: { ...manifest.dependencies, ...Object.fromEntries(peers) },
      bundleDependencies: [...(manifest.bundleDependencies ?? []), ...peers.keys()],
    };
    await writeFile(path.join(staging, 'package.json'), `${JSON.stringify(packed, null, 2)}\n`);
    for (const entry of manifest.files ?? []) {
      if (entry.startsWith('!')) continue;
      await cp(path.join(root, entry), path.join(staging, entry), {
        recursive: true,
        filter: (source) => !/\.test\.(js|d\.ts|js\.map)$|\.tsbuildinfo$/.test(source),
      });
    }
    for (const [from, to] of copies) {
      await cp(from, path.join(staging, 'node_modules', to), {
        recursive: true,
        verbatimSymlinks: true,
        filter: (source) => path.basename(source) !== '.bin',
      });
    }
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    discard,
    async pack(destination) {
      try {
        await mkdir(destination, { recursive: true });
        const npm = npmCommand(['pack', '--json', '--ignore-scripts', '--pack-destination', path.resolve(destination)]);
        const report = JSON.parse(await run(npm.command, npm.args, staging)) as ReadonlyArray<{
          readonly filename: string;
        }>;
        const [file] = report;
        if (file === undefined) throw new Error('npm pack reported no file');
        return path.join(path.resolve(destination), file.filename);
      } finally {
        await discard();
      }
    },
  };
}

/** Packs this package into `destination` (a folder) and returns the file's path. */
export async function packToolkit(destination: string, root: string = PACKAGE_ROOT): Promise<string> {
  return (await stageToolkit(root)).pack(destination);
}
