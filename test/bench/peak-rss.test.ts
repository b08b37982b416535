import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { peakRssBytes } from '../../bench/peak-rss';

const MB = 1024 * 1024;

describe('Function: peakRssBytes', () => {
  it.runIf(process.platform === 'linux')(
    "reports a child's own peak, not the resident size of the process that spawned it",
    () => {
      // Resident in this process when it spawns the child: what maxRSS would carry over.
      const held = Buffer.alloc(300 * MB, 1);
      const script = "import('./bench/peak-rss.ts').then((m) => console.log(m.peakRssBytes()))";
      const child = Number(
        execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' }),
      );
      expect(held.length).toBe(300 * MB);
      expect(process.resourceUsage().maxRSS * 1024).toBeGreaterThan(300 * MB);
      expect(child).toBeGreaterThan(10 * MB);
      expect(child).toBeLessThan(200 * MB);
    },
  );

  it('is at least what this process holds now', () => {
    expect(peakRssBytes()).toBeGreaterThanOrEqual(process.memoryUsage.rss() * 0.9);
  });
});
