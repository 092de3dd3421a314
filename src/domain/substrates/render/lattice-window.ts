import type { Box } from '../engine/types';

/**
 * A window of at most `size` cells centred on `focus` (the whole lattice when `focus` is
 * null), kept inside the lattice rather than wrapped, so its cells read left to right.
 */
export function latticeWindow(
  lattice: { width: number; height: number },
  focus: Box | null,
  size: { width: number; height: number },
): Box {
  const centre = focus ?? { x: 0, y: 0, width: lattice.width, height: lattice.height };
  const width = Math.min(size.width, lattice.width);
  const height = Math.min(size.height, lattice.height);
  return {
    x: clamp(Math.floor(centre.x + centre.width / 2 - width / 2), 0, lattice.width - width),
    y: clamp(Math.floor(centre.y + centre.height / 2 - height / 2), 0, lattice.height - height),
    width,
    height,
  };
}

/** True when the window leaves part of the lattice out. */
export function isCropped(lattice: { width: number; height: number }, window: Box): boolean {
  return window.width < lattice.width || window.height < lattice.height;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
