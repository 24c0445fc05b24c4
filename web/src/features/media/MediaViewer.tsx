import { useEffect, useRef, useState, type PointerEvent, type ReactNode, type WheelEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { isTyping } from '../../components/ShortcutsHelp';
import { ClassHistory } from '../labels/ClassHistory';
import { mediaQueries } from './api';

/** What the viewer needs of an item: a preview of Explore or of a cluster's page. */
export interface ViewerItem {
  media_id: string;
  file_name: string;
  media_uri: string;
  caption: string | null;
}

/** Zooms beyond the fit, which fills the stage whatever the image's own size (a 28 px image too). */
const ZOOMS = [1, 1.5, 2, 3, 4, 6, 8];
/** Enlarged this many times or more, an image is drawn with square pixels, not blurred. */
const PIXELATED_FROM = 3;
const PAN_STEP = 60;

/** Pages of items beyond `items`: next past the last item (previous before the first) loads the next (previous) page. */
export interface ViewerPaging {
  previous: boolean;
  next: boolean;
  /** A page is loading: the viewer moves on to it when it is in. */
  loading: boolean;
  onPage(step: 1 | -1): void;
}

/** One item of `items` full screen, with its facts beside it: next and previous (on into the next page with `paging`), zoom and pan. */
export function MediaViewer<Item extends ViewerItem>({
  datasetId,
  items,
  index,
  onIndex,
  onClose,
  actions,
  paging,
}: {
  datasetId: string;
  items: Item[];
  index: number;
  onIndex(index: number): void;
  onClose(): void;
  actions?(item: Item): ReactNode;
  paging?: ViewerPaging;
}) {
  const item = items[index];
  const [zoom, setZoom] = useState(0);
  const [pan, setPan] = useState({ x: 0, y: 0 });
  const [drag, setDrag] = useState<{ x: number; y: number } | undefined>();
  const scale = ZOOMS[zoom];
  const stage = useRef<HTMLDivElement>(null);
  const [stageSize, setStageSize] = useState<{ width: number; height: number }>();
  const [natural, setNatural] = useState<{ src: string; width: number; height: number }>();
  useEffect(() => {
    const element = stage.current!;
    const observer = new ResizeObserver(() => setStageSize({ width: element.clientWidth, height: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // How many times its own size the image is drawn: the fit (which may enlarge it) times the zoom.
  const shown = natural?.src === item.media_uri && stageSize ? Math.min(stageSize.width / natural.width, stageSize.height / natural.height) * scale : undefined;
  const zoomTo = (next: number) => {
    const clamped = Math.min(Math.max(next, 0), ZOOMS.length - 1);
    setZoom(clamped);
    if (clamped === 0) setPan({ x: 0, y: 0 });
  };
  const pageOn = (step: 1 | -1) => Boolean(paging && !paging.loading && (step === 1 ? paging.next : paging.previous));
  const canGo = (step: 1 | -1) => (step === 1 ? index < items.length - 1 : index > 0) || pageOn(step);
  const go = (step: 1 | -1) => {
    if (!canGo(step)) return;
    zoomTo(0);
    const next = index + step;
    if (next < 0 || next >= items.length) paging!.onPage(step);
    else onIndex(next);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    // On the page, not the dialog: a button that turns disabled (the last image's Next) drops the focus to the body.
    const inOtherDialog = (event.target as HTMLElement).closest('dialog:not(.viewer)');
    if (isTyping(event) || inOtherDialog) return;
    const panBy = { ArrowLeft: [PAN_STEP, 0], ArrowRight: [-PAN_STEP, 0], ArrowUp: [0, PAN_STEP], ArrowDown: [0, -PAN_STEP] }[event.key];
    if (panBy && event.shiftKey && scale > 1) setPan((at) => ({ x: at.x + panBy[0], y: at.y + panBy[1] }));
    else if (event.key === 'ArrowRight') go(1);
    else if (event.key === 'ArrowLeft') go(-1);
    else if (event.key === '+' || event.key === '=') zoomTo(zoom + 1);
    else if (event.key === '-') zoomTo(zoom - 1);
    else if (event.key === '0') zoomTo(0);
    else return;
    event.preventDefault();
  };
  useEffect(() => {
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  });
  const onWheel = (event: WheelEvent) => zoomTo(zoom + (event.deltaY < 0 ? 1 : -1));
  const onPointerMove = (event: PointerEvent) => {
    if (!drag) return;
    setPan((at) => ({ x: at.x + event.clientX - drag.x, y: at.y + event.clientY - drag.y }));
    setDrag({ x: event.clientX, y: event.clientY });
  };

  return (
    <Dialog title={item.file_name} onClose={onClose} className="viewer">
      <div className="viewer-body">
        <div
          ref={stage}
          className={`viewer-stage${scale > 1 ? ' zoomed' : ''}`}
          onWheel={onWheel}
          onPointerDown={(event) => scale > 1 && setDrag({ x: event.clientX, y: event.clientY })}
          onPointerMove={onPointerMove}
          onPointerUp={() => setDrag(undefined)}
          onPointerLeave={() => setDrag(undefined)}
        >
          <img
            src={item.media_uri}
            alt={item.caption ?? item.file_name}
            draggable={false}
            data-testid="viewer-image"
            data-zoom={scale}
            className={shown !== undefined && shown >= PIXELATED_FROM ? 'pixelated' : undefined}
            onLoad={(event) => setNatural({ src: item.media_uri, width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })}
            style={{ transform: `translate(${pan.x}px, ${pan.y}px) scale(${scale})` }}
          />
        </div>
        <div className="viewer-side">
          <div className="viewer-controls" role="group" aria-label="Viewer controls">
            <button type="button" onClick={() => go(-1)} disabled={!canGo(-1)}>
              ← Previous
            </button>
            <button type="button" onClick={() => go(1)} disabled={!canGo(1)}>
              Next →
            </button>
            <span className="muted" data-testid="viewer-position">
              {index + 1} of {items.length}
            </span>
            <button type="button" onClick={() => zoomTo(zoom - 1)} disabled={zoom === 0} aria-label="Zoom out">
              −
            </button>
            <span data-testid="viewer-zoom">{Math.round(scale * 100)}%</span>
            <button type="button" onClick={() => zoomTo(zoom + 1)} disabled={zoom === ZOOMS.length - 1} aria-label="Zoom in">
              +
            </button>
            <button type="button" onClick={() => zoomTo(0)} disabled={zoom === 0}>
              Fit
            </button>
          </div>
          {paging?.loading ? (
            <p role="status">Loading the next page of results…</p>
          ) : (
            (index === 0 || index === items.length - 1) && <p className="muted">{edgeNote(index, items.length, paging)}</p>
          )}
          <MediaFacts datasetId={datasetId} mediaId={item.media_id} />
          <p className="viewer-links">
            {actions?.(item)}
            <a href={item.media_uri} target="_blank" rel="noreferrer">
              Open the original
            </a>
            <span className="muted">Press ? for shortcuts</span>
          </p>
        </div>
      </div>
    </Dialog>
  );
}

/** What lies beyond the first or last item loaded. */
function edgeNote(index: number, count: number, paging: ViewerPaging | undefined): string {
  const notes: string[] = [];
  if (index === 0) notes.push(paging?.previous ? 'Previous opens the previous page of results.' : 'The first image.');
  if (index === count - 1) notes.push(paging?.next ? 'Next opens the next page of results.' : paging ? 'The last image.' : 'The last image loaded here.');
  return notes.join(' ');
}

const BYTE_UNITS = ['bytes', 'KB', 'MB', 'GB'];
function readableSize(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1000 && unit < BYTE_UNITS.length - 1) {
    size /= 1000;
    unit++;
  }
  return `${unit === 0 ? size : size.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** The item's file, size, resolution, caption, class (the user's label) and its history, model labels, tags and quality issues, as the dataset holds them now. */
function MediaFacts({ datasetId, mediaId }: { datasetId: string; mediaId: string }) {
  const facts = useQuery(mediaQueries.detail(datasetId, mediaId));
  const data = facts.data;
  const list = (values: string[]) => (values.length > 0 ? values.join(', ') : 'none');
  return (
    <>
      <ErrorMessage error={facts.error} prefix="The facts of this item could not be loaded" />
      {data && (
        <dl className="facts" data-testid="viewer-facts">
          <dt>File</dt>
          <dd data-testid="viewer-file">{data.file_name}</dd>
          <dt>Size</dt>
          <dd>{readableSize(data.size_bytes)}</dd>
          <dt>Resolution</dt>
          <dd>{data.width && data.height ? `${data.width} × ${data.height}` : 'unknown'}</dd>
          <dt>Caption</dt>
          <dd>{data.caption ?? 'none'}</dd>
          <dt>Class</dt>
          <dd>
            <span data-testid="viewer-class">{data.class ?? 'none'}</span>
            <ClassHistory key={mediaId} datasetId={datasetId} mediaId={mediaId} />
          </dd>
          <dt>Model labels</dt>
          <dd>{list(data.labels)}</dd>
          <dt>Tags</dt>
          <dd>{list(data.tags.map((tag) => tag.name))}</dd>
          <dt>Issues</dt>
          <dd data-testid="viewer-issues">{list(data.issues)}</dd>
          {data.mislabel && (
            <>
              <dt>Label check</dt>
              <dd data-testid="viewer-mislabel">
                “{data.mislabel.label}” looks wrong (score {data.mislabel.score.toFixed(2)}); suggested “{data.mislabel.suggested_label}”
              </dd>
            </>
          )}
          {data.leakage && (
            <>
              <dt>Leakage</dt>
              <dd data-testid="viewer-leakage">
                In {data.leakage.split}, with a near-duplicate in {data.leakage.duplicate_split} (similarity {data.leakage.similarity.toFixed(2)})
              </dd>
            </>
          )}
        </dl>
      )}
    </>
  );
}
