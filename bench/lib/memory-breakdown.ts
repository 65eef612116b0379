// Where a process's resident memory is, from /proc/<pid>/smaps, by the shape of each mapping (Linux
// only): what an idle `svc start` holds, without asking the process. The shapes are those of node 20 on
// glibc; a mapping that fits none counts as "other".
import fs from 'node:fs';

interface Mapping {
  start: number;
  sizeKiB: number;
  perms: string;
  name: string;
  rssKiB: number;
}

export interface MemoryBreakdown {
  /** MiB per part, in the order printed. */
  parts: [label: string, mib: number][];
  rssMiB: number;
}

const MiB = 1024;
/** glibc's arenas for threads other than the main one are 64 MiB reservations, aligned to 64 MiB. */
const ARENA_KIB = 64 * MiB;
/** V8's heap pages (young and old generation) are 256 KiB mappings each. */
const V8_PAGE_KIB = 256;
/** A WebAssembly memory is reserved with guard regions of GiBs after its committed part. */
const WASM_GUARD_MIN_KIB = 1024 * MiB;

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head !== null) {
      const start = Number.parseInt(head[1] ?? '0', 16);
      const end = Number.parseInt(head[2] ?? '0', 16);
      current = {
        start,
        sizeKiB: (end - start) / 1024,
        perms: head[3] ?? '',
        name: head[4] ?? '',
        rssKiB: 0,
      };
      out.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss !== null && current !== undefined) current.rssKiB = Number(rss[1]);
  }
  return out;
}

function kind(map: Mapping, next: Mapping | undefined): string {
  if (map.name.startsWith('/')) return 'files (node binary, libraries)';
  if (map.name === '[heap]') return 'main thread malloc';
  if (map.name !== '') return 'other';
  const guardAfter = next?.perms.startsWith('---') === true && next.name === '' ? next.sizeKiB : 0;
  if (map.perms.startsWith('rw') && guardAfter >= WASM_GUARD_MIN_KIB) return 'WebAssembly memory (PGlite)';
  if (
    map.perms.startsWith('rw') &&
    map.start % (ARENA_KIB * 1024) === 0 &&
    map.sizeKiB + guardAfter === ARENA_KIB
  )
    return 'thread malloc arenas';
  if (map.perms === 'rwxp') return 'JIT code (JS and WebAssembly)';
  if (map.sizeKiB === V8_PAGE_KIB) return 'V8 heap pages (all isolates)';
  return 'other';
}

export function memoryBreakdown(pid: number): MemoryBreakdown {
  const maps = mappings(pid);
  const kib = new Map<string, number>();
  let total = 0;
  maps.forEach((map, i) => {
    const label = kind(map, maps[i + 1]);
    kib.set(label, (kib.get(label) ?? 0) + map.rssKiB);
    total += map.rssKiB;
  });
  const parts = [...kib.entries()]
    .filter(([, value]) => value > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([label, value]): [string, number] => [label, value / MiB]);
  return { parts, rssMiB: total / MiB };
}

export function breakdownLine(breakdown: MemoryBreakdown): string {
  const parts = breakdown.parts.map(([label, mib]) => `${label} ${mib.toFixed(1)}`).join(', ');
  return `RSS ${breakdown.rssMiB.toFixed(1)} MiB: ${parts}`;
}

/** What changed from `before` to `after`, in MiB per part (the largest changes first; parts under 0.05 MiB left out). */
export function breakdownDelta(before: MemoryBreakdown, after: MemoryBreakdown): string {
  const labels = new Set([...before.parts, ...after.parts].map(([label]) => label));
  const of = (b: MemoryBreakdown, label: string) => b.parts.find(([l]) => l === label)?.[1] ?? 0;
  const changes = [...labels]
    .map((label): [string, number] => [label, of(after, label) - of(before, label)])
    .filter(([, mib]) => Math.abs(mib) >= 0.05)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .map(([label, mib]) => `${label} ${mib >= 0 ? '+' : ''}${mib.toFixed(1)}`);
  const total = after.rssMiB - before.rssMiB;
  return `${total >= 0 ? '+' : ''}${total.toFixed(1)} MiB: ${changes.join(', ') || 'no part changed'}`;
}
