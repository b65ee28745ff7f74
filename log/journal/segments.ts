// Segment files of the journal: `<first position, 20 digits>.seg` in one directory, in position order.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Segment {
  readonly firstPos: number;
  readonly path: string;
}

const NAME = /^(\d{20})\.seg$/;

export function segmentName(firstPos: number): string {
  return `${String(firstPos).padStart(20, '0')}.seg`;
}

export async function listSegments(dir: string): Promise<Segment[]> {
  const names = await readdir(dir);
  const segments: Segment[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (match?.[1] !== undefined) segments.push({ firstPos: Number(match[1]), path: join(dir, name) });
  }
  return segments.sort((a, b) => a.firstPos - b.firstPos);
}
