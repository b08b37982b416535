import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MotoMissingError, PythonMissingError } from '../../../cli/deploy-local/errors';
import { checkMoto } from '../../../cli/deploy-local/moto';

const INSTALL = "python3 -m pip install 'moto[server]==5.2.1'";
let directory: string;

/** A stand-in `python3` that answers the probe with `script` (a shell body). */
async function fakePython(name: string, script: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return path;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telealert-check-moto-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('Function: checkMoto', () => {
  it('throws PythonMissingError with the install line when there is no such interpreter', () => {
    const missing = join(directory, 'no-python');
    expect(() => checkMoto(missing)).toThrow(PythonMissingError);
    expect(() => checkMoto(missing)).toThrow(`${missing} was not found`);
    expect(() => checkMoto(missing)).toThrow(INSTALL);
  });

  it('throws MotoMissingError with the install line when moto cannot be imported', async () => {
    const python = await fakePython('no-moto', 'echo "ModuleNotFoundError: moto" >&2; exit 1');
    expect(() => checkMoto(python)).toThrow(MotoMissingError);
    expect(() => checkMoto(python)).toThrow(
      `moto's server is not installed for ${python}: install it with ${INSTALL}`,
    );
  });

  it('throws MotoMissingError naming both versions when another moto is installed', async () => {
    const python = await fakePython('old-moto', 'echo 5.0.28');
    expect(() => checkMoto(python)).toThrow(
      `moto 5.0.28 is installed; telealert needs moto 5.2.1: install it with ${INSTALL}`,
    );
  });

  it('accepts the pinned moto', async () => {
    const python = await fakePython('pinned-moto', 'echo 5.2.1');
    expect(() => checkMoto(python)).not.toThrow();
  });
});
