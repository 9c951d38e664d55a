/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof`): self time by function and by
 * package or file, and inclusive time of the project's own functions.
 *
 * The "charged" table gives each sample to the first package or project file on its stack,
 * counting from the leaf: the natives and Node internals a package calls are charged to it (the
 * socket write Express makes is Express's, the regular expression the validator runs is the
 * validator's). With --requests N (the requests the profiled process served, from the bench's
 * table) each line also says how many microseconds that is per request.
 *
 * Usage: npx tsx scripts/bench/profile-summary.ts FILE.cpuprofile [--top N] [--requests N]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runAsMain, UsageError, wholeNumberFlag } from 'contract-first/cli';

const USAGE = 'Usage: npx tsx scripts/bench/profile-summary.ts FILE.cpuprofile [--top N] [--requests N]';

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

/** node_modules/<package> (scoped too), the project's own path, node: internals, or the V8 pseudo-frames. */
function area(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1] !== undefined) return modules[1];
  if (url.startsWith('node:')) return url;
  const own = /\/(server|scripts|generated|client)\/(.*)$/.exec(url);
  if (own !== undefined && own !== null) return `${own[1]}/${own[2]}`;
  return url;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  if (url === '') return name;
  // Inside a package: its name and the file's path in it, so that two files' line numbers differ.
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  const where =
    inPackage === null ? area(url, functionName) : `${inPackage[1]}/${(inPackage[2] ?? '').replace(/^dist\//, '')}`;
  return `${name} ${where}:${lineNumber + 1}`;
}

async function main(argv: readonly string[]): Promise<number> {
  // A bad command line is a UsageError, which runAsMain rejects with USAGE (parseFlags takes no file).
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { top: { type: 'string' }, requests: { type: 'string' }, help: { type: 'boolean' } },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError('Give one profile file.');
  const top = wholeNumberFlag('--top', values.top, 1, 1_000_000, 30);
  const requests =
    values.requests === undefined
      ? undefined
      : wholeNumberFlag('--requests', values.requests, 1, Number.MAX_SAFE_INTEGER);
  let profile: Profile;
  try {
    profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    if (!Array.isArray(profile.nodes) || !Array.isArray(profile.samples) || !Array.isArray(profile.timeDeltas))
      throw new Error('it has no nodes, samples and timeDeltas');
  } catch (error) {
    console.error(
      `${file} is not a V8 CPU profile that can be read: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
  process.stdout.write(summarize(file, profile, { top, requests }));
  return 0;
}

/** The tables of one profile, as text: `top` lines each, per request when `requests` is given. */
export function summarize(
  file: string,
  profile: Profile,
  { top, requests }: { readonly top: number; readonly requests: number | undefined },
): string {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const totalUs = [...selfUs.values()].reduce((sum, value) => sum + value, 0);
  const idleUs = [...selfUs]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)')
    .reduce((sum, [, us]) => sum + us, 0);
  const busyUs = totalUs - idleUs;

  const bump = (map: Map<string, number>, key: string, us: number): void => {
    map.set(key, (map.get(key) ?? 0) + us);
  };
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  const inclusiveOwn = new Map<string, number>();
  const charged = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') continue;
    bump(byFunction, label(node), us);
    bump(byArea, area(node.callFrame.url, node.callFrame.functionName), us);
    // Charged to the first package or project file from the leaf up; GC and V8's own time as they are.
    let chargedTo: string | undefined;
    for (let at: number | undefined = id; at !== undefined && chargedTo === undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame === undefined) break;
      const where = area(frame.callFrame.url, frame.callFrame.functionName);
      if (where !== '(native)' && !where.startsWith('node:') && where !== '(root)') chargedTo = where;
    }
    bump(charged, chargedTo ?? '(native, no caller)', us);
    // Inclusive time of the project's own frames: walk up the stack, once per distinct frame.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame === undefined) break;
      if (/\/(server|scripts|generated)\//.test(frame.callFrame.url) && !frame.callFrame.url.includes('node_modules')) {
        const key = label(frame);
        if (!seen.has(key)) {
          seen.add(key);
          bump(inclusiveOwn, key, us);
        }
      }
    }
  }

  let text = `${file}: ${(totalUs / 1e6).toFixed(1)} s sampled, ${(busyUs / 1e6).toFixed(1)} s busy (${((100 * busyUs) / totalUs).toFixed(0)} %)\n`;
  const print = (title: string, map: Map<string, number>): void => {
    text += `\n${title}\n`;
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      const perRequest = requests === undefined ? '' : ` ${(us / requests).toFixed(1).padStart(7)} µs/req`;
      text += `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / busyUs).toFixed(1).padStart(5)} %${perRequest}  ${key}\n`;
    }
  };
  print('Self time by package / file (% of busy):', byArea);
  print('Charged to the first package or file on the stack (natives and Node internals to their caller):', charged);
  print('Self time by function:', byFunction);
  print("Inclusive time of the project's functions:", inclusiveOwn);
  return text;
}

runAsMain(import.meta.url, main, { usage: USAGE });
