import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { afterEach, describe, expect, it } from 'vitest';
import { StateStoreError } from '../../shared/ports/errors';
import { FileStateStore } from '../../shared/ports/file';
import { LOCK_STALE_MS, lockPathOf } from '../../shared/ports/file-lock';
import { describeStateStoreContract } from './contract';
import { sampleNotification, sampleState } from './fixtures';
import { describeNotifierStoreContract } from './notifier-contract';

const directories: string[] = [];
async function freshPath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'telealert-state-'));
  directories.push(directory);
  return join(directory, 'nested', 'state.json');
}
afterEach(async () => {
  await Promise.all(directories.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describeStateStoreContract('file', async (now) => new FileStateStore(await freshPath(), { now }));

describe('Class: FileStateStore', () => {
  it('keeps state across instances on the same file', async () => {
    const path = await freshPath();
    await new FileStateStore(path).commit('payments', 0, sampleState('payments'), [
      sampleNotification(),
    ]);
    expect(await new FileStateStore(path).load('payments')).toEqual({
      state: sampleState('payments'),
      revision: 1,
      writtenAtMs: expect.any(Number),
      owed: [sampleNotification()],
    });
  });

  it('leaves no temporary file behind after a write', async () => {
    const path = await freshPath();
    await new FileStateStore(path).commit('payments', 0, sampleState('payments'), []);
    expect(await readdir(join(path, '..'))).toEqual(['state.json']);
  });

  it('throws a StateStoreError naming the file when it is not a state file', async () => {
    const path = await freshPath();
    await new FileStateStore(path).commit('payments', 0, sampleState('payments'), []);
    await writeFile(path, '{"version":1,"sources":{"payments":{"revision":"x"}}}');
    await expect(new FileStateStore(path).load('payments')).rejects.toThrow(
      new StateStoreError(
        `the state file ${path} is not a telealert state file: delete it to start from a clean state`,
      ),
    );
    await writeFile(path, 'not json');
    await expect(new FileStateStore(path).load('payments')).rejects.toBeInstanceOf(StateStoreError);
  });

  it('writes only in its turn: a commit waits while another process holds the lock', async () => {
    const path = await freshPath();
    await mkdir(join(path, '..'), { recursive: true });
    const release = await lockfile.lock(path, { realpath: false });
    let committed = false;
    const commit = new FileStateStore(path)
      .commit('payments', 0, sampleState('payments'), [])
      .then(() => {
        committed = true;
      });
    await new Promise((done) => setTimeout(done, 200));
    expect(committed).toBe(false);
    await release();
    await commit;
    expect((await new FileStateStore(path).load('payments')).revision).toBe(1);
    expect(await readdir(join(path, '..'))).toEqual(['state.json']);
  });

  it('takes over the lock a crashed process left once it is stale', async () => {
    const path = await freshPath();
    await mkdir(lockPathOf(path), { recursive: true });
    const old = (Date.now() - 2 * LOCK_STALE_MS) / 1000;
    await utimes(lockPathOf(path), old, old);
    await new FileStateStore(path).commit('payments', 0, sampleState('payments'), []);
    expect((await new FileStateStore(path).load('payments')).revision).toBe(1);
  });

  it('says the state file is a directory when it is one', async () => {
    const path = await freshPath();
    await mkdir(path, { recursive: true });
    await expect(new FileStateStore(path).load('payments')).rejects.toThrow(
      new StateStoreError(
        `the state file ${path} is a directory; name a file instead (telealert poll --state FILE)`,
      ),
    );
  });
});

describeNotifierStoreContract('file', async () => new FileStateStore(await freshPath()));
