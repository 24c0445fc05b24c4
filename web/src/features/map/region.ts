import type { MapRegion } from '../explore/vql';
import type { MapPoints } from './api';

/**
 * A lasso keeps at most this many vertices (the API takes 1,000): the region travels in Explore's URL
 * and its GET requests, so it stays a few kilobytes whatever the number of points inside.
 */
export const REGION_VERTICES = 200;
/** Coordinates are rounded to this many decimals (the map spans [-1, 1]: a hundred-thousandth of it). */
const DECIMALS = 5;

/** The lasso as a region: every k-th vertex so at most REGION_VERTICES remain, rounded; undefined for a lasso too small to hold anything. */
export function lassoRegion(layoutId: string, lasso: ReadonlyArray<readonly [number, number]>): MapRegion | undefined {
  const step = Math.ceil(lasso.length / REGION_VERTICES);
  const round = (value: number) => Number(value.toFixed(DECIMALS));
  const polygon = lasso.filter((_, i) => i % step === 0).map(([x, y]): [number, number] => [round(x), round(y)]);
  return polygon.length >= 3 ? { layout_id: layoutId, polygon } : undefined;
}

/** The indexes of the loaded points inside the region (even-odd rule), found as the API finds them: the bounding box first, then the polygon. */
export function pointsInRegion(points: Pick<MapPoints, 'x' | 'y' | 'loaded'>, region: MapRegion): number[] {
  const { polygon } = region;
  const xs = polygon.map(([x]) => x);
  const ys = polygon.map(([, y]) => y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const inside: number[] = [];
  for (let p = 0; p < points.loaded; p++) {
    const [x, y] = [points.x[p], points.y[p]];
    if (x < minX || x > maxX || y < minY || y > maxY) continue;
    let odd = false;
    for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
      const [xi, yi] = polygon[i];
      const [xj, yj] = polygon[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
    }
    if (odd) inside.push(p);
  }
  return inside;
}
