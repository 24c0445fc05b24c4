import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ErrorMessage } from '../../components/ErrorMessage';
import { datasetQueries } from '../datasets/api';
import { EMPTY_SELECTION, type Selection } from '../selection/selection';
import { SelectionBar } from '../selection/SelectionBar';
import { fromVql, toVql, type MapRegion } from '../explore/vql';
import { fetchSelectedMedia, mapQueries, useMapPoints, type ColourBy, type DatasetMap, type MapMatches, type MapPoints } from './api';
import { FILTERED_OUT, MAP_COLOURS, MapCanvas } from './MapCanvas';
import { lassoRegion, pointsInRegion } from './region';
import { useUrlState } from '../../urlState';

const COLOUR_BY: Record<ColourBy, string> = { cluster: 'Cluster', class: 'Class', label: 'Model label', issue: 'Issue' };
const NONE: Record<ColourBy, string> = { cluster: 'Smaller clusters', class: 'No class (or a rarer one)', label: 'No label (or a rarer one)', issue: 'No issue (or a rarer one)' };

function legendOf(map: DatasetMap, by: ColourBy): Array<{ index: number; name: string; count: number }> {
  if (by === 'cluster') return map.legends.cluster.map((entry, i) => ({ index: entry.index, name: `Cluster ${i + 1}`, count: entry.count }));
  if (by === 'label') return map.legends.label.map((entry) => ({ index: entry.index, name: entry.label, count: entry.count }));
  if (by === 'class') return map.legends.class.map((entry) => ({ index: entry.index, name: entry.label, count: entry.count }));
  return map.legends.issue.map((entry) => ({ index: entry.index, name: entry.issue_type, count: entry.count }));
}

/** The points with those Explore's filters leave out in FILTERED_OUT's colour, when `matches` is of the loaded layout. */
function withMatches(points: MapPoints | undefined, matches: MapMatches | undefined): MapPoints | undefined {
  if (!points || !matches || matches.layoutId !== points.layoutId) return points;
  const dim = (colours: Uint8Array) => colours.map((colour, i) => (matches.passes[i] ? colour : FILTERED_OUT));
  const colours = Object.fromEntries(Object.entries(points.colours).map(([by, column]) => [by, dim(column)])) as MapPoints['colours'];
  return { ...points, colours };
}

/**
 * A 2D map of every image's embedding, coloured by cluster, label or issue; with Explore's filters (its `vql`,
 * which Explore's Map link carries) the points they leave out are greyed. A lasso selects a region (of the points
 * that pass the filters): the selection bar acts on it on the server (a VQL map filter, so any number of points)
 * and Explore opens with it and the filters; a click selects one image.
 */
export function MapPage() {
  const { datasetId = '' } = useParams();
  const [params, change] = useUrlState();
  // Explore's filters: a lasso or a click selects among the points they keep.
  const filters = fromVql(params.get('vql'));
  const filterVql = toVql({ ...filters, map: undefined });
  const filtersParam = filterVql.length > 0 ? JSON.stringify(filterVql) : undefined;
  const colourBy = (['cluster', 'class', 'label', 'issue'] as const).find((by) => by === params.get('colour')) ?? 'cluster';
  const threshold = Math.min(4, Math.max(0, Number(params.get('threshold')) || 0));
  const [lasso, setLasso] = useState(false);
  const [picked, setPicked] = useState<number[]>([]);
  const [region, setRegion] = useState<MapRegion>();
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [selectionError, setSelectionError] = useState<Error | null>(null);

  const dataset = useQuery(datasetQueries.detail(datasetId));
  const [summaryWanted, setSummaryWanted] = useState(false);
  // The summary (the legend) is asked once the first points are in, so it does not slow their first draw.
  const map = useQuery({ ...mapQueries.summary(datasetId, threshold), enabled: summaryWanted });
  // Loaded again when a layout is written (the summary is asked again while the map is being laid out).
  const points = useMapPoints(datasetId, threshold, map.data?.layout_id);
  if (!summaryWanted && (points.points ?? points.error)) setSummaryWanted(true);
  const layingOut = map.data?.layout_status === 'laying_out';
  const loadedLayout = points.points?.layoutId ?? null;
  const matches = useQuery({ ...mapQueries.matches(datasetId, filtersParam ?? '[]', loadedLayout), enabled: Boolean(filtersParam && loadedLayout) });
  const shown = useMemo(() => withMatches(points.points, matches.data), [points.points, matches.data]);
  const passes = matches.data?.layoutId === loadedLayout ? matches.data?.passes : undefined;
  // The first page of points says how many there are: the canvas need not wait for the summary.
  const count = points.points?.total ?? map.data?.count ?? 0;

  const clear = () => {
    setPicked([]);
    setRegion(undefined);
    setSelection(EMPTY_SELECTION);
    setSelectionError(null);
  };
  const onLasso = (lasso: Array<[number, number]>) => {
    const loaded = points.points;
    const lassoed = loaded?.layoutId ? lassoRegion(loaded.layoutId, lasso) : undefined;
    if (!loaded || !lassoed) return clear();
    const inside = pointsInRegion(loaded, lassoed).filter((i) => !passes || passes[i]);
    setSelectionError(null);
    setPicked(inside);
    setRegion(inside.length > 0 ? lassoed : undefined);
    if (inside.length === 0) return setSelection(EMPTY_SELECTION);
    // Counted in the browser once every point is in; the server selects by the same polygon either way.
    const description = loaded.loaded === loaded.total ? `${inside.length.toLocaleString()} lassoed image${inside.length === 1 ? '' : 's'}` : 'the lassoed images';
    setSelection({ mediaIds: [], clusters: [], matching: { vql: JSON.stringify(toVql({ ...filters, map: lassoed })), description } });
  };
  const onSelect = (indices: number[]) => {
    setPicked(indices);
    setRegion(undefined);
    setSelectionError(null);
    if (indices.length === 0) return setSelection(EMPTY_SELECTION);
    fetchSelectedMedia(datasetId, points.points!.layoutId!, indices).then(
      (mediaIds) => setSelection({ mediaIds, clusters: [] }),
      (error: Error) => setSelectionError(error),
    );
  };

  const name = dataset.data?.display_name ?? '';
  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>{name || datasetId}</Link> › Map
      </p>
      <h1>Map {name}</h1>
      <p className="muted">
        Every image where its embedding puts it: similar images lie close together. Drag to pan, scroll to zoom; switch to Lasso (or hold Shift) and draw round points to select
        them, then tag them or open them in Explore; Escape clears the selection.{' '}
        <Link to={`/datasets/${datasetId}/explore${filtersParam ? `?${new URLSearchParams({ vql: filtersParam })}` : ''}`}>Explore</Link>
      </p>
      {filtersParam && (
        <p role="status" data-testid="map-filtered">
          {matches.data && passes
            ? `${matches.data.matched.toLocaleString()} of ${count.toLocaleString()} points match Explore's filters; the others are greyed out. `
            : "Marking the points Explore's filters keep… "}
          <button type="button" onClick={() => change({ vql: undefined })}>
            Show every point
          </button>
        </p>
      )}
      <ErrorMessage error={matches.error} prefix="Explore's filters could not be applied to the map" />
      <ErrorMessage error={map.error ?? points.error} prefix="The map could not be loaded" />
      {map.data && (
        <div className="map-controls card">
          <label>
            Colour by{' '}
            <select value={colourBy} onChange={(event) => change({ colour: event.target.value })}>
              {Object.entries(COLOUR_BY).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Cluster threshold{' '}
            <select value={threshold} onChange={(event) => change({ threshold: event.target.value })} disabled={colourBy !== 'cluster'}>
              {[0, 1, 2, 3, 4].map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          {colourBy !== 'cluster' && <span className="muted">The threshold applies when colouring by cluster.</span>}
          <fieldset className="map-mode">
            <legend>Mouse</legend>
            <label>
              <input type="radio" name="map-mode" checked={!lasso} onChange={() => setLasso(false)} /> Pan
            </label>
            <label>
              <input type="radio" name="map-mode" checked={lasso} onChange={() => setLasso(true)} /> Lasso
            </label>
          </fieldset>
          <span data-testid="map-count">
            {count.toLocaleString()} point{count === 1 ? '' : 's'}
            {map.data.unplaced > 0 && ` · ${map.data.unplaced.toLocaleString()} added since the last reindex are not placed yet`}
          </span>
          {points.points && points.points.loaded < points.points.total && (
            <span role="status" className="muted">
              Showing an even sample of {points.points.loaded.toLocaleString()} points while the rest load…
            </span>
          )}
        </div>
      )}
      {layingOut && (
        <p role="status" data-testid="map-laying-out">
          Map: laying out{count > 0 ? ' anew (showing the previous layout until then)' : ''}… The dataset is ready to explore meanwhile.
        </p>
      )}
      {map.data?.layout_status === 'failed' && <p role="alert">The map could not be laid out: {map.data.layout_error}. A reindex lays it out again.</p>}
      {map.data && !layingOut && count === 0 && <p>No map yet: it is laid out when the dataset is indexed.</p>}
      {(map.isPending || (!points.points && !points.error && count > 0)) && <p>Loading the map…</p>}
      {picked.length > 0 && !region && selection.mediaIds.length === 0 && !selectionError && (
        <p role="status" className="muted">
          Looking up the selected image…
        </p>
      )}
      {region && (
        <p>
          <Link to={`/datasets/${datasetId}/explore?${new URLSearchParams({ vql: JSON.stringify(toVql({ ...filters, map: region })), map_points: String(picked.length) })}`}>
            Open the {picked.length.toLocaleString()} lassoed image{picked.length === 1 ? '' : 's'} in Explore
          </Link>
        </p>
      )}
      {(region || selection.mediaIds.length > 0) && <SelectionBar datasetId={datasetId} selection={selection} onClear={clear} />}
      <ErrorMessage error={selectionError} prefix="The selection could not be made" />
      {count > 0 && <MapCanvas count={count} points={shown} colourBy={colourBy} lasso={lasso} selected={picked} onSelect={onSelect} onLasso={onLasso} />}
      {map.data && count > 0 && (
        <ul className="map-legend" aria-label="Colours">
          {[{ index: 0, name: NONE[colourBy], count: -1 }, ...legendOf(map.data, colourBy)].map((entry) => (
            <li key={entry.index}>
              <span className="map-swatch" style={{ background: MAP_COLOURS[entry.index] }} aria-hidden="true" /> {entry.name}
              {entry.count >= 0 && <span className="muted"> · {entry.count.toLocaleString()}</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
