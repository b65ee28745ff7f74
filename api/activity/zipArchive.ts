// A ZIP archive of a few small files, in memory (PKWARE APPNOTE 6.3: local headers, deflated data, the
// central directory, its end record), as GET /v1/accounting/snapshot sends: what Python's zipfile, `unzip`
// and every ZIP reader open. No ZIP64 (each file and the whole stay far below 4 GiB), no encryption.

import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  readonly name: string;
  readonly data: Buffer;
}

/** MS-DOS date and time of `ms` (UTC), as ZIP headers hold them (2-second resolution, 1980 to 2107). */
function dosTime(ms: number): { time: number; date: number } {
  const d = new Date(ms);
  const year = Math.min(Math.max(d.getUTCFullYear(), 1980), 2107);
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** The archive of `entries`, each deflated, stamped `ms`. */
export function zipArchive(entries: readonly ZipEntry[], ms: number): Buffer {
  const { time, date } = dosTime(ms);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const packed = deflateRawSync(e.data);
    const crc = crc32(e.data);
    // The fields a local header (from byte 4) and its central directory header (from byte 6) share, in order.
    const entryFields = (header: Buffer, at: number): void => {
      header.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
      header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      header.writeUInt16LE(8, at + 4); // deflate
      header.writeUInt16LE(time, at + 6);
      header.writeUInt16LE(date, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(packed.length, at + 14);
      header.writeUInt32LE(e.data.length, at + 18);
      header.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    entryFields(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by: 2.0, MS-DOS attributes
    entryFields(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
