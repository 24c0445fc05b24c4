import { useEffect, useRef } from 'react';
import createScatterplot from 'regl-scatterplot';
import type { ColourBy, MapPoints } from './api';

/** Colour 0 (no category or a smaller one) is grey; 1-19 follow the legend. */
export const MAP_COLOURS = [
  '#b8b8b8', '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22',
  '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173', '#3182bd', '#e6550d', '#31a354', '#756bb1', '#636363',
];

type Scatterplot = ReturnType<typeof createScatterplot>;

/** Large points for a few images, small ones where a million would cover each other. */
const pointSizeFor = (count: number) => (count < 1_000 ? 8 : count < 100_000 ? 4 : 2);

/**
 * The points drawn with WebGL (regl-scatterplot): drag pans, the wheel zooms, and in lasso mode (or
 * with Shift held) a drag selects the points it encircles. `onSelect` receives their indexes.
 */
export function MapCanvas({
  count,
  points,
  colourBy,
  lasso,
  selected,
  onSelect,
}: {
  /** Points the map has: the canvas is made ready while they load. */
  count: number;
  points: MapPoints | undefined;
  colourBy: ColourBy;
  lasso: boolean;
  selected: number[];
  onSelect(indices: number[]): void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const plot = useRef<Scatterplot | null>(null);
  const frame = useRef<HTMLDivElement>(null);
  const select = useRef(onSelect);
  select.current = onSelect;

  useEffect(() => {
    const scatterplot = createScatterplot({
      canvas: canvas.current!,
      pointSize: pointSizeFor(count),
      pointColor: MAP_COLOURS,
      colorBy: 'valueA',
      opacity: 0.8,
      lassoColor: '#0b57d0',
      backgroundColor: '#ffffff',
      deselectOnEscape: true,
      deselectOnDblClick: false,
      performanceMode: count > 500_000,
    });
    scatterplot.subscribe('select', ({ points: indices }) => select.current(indices));
    scatterplot.subscribe('deselect', () => select.current([]));
    plot.current = scatterplot;
    return () => {
      plot.current = null;
      scatterplot.destroy();
    };
  }, [count]);

  useEffect(() => {
    const scatterplot = plot.current;
    if (!scatterplot || !points) return;
    frame.current?.setAttribute('data-state', 'drawing');
    void scatterplot.draw({ x: points.x, y: points.y, valueA: points.colours[colourBy] }, { zDataType: 'categorical' }).then(() => {
      // The bench and the end-to-end test wait for this: every point is on screen.
      requestAnimationFrame(() => frame.current?.setAttribute('data-state', 'drawn'));
    });
  }, [points, colourBy]);

  useEffect(() => {
    plot.current?.set({ mouseMode: lasso ? 'lasso' : 'panZoom' });
  }, [lasso, count]);

  useEffect(() => {
    const scatterplot = plot.current;
    if (!scatterplot) return;
    if (selected.length === 0) scatterplot.deselect({ preventEvent: true });
  }, [selected]);

  return (
    <div ref={frame} className="map-frame" data-points={points?.x.length ?? 0} data-state="drawing">
      <canvas ref={canvas} aria-label={`Map of ${count.toLocaleString()} points`} role="img" />
    </div>
  );
}
