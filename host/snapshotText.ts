// The text of a snapshot file from the JSON of an engine's export (exportSnapshot): the same text as
// JSON.stringify of the SnapshotFile {format, pos, stateHash, engine}, without parsing and writing the engine's
// part again. The state hash is that of the export restored: restoreSnapshot(exportSnapshot(e)).stateHash() ===
// e.stateHash() (engine/snapshot.ts), so it need not be computed where the engine runs.

import { restoreSnapshot, type EngineSnapshot } from '../engine/index.js';

export const SNAPSHOT_FILE_FORMAT = 1;

export function snapshotText(pos: number, engineJson: string): { readonly text: string; readonly stateHash: string } {
  const stateHash = restoreSnapshot(JSON.parse(engineJson) as EngineSnapshot).stateHash();
  return { text: snapshotFileText(pos, stateHash, engineJson), stateHash };
}

/** The file's text for an export's JSON at `pos` whose engine has `stateHash`. */
export function snapshotFileText(pos: number, stateHash: string, engineJson: string): string {
  return `{"format":${SNAPSHOT_FILE_FORMAT},"pos":${pos},"stateHash":${JSON.stringify(stateHash)},"engine":${engineJson}}`;
}
