import { createHash } from 'node:crypto';

/**
 * The canonical state encoding shared by every engine: each row packed MSB-first into
 * ceil(width / 8) bytes (cell x of a row is bit `7 - (x & 7)` of byte `x >> 3`), rows in
 * order, unused low bits of a row's last byte zero. Digests hash `${width}x${height}:` and
 * these bytes, so equal states on equal lattices always digest alike, whatever the engine.
 */

/** A snapshot that does not fit the lattice it is restored onto. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

export function snapshotLength(width: number, height: number): number {
  return Math.ceil(width / 8) * height;
}

/** Packs one byte per cell (non-zero live), row-major. */
export function packSnapshot(width: number, height: number, cells: Uint8Array): Uint8Array {
  const rowBytes = Math.ceil(width / 8);
  const bytes = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (cells[y * width + x]) bytes[y * rowBytes + (x >> 3)] |= 0x80 >> (x & 7);
    }
  }
  return bytes;
}

/** Rejects a snapshot of the wrong length or with bits set past the lattice width. */
export function checkSnapshot(width: number, height: number, bytes: Uint8Array): void {
  const expected = snapshotLength(width, height);
  if (bytes.length !== expected)
    throw new SnapshotError(
      `snapshot has ${bytes.length} bytes; a ${width}x${height} lattice needs ${expected} (ceil(${width} / 8) per row)`,
    );
  const rowBytes = Math.ceil(width / 8);
  const padding = 0xff >> (width - 8 * (rowBytes - 1));
  for (let y = 0; y < height; y += 1) {
    if ((bytes[y * rowBytes + rowBytes - 1] & padding) !== 0)
      throw new SnapshotError(`snapshot row ${y} sets bits past the lattice width ${width}`);
  }
}

/** One byte per cell (1 live), row-major; rejects a wrong length or set padding bits. */
export function unpackSnapshot(width: number, height: number, bytes: Uint8Array): Uint8Array {
  checkSnapshot(width, height, bytes);
  const rowBytes = Math.ceil(width / 8);
  const cells = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      cells[y * width + x] = (bytes[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1;
    }
  }
  return cells;
}

/** sha256 hex of `${width}x${height}:` followed by the snapshot bytes. */
export function stateDigest(width: number, height: number, snapshot: Uint8Array): string {
  return createHash('sha256').update(`${width}x${height}:`, 'utf8').update(snapshot).digest('hex');
}
