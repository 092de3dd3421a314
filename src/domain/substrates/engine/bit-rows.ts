import type { Box } from './types';

/**
 * Bit-packed rows: each row is `wordsPerRow` int32 words, cell x in word `x >> 5` at bit
 * `31 - (x & 31)` (MSB-first, so a word's bytes are already in snapshot order). Bits past the
 * row's width (the low bits of a row's last word) are padding and always zero: shifts and
 * popcounts rely on it. Int32Array rather than Uint32Array because bitwise results are int32
 * and V8 keeps them unboxed that way.
 */
export interface BitRowLayout {
  width: number;
  height: number;
  wordsPerRow: number;
  /** Live bits of a row's last word: the top `width - 32 * (wordsPerRow - 1)` bits. */
  lastWordMask: number;
}

export function bitRowLayout(width: number, height: number): BitRowLayout {
  const wordsPerRow = Math.ceil(width / 32);
  const tailBits = width - 32 * (wordsPerRow - 1);
  return { width, height, wordsPerRow, lastWordMask: tailBits === 32 ? -1 : ~(-1 >>> tailBits) };
}

/** Packs one byte per cell (non-zero live), row-major, into words. */
export function packCells(layout: BitRowLayout, cells: Uint8Array): Int32Array {
  const { width, height, wordsPerRow } = layout;
  const words = new Int32Array(wordsPerRow * height);
  // Each word is built in a local and stored once (3-4x faster than or-ing into the array).
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    for (let k = 0; k < wordsPerRow; k += 1) {
      const x0 = k * 32;
      const bits = Math.min(32, width - x0);
      let word = 0;
      for (let b = 0; b < bits; b += 1) {
        const cell = cells[row + x0 + b];
        word |= ((cell | -cell) >>> 31) << (31 - b); // 1 for any non-zero byte, branch-free
      }
      words[y * wordsPerRow + k] = word;
    }
  }
  return words;
}

export function bitAt(layout: BitRowLayout, words: Int32Array, x: number, y: number): boolean {
  const word = words[y * layout.wordsPerRow + (x >> 5)];
  return ((word >>> (31 - (x & 31))) & 1) === 1;
}

/** Live cells per word (SWAR popcount). */
export function populationOf(words: Int32Array): number {
  let total = 0;
  for (let i = 0; i < words.length; i += 1) {
    let v = words[i];
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    total += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
  }
  return total;
}

export function liveCellsOf(layout: BitRowLayout, words: Int32Array): Array<[number, number]> {
  const live: Array<[number, number]> = [];
  for (let y = 0; y < layout.height; y += 1) {
    for (let k = 0; k < layout.wordsPerRow; k += 1) {
      let word = words[y * layout.wordsPerRow + k];
      while (word !== 0) {
        const bit = Math.clz32(word);
        live.push([k * 32 + bit, y]);
        word &= ~(0x80000000 >>> bit);
      }
    }
  }
  return live;
}

export function boundingBoxOf(layout: BitRowLayout, words: Int32Array): Box | null {
  let minX = Infinity;
  let maxX = -1;
  let minY = -1;
  let maxY = -1;
  for (let y = 0; y < layout.height; y += 1) {
    for (let k = 0; k < layout.wordsPerRow; k += 1) {
      const word = words[y * layout.wordsPerRow + k];
      if (word === 0) continue;
      if (minY < 0) minY = y;
      maxY = y;
      // MSB-first: the highest set bit is the leftmost cell, the lowest set bit the rightmost.
      minX = Math.min(minX, k * 32 + Math.clz32(word));
      maxX = Math.max(maxX, k * 32 + Math.clz32(word & -word));
    }
  }
  if (minY < 0) return null;
  return { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

/** Canonical snapshot bytes: each row MSB-first in ceil(width / 8) bytes. */
export function snapshotOfWords(layout: BitRowLayout, words: Int32Array): Uint8Array {
  const rowBytes = Math.ceil(layout.width / 8);
  const bytes = new Uint8Array(rowBytes * layout.height);
  const view = new DataView(bytes.buffer);
  const wholeWords = rowBytes >> 2;
  for (let y = 0; y < layout.height; y += 1) {
    const out = y * rowBytes;
    const row = y * layout.wordsPerRow;
    // A word is its four snapshot bytes, big-endian (MSB-first): stored in one write each.
    for (let k = 0; k < wholeWords; k += 1) view.setInt32(out + 4 * k, words[row + k], false);
    for (let j = wholeWords * 4; j < rowBytes; j += 1) {
      bytes[out + j] = (words[row + (j >> 2)] >>> (24 - 8 * (j & 3))) & 0xff;
    }
  }
  return bytes;
}

/**
 * The inverse of `snapshotOfWords`: snapshot bytes straight into words (restoring a 1024 x
 * 1024 lattice this way skips a million-byte detour through one byte per cell). The caller
 * checks the length and padding bits first (`checkSnapshot`).
 */
export function wordsOfSnapshot(layout: BitRowLayout, bytes: Uint8Array): Int32Array {
  const rowBytes = Math.ceil(layout.width / 8);
  const words = new Int32Array(layout.wordsPerRow * layout.height);
  for (let y = 0; y < layout.height; y += 1) {
    for (let j = 0; j < rowBytes; j += 1) {
      words[y * layout.wordsPerRow + (j >> 2)] |= bytes[y * rowBytes + j] << (24 - 8 * (j & 3));
    }
  }
  return words;
}
