import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Teardown } from '../../../cli/deploy-local/teardown';

/** Running: there, and not a zombie waiting for a parent (in a container, pid 1 may never reap). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

/** A shell that starts a grandchild in its own group, as the CDK CLI starts node. */
function spawnGroup() {
  const child = spawn('sh', ['-c', 'sleep 300 & echo $!; wait'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const grandchild = new Promise<number>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  return { child, grandchild };
}

describe('Teardown', () => {
  it('releases what it holds newest first', async () => {
    const teardown = new Teardown();
    const order: string[] = [];
    teardown.add('moto', async () => {
      order.push('moto');
    });
    teardown.add('cdk', async () => {
      order.push('cdk');
    });
    await teardown.releaseAll();
    expect(order).toEqual(['cdk', 'moto']);
    expect(teardown.stopping).toBe(true);
  });

  it('stops a process group, the child and what it started', async () => {
    const teardown = new Teardown();
    const { child, grandchild } = spawnGroup();
    teardown.addProcess('shell', child);
    const pid = await grandchild;
    expect(alive(pid)).toBe(true);
    await teardown.releaseAll();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(pid)).toBe(false);
  });

  it('kills a process group at once when the process must exit now', async () => {
    const teardown = new Teardown();
    const { child, grandchild } = spawnGroup();
    teardown.addProcess('shell', child);
    const pid = await grandchild;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    teardown.releaseAllNow();
    await exited;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(pid)).toBe(false);
  });

  it('releases at once a resource added after stopping began', async () => {
    const teardown = new Teardown();
    await teardown.releaseAll();
    let releasedNow = false;
    teardown.add(
      'late cdk',
      async () => {},
      () => {
        releasedNow = true;
      },
    );
    expect(releasedNow).toBe(true);
  });

  it('removes a folder with what is in it; a resource released by its owner is not released again', async () => {
    const teardown = new Teardown();
    const folder = mkdtempSync(join(tmpdir(), 'telealert-teardown-test-'));
    writeFileSync(join(folder, 'file'), 'x');
    teardown.addFolder(folder);
    let released = 0;
    const held = teardown.add('server', async () => {
      released += 1;
    });
    await held.release();
    await teardown.releaseAll();
    expect(existsSync(folder)).toBe(false);
    expect(released).toBe(1);
  });

  it('goes on with the rest when a release fails', async () => {
    const teardown = new Teardown();
    let after = false;
    teardown.add('first', async () => {
      after = true;
    });
    teardown.add('failing', async () => {
      throw new Error('already stopped');
    });
    await teardown.releaseAll();
    expect(after).toBe(true);
  });
});
