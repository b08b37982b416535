import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateStoreError } from '../../shared/ports/errors';
import { FileStateStore } from '../../shared/ports/file';
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
