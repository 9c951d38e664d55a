import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/database/open.js';
import { DatabaseLockedError, acquireDataDirLock, lockPathFor } from '../../server/database/embedded/lock.js';
import { migrateToLatest } from '../../server/database/migrate.js';
import { pgliteTemplate } from '../../scripts/proof/database.js';

// The embedded database belongs to one process (README, "Design").

const scratch = mkdtempSync(join(tmpdir(), 'pps-lock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The pid of a process that has exited (so no live process has it, barring reuse). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not start a child process');
  return child.pid;
}

describe('data directory lock', () => {
  it('is exclusive, says who holds it and what to do, and is released', () => {
    const path = join(scratch, 'exclusive.lock');
    const lock = acquireDataDirLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid });
    let rejected: unknown;
    try {
      acquireDataDirLock(path);
    } catch (error) {
      rejected = error;
    }
    expect(rejected).toBeInstanceOf(DatabaseLockedError);
    expect(rejected).toMatchObject({ pid: process.pid, lockPath: path });
    expect((rejected as Error).message).toContain(
      `stop the server (pid ${process.pid}) before running onboard, or set DATABASE_URL to use PostgreSQL`,
    );
    lock.release();
    lock.release();
    expect(existsSync(path)).toBe(false);
    acquireDataDirLock(path).release();
  });

  it('takes over a stale lock whose process is gone', () => {
    const path = join(scratch, 'stale.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), startedAt: Date.now() - 1000, token: 'old' }));
    const lock = acquireDataDirLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('takes over an old unreadable lock file', () => {
    const path = join(scratch, 'garbage.lock');
    writeFileSync(path, 'not json');
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    acquireDataDirLock(path).release();
  });

  it('is rejected while another process holds it, and taken over once that process is killed', async () => {
    const path = join(scratch, 'child.lock');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('./server/database/embedded/lock.ts').then(({ acquireDataDirLock }) => {
           acquireDataDirLock(${JSON.stringify(path)});
           console.log('locked');
           setInterval(() => {}, 1000);
         });`,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('locked')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      expect(() => acquireDataDirLock(path)).toThrow(`stop the server (pid ${child.pid})`);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    // kill -9 runs no exit handler: the lock file stays behind, stale.
    expect(existsSync(path)).toBe(true);
    acquireDataDirLock(path).release();
  });

  it('guards the embedded database files: a second open is rejected, a stale lock is taken over', async () => {
    const dataDir = join(scratch, 'pglite');
    const first = await openDatabase({ dataDir, loadDataDir: await pgliteTemplate() });
    try {
      await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DatabaseLockedError);
      await sql`create table kept (n bigint)`.execute(first.db);
      await sql`insert into kept values (42)`.execute(first.db);
      expect(await migrateToLatest(first.db)).toEqual({ applied: [] });
    } finally {
      await first.close();
    }
    expect(existsSync(lockPathFor(dataDir))).toBe(false);

    writeFileSync(lockPathFor(dataDir), JSON.stringify({ pid: deadPid(), startedAt: 0, token: 'crashed' }));
    const reopened = await openDatabase({ dataDir });
    try {
      const { rows } = await sql<{ n: number }>`select n from kept`.execute(reopened.db);
      expect(rows).toEqual([{ n: 42 }]);
    } finally {
      await reopened.close();
    }
    expect(existsSync(lockPathFor(dataDir))).toBe(false);
  });
});
