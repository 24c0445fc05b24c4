import { useEffect, useState, type KeyboardEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import type { EntityType } from '../../api/client';
import { DensityControl, useDensity } from '../../components/DensityControl';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { ShortcutsHelp, useShortcutsHelp } from '../../components/ShortcutsHelp';
import { focusThumb } from '../../focusThumb';
import { useUrlState } from '../../urlState';
import { datasetQueries } from '../datasets/api';
import { EMPTY_SELECTION, toggleCluster, toggleMedia, type Selection } from '../selection/selection';
import { MediaViewer } from '../media/MediaViewer';
import { SelectionBar } from '../selection/SelectionBar';
import { viewQueries } from '../views/api';
import { viewExploreUrl } from '../views/viewLinks';
import { ViewsPanel } from '../views/ViewsPanel';
import { exploreQueries, fetchImage, searchByImage, type ExploreQuery, type Preview } from './api';
import { ClusterCard } from './ClusterCard';
import { ImageSearch } from './ImageSearch';
import { MediaDetails } from './MediaDetails';
import { thumbKey } from './previews';
import { fromVql, toVql } from './vql';
import { VqlFilters } from './VqlFilters';

/** What each clustering threshold groups: images joined by a chain of neighbours at least this similar (lib/clustering). */
const THRESHOLD_MEANING = [
  'near-identical (similarity ≥ 0.9)',
  'very similar (≥ 0.8)',
  'similar (≥ 0.7)',
  'related (≥ 0.6)',
  'loosely related (≥ 0.5)',
];

/** Clusters per page: the API's fixed page size (docs/decisions.md "Explore"). */
const CLUSTERS_PER_PAGE = 100;

export function ExplorePage() {
  const { datasetId = '' } = useParams();
  const [params, change] = useUrlState();
  const threshold = Math.min(4, Math.max(0, Number(params.get('threshold')) || 0));
  const page = Math.max(0, Number(params.get('page')) || 0);
  const caption = params.get('caption') ?? '';
  const anchor = params.get('similar_to') ?? '';
  const anchorName = params.get('similar_name') ?? '';
  const vqlControls = fromVql(params.get('vql'));
  const vql = toVql(vqlControls);
  const anchorType = params.get('anchor_type') === 'UPLOAD' ? 'UPLOAD' : 'MEDIA';
  const entityType: EntityType = params.get('entity_type') === 'OBJECTS' ? 'OBJECTS' : 'IMAGES';
  const [captionInput, setCaptionInput] = useState(caption);
  const [selected, setSelected] = useState<Preview | undefined>();
  const [objectSearch, setObjectSearch] = useState<{ pending: boolean; error?: unknown }>({ pending: false });
  const [selecting, setSelecting] = useState(false);
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [lastPicked, setLastPicked] = useState<string | undefined>();
  // Roving focus: one thumbnail of the grid is a Tab stop, the arrow keys move between them.
  const [focusKey, setFocusKey] = useState<string | undefined>();
  const navigate = useNavigate();
  const [viewing, setViewing] = useState<number | undefined>();
  const [helpOpen, setHelpOpen] = useShortcutsHelp();
  const [density, setDensity] = useDensity();
  // A link to a saved view (a notification's): Explore opens with the view's filters.
  const viewId = params.get('view');
  // A notification's batch: only the media it added (the view's new matches it announced), until the chip is removed.
  const batch = params.get('batch') ?? '';
  const views = useQuery({ ...viewQueries.list(datasetId), enabled: viewId !== null });
  const openedView = views.data?.find((view) => view.id === viewId);
  useEffect(() => {
    if (openedView) void navigate(viewExploreUrl(datasetId, openedView.filters, batch || undefined), { replace: true });
  }, [openedView, datasetId, batch, navigate]);

  const dataset = useQuery(datasetQueries.detail(datasetId));
  const query: ExploreQuery = {
    entity_type: entityType,
    threshold,
    page_number: page,
    caption: caption || undefined,
    vql: vql.length > 0 ? JSON.stringify(vql) : undefined,
    ...(batch ? { batch_id: batch } : {}),
    ...(anchor ? { anchor_media_id: anchor, anchor_type: anchorType } : {}),
  };
  const explore = useQuery({
    ...exploreQueries.page(datasetId, query),
    placeholderData: keepPreviousData,
    // Signed media links expire (MEDIA_URL_TTL_SECONDS); a page kept open for long gets fresh ones.
    staleTime: 5 * 60_000,
  });
  const clusters = explore.data?.clusters ?? [];
  // A text search that found nothing in a dataset with nothing to read: the API says why.
  const searchHint = explore.data?.metadata.hint ?? null;
  const canSelect = entityType === 'IMAGES';
  const thumbKeys = clusters.flatMap((cluster) => cluster.previews.map((preview, index) => thumbKey(preview, index)));
  const tabStop = focusKey !== undefined && thumbKeys.includes(focusKey) ? focusKey : thumbKeys[0];
  // The viewer goes through the images of the page in the grid's order (objects search instead).
  const viewerItems = clusters.flatMap((cluster) => cluster.previews.filter((preview) => !preview.bounding_box));
  const openViewer = (preview: Preview) => setViewing(viewerItems.findIndex((item) => item.media_id === preview.media_id));
  const closeViewer = () => {
    const shown = viewing === undefined ? undefined : viewerItems[viewing];
    setViewing(undefined);
    if (shown) {
      setFocusKey(shown.media_id);
      focusThumb(shown.media_id);
    }
  };
  // Next past the page's last image opens the next page of results in the viewer (and previous the one before).
  const [viewerTurn, setViewerTurn] = useState<{ step: 1 | -1; page: number } | undefined>();
  const hasNextPage = clusters.length >= CLUSTERS_PER_PAGE;
  const turnViewerPage = (step: 1 | -1) => {
    setViewerTurn({ step, page: page + step });
    change({ page: String(page + step) });
  };
  useEffect(() => {
    if (viewerTurn !== undefined && explore.isError) return setViewerTurn(undefined);
    // Wait for the URL to name the new page and for its results (not the previous page's, kept while it loads).
    if (viewerTurn === undefined || page !== viewerTurn.page || explore.isPlaceholderData || !explore.data) return;
    setViewerTurn(undefined);
    setViewing(viewerItems.length === 0 ? undefined : viewerTurn.step === 1 ? 0 : viewerItems.length - 1);
  }, [viewerTurn, page, explore.isPlaceholderData, explore.isError, explore.data, viewerItems.length]);
  const findSimilar = (preview: Preview) => change({ similar_to: preview.media_id, anchor_type: undefined, similar_name: preview.file_name, caption: undefined });

  useEffect(() => {
    if (selection === EMPTY_SELECTION) return undefined;
    const clearOnEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') setSelection(EMPTY_SELECTION);
    };
    document.addEventListener('keydown', clearOnEscape);
    return () => document.removeEventListener('keydown', clearOnEscape);
  }, [selection]);

  /** A click toggles one image; with Shift, every image from the last one clicked to this one (in the grid's order) is selected. */
  const onToggleMedia = (mediaId: string, range: boolean) => {
    const order = clusters.flatMap((cluster) => cluster.previews.map((preview) => preview.media_id));
    setSelection((current) => toggleMedia(current, order, mediaId, lastPicked, range));
    setLastPicked(mediaId);
  };

  return (
    <>
      <p>
        <Link to="/">Datasets</Link> › <Link to={`/datasets/${datasetId}`}>{dataset.data?.display_name ?? datasetId}</Link> › Explore · <Link to={`/datasets/${datasetId}/map${query.vql ? `?${new URLSearchParams({ vql: query.vql })}` : ''}`}>Map</Link>
      </p>
      <h1>Explore {dataset.data?.display_name ?? ''}</h1>
      <ErrorMessage error={dataset.error ?? views.error} />
      {viewId && views.data && !openedView && <p role="alert">This saved view no longer exists.</p>}
      <div className="toolbar">
        <fieldset className="segmented" aria-label="Entity type">
          {(['IMAGES', 'OBJECTS'] as const).map((type) => (
            <label key={type}>
              <input
                type="radio"
                name="entity_type"
                value={type}
                checked={entityType === type}
                onChange={() => {
                  setSelected(undefined);
                  change({ entity_type: type === 'OBJECTS' ? type : undefined });
                }}
              />{' '}
              {type === 'OBJECTS' ? 'Objects' : 'Images'}
            </label>
          ))}
        </fieldset>
        {canSelect && (
          <button type="button" aria-pressed={selecting} onClick={() => setSelecting(!selecting)}>
            {selecting ? 'Done selecting' : 'Select'}
          </button>
        )}
        <DensityControl density={density} onChange={setDensity} />
        <button type="button" onClick={() => setHelpOpen(true)}>
          Shortcuts (?)
        </button>
        <label>
          Similarity threshold <strong data-testid="threshold-value">{threshold}</strong>{' '}
          <input type="range" min={0} max={4} step={1} value={threshold} aria-label="Similarity threshold" onChange={(event) => change({ threshold: event.target.value })} />{' '}
          <span className="muted" data-testid="threshold-meaning">
            {THRESHOLD_MEANING[threshold]}
          </span>
        </label>
        <form
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            change({ caption: captionInput.trim() || undefined });
          }}
        >
          <input type="search" value={captionInput} placeholder="Search captions, e.g. a cat on a sofa" aria-label="Caption search" onChange={(event) => setCaptionInput(event.target.value)} />
          <button type="submit">Search</button>
        </form>
        <ImageSearch
          datasetId={datasetId}
          entityType={entityType}
          onAnchor={(anchorId, name) => change({ similar_to: anchorId, anchor_type: 'UPLOAD', similar_name: name, caption: undefined })}
        />
        {objectSearch.pending && <span aria-live="polite">Encoding the object…</span>}
        {(caption || anchor) && (
          <button
            type="button"
            onClick={() => {
              setCaptionInput('');
              change({ caption: undefined, similar_to: undefined, similar_name: undefined, anchor_type: undefined });
            }}
          >
            Clear search
          </button>
        )}
      </div>
      <VqlFilters
        datasetId={datasetId}
        controls={vqlControls}
        mapPoints={params.get('map_points') ? Number(params.get('map_points')) : undefined}
        onChange={(next) => {
          const elements = toVql(next);
          change({ vql: elements.length > 0 ? JSON.stringify(elements) : undefined, map_points: next.map ? (params.get('map_points') ?? undefined) : undefined });
        }}
      />
      {anchor && (
        <p role="status" data-testid="visual-search">
          {entityType === 'OBJECTS' ? 'Objects' : 'Images'} visually similar to <strong>{anchorName || (anchorType === 'UPLOAD' ? 'your image' : anchor)}</strong>, nearest first.
        </p>
      )}
      {caption && <p role="status">Captions matching “{caption}”, nearest first.</p>}
      {batch && (
        <p className="filter-chip" data-testid="batch-chip">
          Only the media of the batch the notification announced{' '}
          <button type="button" aria-label="Show the matches of every batch" onClick={() => change({ batch: undefined })}>
            ×
          </button>
        </p>
      )}
      <ErrorMessage error={objectSearch.error} prefix="The object search failed" />
      <ErrorMessage error={explore.error} prefix="Explore failed" />
      {canSelect && (selecting || selection !== EMPTY_SELECTION) && (
        <>
          {selecting && (
            <p className="muted">
              Click images to select them (Shift-click selects a range), or select whole clusters; Escape clears the selection.{' '}
              {caption || anchor ? (
                <span>A search ranks images rather than filtering them: clear it to select everything the filters match.</span>
              ) : (
                <button
                  type="button"
                  onClick={() =>
                    setSelection((current) => ({
                      ...current,
                      // A filter matches images and video frames alike: the selection bar counts each before any action.
                      matching: { vql: JSON.stringify(vql), description: vql.length > 0 ? 'everything matching the filters' : 'every image and video frame' },
                    }))
                  }
                >
                  {vql.length > 0 ? 'Select all matching the filters' : 'Select all images and video frames'}
                </button>
              )}
            </p>
          )}
          <SelectionBar datasetId={datasetId} selection={selection} onClear={() => setSelection(EMPTY_SELECTION)} />
        </>
      )}
      {explore.isPending && <p>Loading clusters…</p>}
      {explore.data && clusters.length === 0 && (
        <p>
          No cluster on this page.
          {searchHint && (
            <>
              {' '}
              {searchHint} <Link to={`/datasets/${datasetId}`}>Enrich on the dataset page</Link>.
            </>
          )}
        </p>
      )}
      <div className="explore-body">
      <ul className={`grid density-${density}`} aria-label="Clusters" aria-busy={explore.isFetching} onKeyDown={moveFocus}>
        {clusters.map((cluster) => (
          <ClusterCard
            key={cluster.cluster_id}
            datasetId={datasetId}
            cluster={cluster}
            onSelect={setSelected}
            tabStop={tabStop}
            onFocusThumb={setFocusKey}
            selecting={selecting && canSelect}
            selection={selection}
            onToggleMedia={onToggleMedia}
            onToggleCluster={(cluster) => setSelection((current) => toggleCluster(current, { id: cluster.cluster_id, size: cluster.n_images }))}
            onOpen={openViewer}
            onPick={async (preview) => {
              // An object has no id of its own here: its image, cropped to its box, is the query.
              setObjectSearch({ pending: true });
              try {
                const image = await fetchImage(preview.media_uri);
                const { anchor_media_id: anchorId } = await searchByImage(datasetId, image, preview.file_name, 'OBJECTS', preview.bounding_box);
                setObjectSearch({ pending: false });
                change({ similar_to: anchorId, anchor_type: 'UPLOAD', similar_name: `the object “${preview.caption ?? preview.file_name}” in ${preview.file_name}`, caption: undefined });
              } catch (error) {
                setObjectSearch({ pending: false, error });
              }
            }}
          />
        ))}
      </ul>
      {/* Always there, so the grid keeps its width when an image is pointed at. */}
      {selected ? (
        <MediaDetails preview={selected} onClose={() => setSelected(undefined)} />
      ) : (
        <aside className="card details muted" aria-label="Media details">
          Point at an image, or move between them with the arrow keys, to see its details; click it (or press Enter) to open it full screen.
        </aside>
      )}
      </div>
      {viewing !== undefined && viewerItems[viewing] && (
        <MediaViewer
          datasetId={datasetId}
          items={viewerItems}
          index={viewing}
          onIndex={setViewing}
          onClose={closeViewer}
          paging={{ previous: page > 0, next: hasNextPage, loading: viewerTurn !== undefined, onPage: turnViewerPage }}
          actions={(item) => (
            <button type="button" onClick={() => { setViewing(undefined); findSimilar(item); }}>
              Find similar images
            </button>
          )}
        />
      )}
      {helpOpen && <ShortcutsHelp onClose={() => setHelpOpen(false)} />}
      <Pager label="Cluster pages" page={page} hasNext={hasNextPage} summary={`Page ${page + 1}`} onPage={(next) => change({ page: String(next) })} />
      <ViewsPanel datasetId={datasetId} entityType={entityType} caption={caption || undefined} vql={vql.length > 0 ? JSON.stringify(vql) : undefined} />
    </>
  );
}

/** Arrow keys move between thumbnails in reading order (Left/Right) or by a row of the grid (Up/Down); Enter searches. */
function moveFocus(event: KeyboardEvent<HTMLUListElement>) {
  const keys: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 0, ArrowUp: 0 };
  if (!(event.key in keys)) return;
  const thumbs = Array.from(event.currentTarget.querySelectorAll<HTMLButtonElement>('button.thumb'));
  const current = thumbs.indexOf(document.activeElement as HTMLButtonElement);
  if (current < 0) return;
  event.preventDefault();
  let next = current + keys[event.key];
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    // The nearest thumbnail straight below (or above) the current one.
    const from = thumbs[current].getBoundingClientRect();
    const below = event.key === 'ArrowDown';
    const candidates = thumbs
      .map((thumb, index) => ({ index, box: thumb.getBoundingClientRect() }))
      .filter(({ box }) => (below ? box.top > from.bottom - 1 : box.bottom < from.top + 1));
    candidates.sort((a, b) => Math.abs(a.box.top - from.top) - Math.abs(b.box.top - from.top) || Math.abs(a.box.left - from.left) - Math.abs(b.box.left - from.left));
    next = candidates[0]?.index ?? current;
  }
  thumbs[Math.min(Math.max(next, 0), thumbs.length - 1)].focus();
}
