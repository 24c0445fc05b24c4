import type { CSSProperties } from 'react';
import type { Box } from '../api/client';

/** The smallest box (in CSS pixels) that shows its label inside. */
const MIN_LABELLED_WIDTH = 36;
const MIN_LABELLED_HEIGHT = 16;

/** A box given in fractions of an image, positioned over a frame the image fills exactly. */
export function boxStyle(box: Box): CSSProperties {
  return { left: `${box.x * 100}%`, top: `${box.y * 100}%`, width: `${box.width * 100}%`, height: `${box.height * 100}%` };
}

/** The box drawn over its image, with its label in its corner. */
export function BoxOverlay({ box, label, title = label }: { box: Box; label?: string | null; title?: string | null }) {
  return (
    <span className="bbox" style={boxStyle(box)} data-testid="bbox" title={title ?? undefined}>
      {label && <span className="bbox-label">{label}</span>}
    </span>
  );
}

/**
 * An image framed at its own aspect ratio within a `size` square (so fractions of the frame are
 * fractions of the image), with an object's box over it.
 */
export function BoxedImage({
  src,
  alt,
  size,
  imageWidth,
  imageHeight,
  box,
  label,
  lazy = false,
}: {
  src: string;
  alt: string;
  size: number;
  imageWidth: number | null;
  imageHeight: number | null;
  box?: Box | null;
  label?: string | null;
  lazy?: boolean;
}) {
  const ratio = imageWidth && imageHeight ? imageWidth / imageHeight : 1;
  const width = ratio >= 1 ? size : Math.round(size * ratio);
  const height = ratio >= 1 ? Math.round(size / ratio) : size;
  // A label over a box of a few pixels would hide the object: those keep theirs in the title.
  const roomForLabel = box && box.width * width >= MIN_LABELLED_WIDTH && box.height * height >= MIN_LABELLED_HEIGHT;
  return (
    <span className="boxed" style={{ width, height }}>
      <img src={src} alt={alt} width={width} height={height} loading={lazy ? 'lazy' : undefined} decoding="async" />
      {box && <BoxOverlay box={box} label={roomForLabel ? label : undefined} title={label} />}
    </span>
  );
}
