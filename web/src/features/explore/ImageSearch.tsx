import { useEffect, useRef, useState, type PointerEvent } from 'react';
import type { Box, EntityType } from '../../api/client';
import { BoxOverlay } from '../../components/BoxedImage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { searchByImage } from './api';

/** Boxes smaller than this (a fraction of either side) are a click, not a drawn box. */
const MIN_SIDE = 0.02;

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/** The box between two corners, in fractions of the image, or none when too small. */
function boxBetween(from: { x: number; y: number }, to: { x: number; y: number }): Box | null {
  const x = Math.min(from.x, to.x);
  const y = Math.min(from.y, to.y);
  const width = Math.abs(to.x - from.x);
  const height = Math.abs(to.y - from.y);
  return width < MIN_SIDE || height < MIN_SIDE ? null : { x, y, width, height };
}

/**
 * Visual search from an image of the user's: choose a file, optionally drag a box on it (the part to
 * search for: an object), and search; the anchor it makes goes to `onAnchor`.
 */
export function ImageSearch({ datasetId, entityType, onAnchor }: { datasetId: string; entityType: EntityType; onAnchor(anchorId: string, name: string): void }) {
  const [image, setImage] = useState<File | undefined>();
  const [url, setUrl] = useState<string | undefined>();
  const [box, setBox] = useState<Box | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>();
  const start = useRef<{ x: number; y: number } | undefined>(undefined);

  useEffect(() => {
    if (!image) return undefined;
    const objectUrl = URL.createObjectURL(image);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [image]);

  const at = (event: PointerEvent<HTMLElement>) => {
    const frame = event.currentTarget.getBoundingClientRect();
    return { x: clamp((event.clientX - frame.left) / frame.width), y: clamp((event.clientY - frame.top) / frame.height) };
  };
  const close = () => {
    setImage(undefined);
    setUrl(undefined);
    setBox(null);
  };
  const search = async () => {
    if (!image) return;
    setPending(true);
    setError(undefined);
    try {
      const { anchor_media_id: anchorId } = await searchByImage(datasetId, image, image.name, entityType, box);
      close();
      onAnchor(anchorId, box ? `the box drawn on your image ${image.name}` : `your image ${image.name}`);
    } catch (failure) {
      setError(failure);
    } finally {
      setPending(false);
    }
  };

  return (
    <>
      <label className="file-button">
        Search with an image{' '}
        <input
          type="file"
          accept="image/*"
          aria-label="Search with an image"
          disabled={pending}
          onChange={(event) => {
            const chosen = event.target.files?.[0];
            event.target.value = '';
            setBox(null);
            setError(undefined);
            setImage(chosen);
          }}
        />
      </label>
      {image && url && (
        <section className="card image-search" aria-label="Image search">
          <p className="muted">
            Drag a box around the part to look for ({entityType === 'OBJECTS' ? 'objects' : 'images'} like it), or search with the whole image.
          </p>
          <div
            className="draw-frame"
            data-testid="draw-frame"
            onPointerDown={(event) => {
              event.preventDefault();
              event.currentTarget.setPointerCapture(event.pointerId);
              start.current = at(event);
              setBox(null);
            }}
            onPointerMove={(event) => {
              if (start.current) setBox(boxBetween(start.current, at(event)));
            }}
            onPointerUp={(event) => {
              if (start.current) setBox(boxBetween(start.current, at(event)));
              start.current = undefined;
            }}
          >
            <img src={url} alt={`Your image ${image.name}`} draggable={false} />
            {box && <BoxOverlay box={box} label="search here" />}
          </div>
          <div className="inline-form">
            <button type="button" onClick={search} disabled={pending}>
              {box ? 'Search in the box' : 'Search with the whole image'}
            </button>
            {box && (
              <button type="button" onClick={() => setBox(null)} disabled={pending}>
                Clear the box
              </button>
            )}
            <button type="button" onClick={close} disabled={pending}>
              Cancel
            </button>
            {pending && <span aria-live="polite">Encoding the image…</span>}
          </div>
        </section>
      )}
      <ErrorMessage error={error} prefix="The image search failed" />
    </>
  );
}
