import { describe, expect, it } from 'vitest';
import { summarize, type Profile, type ProfileNode } from './profile-summary.js';

const ROOT = '/work/app';
const node = (id: number, functionName: string, url: string, children: number[] = []): ProfileNode => ({
  id,
  callFrame: { functionName, url, lineNumber: id },
  children,
});

// (root) → handle (the project's server/http/handler.js) → validate (a package) → writev (native);
// the handler also runs itself, and the process idles and collects garbage.
const PROFILE: Profile = {
  nodes: [
    node(1, '(root)', '', [2, 3, 6]),
    node(2, '(idle)', ''),
    node(3, 'handle', `file://${ROOT}/server/http/handler.js`, [4]),
    node(4, 'validate', `file://${ROOT}/node_modules/express-openapi-validator/dist/index.js`, [5]),
    node(5, 'writev', ''),
    node(6, '(garbage collector)', ''),
  ],
  // Sample ids and the microseconds each stands for: idle 500, handle 100, validate 200, writev 300, GC 400.
  samples: [2, 3, 4, 5, 6],
  timeDeltas: [500, 100, 200, 300, 400],
  startTime: 0,
  endTime: 1500,
};

const section = (text: string, title: string): string[] => {
  const from = text.split('\n').findIndex((line) => line.startsWith(title));
  const lines = text.split('\n').slice(from + 1);
  const end = lines.findIndex((line) => line === '');
  return lines.slice(0, end === -1 ? undefined : end);
};

describe('profile-summary', () => {
  const text = summarize('p.cpuprofile', PROFILE, { top: 10, requests: 10 });

  it('counts idle apart from busy time', () => {
    expect(text.split('\n')[0]).toBe('p.cpuprofile: 0.0 s sampled, 0.0 s busy (67 %)');
  });

  it('charges a native to the package that called it, and a package to itself', () => {
    const charged = section(text, 'Charged to the first package');
    expect(charged[0]).toMatch(/^ +1 ms +50\.0 % +50\.0 µs\/req  express-openapi-validator$/);
    expect(charged).toContainEqual(expect.stringMatching(/ 40\.0 µs\/req  \(garbage collector\)$/));
    expect(charged).toContainEqual(expect.stringMatching(/ 10\.0 µs\/req  server\/http\/handler\.js$/));
  });

  it('gives a project function the time of everything under it', () => {
    expect(section(text, 'Inclusive time')).toEqual([
      expect.stringMatching(/ 60\.0 µs\/req  handle server\/http\/handler\.js:4$/),
    ]);
  });

  it('keeps `top` lines a table', () => {
    const short = summarize('p.cpuprofile', PROFILE, { top: 1, requests: undefined });
    expect(section(short, 'Self time by function')).toEqual([
      expect.stringMatching(/^ +0 ms +40\.0 %  \(garbage collector\)$/),
    ]);
  });
});
