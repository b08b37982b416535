import { readFileSync } from 'node:fs';

/**
 * This process's own peak resident set size, in bytes. On Linux it is `VmHWM` of
 * `/proc/self/status`: `process.resourceUsage().maxRSS` is not, since the kernel carries a
 * spawning process's resident size over into its child's at `exec`, so a child of a large bench
 * process reported the parent's size (up to 244 MB) instead of its own (about 170 MB).
 * Elsewhere, `maxRSS`.
 */
export function peakRssBytes(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kib !== undefined) return Number(kib) * 1024;
  } catch {
    // Not Linux: no /proc.
  }
  return process.resourceUsage().maxRSS * 1024;
}
