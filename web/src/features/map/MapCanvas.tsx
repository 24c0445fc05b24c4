import { useEffect, useRef } from 'react';
import createScatterplot from 'regl-scatterplot';
import { SAMPLE_POINTS, type ColourBy, type MapPoints } from './api';

/** Colour 0 (no category or a smaller one) is grey; 1-19 follow the legend; FILTERED_OUT is a point Explore's filters leave out. */
export const MAP_COLOURS = [
  '#b8b8b8', '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22',
  '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173', '#3182bd', '#e6550d', '#31a354', '#756bb1', '#636363',
  '#ececec',
];
export const FILTERED_OUT = 20;

type Scatterplot = ReturnType<typeof createScatterplot>;

/** Large points for a few images, small ones where a million would cover each other. */
const pointSizeFor = (count: number) => (count < 1_000 ? 8 : count < 100_000 ? 4 : 2);

/**
 * While the camera moves (a drag, until the button is released; the wheel, until it has rested for
 * MOVING_REST_MS) only the map's sample is drawn (its first SAMPLE_POINTS, an even sample), then every
 * point again: a software WebGL draws a million points a few times a second, too slowly to follow the mouse.
 */
const MOVING_REST_MS = 200;
/** A press that moves farther than this is a drag (regl-scatterplot's lassoMinDist is 3 px). */
const LASSO_CLICK_PX = 3;
const firstIndexes = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * The points drawn with WebGL (regl-scatterplot): drag pans, the wheel zooms, and in lasso mode (or
 * with Shift held) a drag draws a lasso: `onLasso` receives its polygon in the points' coordinates,
 * and the page answers with the points to show selected (`selected`), even when the lasso ends on a
 * point. A click on a point gives `onSelect` its index. The
 * frame's data-points says how many points are drawn and data-state whether they are all of them
 * (`drawn`) or the first page while the rest loads (`partial`).
 */
export function MapCanvas({
  count,
  points,
  colourBy,
  lasso,
  selected,
  onSelect,
  onLasso,
}: {
  /** Points the map has: the canvas is made ready while they load. */
  count: number;
  points: MapPoints | undefined;
  colourBy: ColourBy;
  lasso: boolean;
  selected: number[];
  onSelect(indices: number[]): void;
  onLasso(polygon: Array<[number, number]>): void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const plot = useRef<Scatterplot | null>(null);
  const frame = useRef<HTMLDivElement>(null);
  const select = useRef(onSelect);
  select.current = onSelect;
  const lassoed = useRef(onLasso);
  lassoed.current = onLasso;
  const picked = useRef(selected);
  picked.current = selected;
  const drawn = useRef(0);
  const drawing = useRef<Promise<unknown>>(Promise.resolve());

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
    // A lasso's own selection is the page's to make (from the polygon, as the API will read it); a click's is the point.
    let lassoing = false;
    scatterplot.subscribe('lassoStart', () => (lassoing = true));
    scatterplot.subscribe('lassoEnd', ({ coordinates }) => {
      lassoing = false;
      lassoed.current(coordinates as unknown as Array<[number, number]>);
    });
    // A lasso closed where it began also makes a click (down and up a few pixels apart), which regl-scatterplot
    // answers by selecting the point under it: that click ends the lasso, so it never reaches the canvas.
    // Told by the pointer itself, since the library's events arrive later than the click.
    let lassoDrag = false;
    let from = [0, 0];
    const pressAnew = (event: PointerEvent) => {
      lassoDrag = false;
      from = [event.clientX, event.clientY];
    };
    const drag = (event: PointerEvent) => {
      if (lassoDrag || event.buttons !== 1 || !(event.shiftKey || scatterplot.get('mouseMode') === 'lasso')) return;
      lassoDrag = Math.hypot(event.clientX - from[0], event.clientY - from[1]) > LASSO_CLICK_PX;
    };
    const swallowLassoClick = (event: MouseEvent) => {
      if (lassoDrag) event.stopPropagation();
      lassoDrag = false;
    };
    const outer = frame.current!;
    outer.addEventListener('pointerdown', pressAnew, true);
    window.addEventListener('pointermove', drag, { passive: true });
    outer.addEventListener('click', swallowLassoClick, true);
    scatterplot.subscribe('select', ({ points: indices }) => lassoing || select.current(indices));
    scatterplot.subscribe('deselect', () => select.current([]));
    plot.current = scatterplot;

    // Level of detail: a sample while the camera moves, every point at rest (see SAMPLE_POINTS).
    let moving = false;
    let dragging = false;
    let rest: ReturnType<typeof setTimeout> | undefined;
    const settle = () => {
      if (!moving || dragging) return;
      moving = false;
      frame.current?.removeAttribute('data-moving');
      void scatterplot.unfilter({ preventEvent: true });
      // filter() drops the selected points outside the sample: select them again.
      if (picked.current.length > 0) scatterplot.select(picked.current, { preventEvent: true });
    };
    const move = () => {
      if (!moving && drawn.current > SAMPLE_POINTS) {
        moving = true;
        frame.current?.setAttribute('data-moving', String(SAMPLE_POINTS));
        void scatterplot.filter(firstIndexes(SAMPLE_POINTS), { preventEvent: true });
      }
      clearTimeout(rest);
      if (moving) rest = setTimeout(settle, MOVING_REST_MS);
    };
    const press = (event: PointerEvent) => {
      if (event.shiftKey || scatterplot.get('mouseMode') !== 'panZoom') return;
      dragging = true;
      move();
    };
    const release = () => {
      if (!dragging) return;
      dragging = false;
      settle();
    };
    const target = canvas.current!;
    target.addEventListener('pointerdown', press);
    window.addEventListener('pointerup', release);
    target.addEventListener('wheel', move, { passive: true });
    scatterplot.subscribe('view', move);
    return () => {
      clearTimeout(rest);
      target.removeEventListener('pointerdown', press);
      window.removeEventListener('pointerup', release);
      target.removeEventListener('wheel', move);
      outer.removeEventListener('pointerdown', pressAnew, true);
      window.removeEventListener('pointermove', drag);
      outer.removeEventListener('click', swallowLassoClick, true);
      plot.current = null;
      drawn.current = 0;
      scatterplot.destroy();
    };
  }, [count]);

  useEffect(() => {
    const scatterplot = plot.current;
    if (!scatterplot || !points || points.loaded === 0) return;
    const n = points.loaded;
    const all = n === points.total;
    frame.current?.setAttribute('data-state', 'drawing');
    // One draw at a time: the whole map may arrive while the first page is still being drawn.
    drawing.current = drawing.current.catch(() => undefined).then(() =>
      scatterplot.draw({ x: points.x.subarray(0, n), y: points.y.subarray(0, n), valueA: points.colours[colourBy].subarray(0, n) }, { zDataType: 'categorical' }).then(() => {
        drawn.current = n;
        // The bench and the end-to-end tests wait for this: n points are on screen.
        requestAnimationFrame(() => {
          frame.current?.setAttribute('data-points', String(n));
          frame.current?.setAttribute('data-state', all ? 'drawn' : 'partial');
        });
      }),
    );
  }, [points, colourBy]);

  useEffect(() => {
    void plot.current?.set({ mouseMode: lasso ? 'lasso' : 'panZoom' });
  }, [lasso, count]);

  useEffect(() => {
    const scatterplot = plot.current;
    if (!scatterplot) return;
    if (selected.length === 0) scatterplot.deselect({ preventEvent: true });
    else scatterplot.select(selected, { preventEvent: true });
  }, [selected]);

  return (
    <div ref={frame} className="map-frame" data-state="drawing">
      <canvas ref={canvas} aria-label={`Map of ${count.toLocaleString()} points`} role="img" />
    </div>
  );
}
