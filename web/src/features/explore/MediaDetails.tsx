import { BoxedImage } from '../../components/BoxedImage';
import type { Preview } from './api';
import { similarity } from './previews';

/** Every field Explore gives of one preview. */
export function MediaDetails({ preview, onClose }: { preview: Preview; onClose(): void }) {
  return (
    <aside className="card details" aria-label="Media details">
      <button type="button" className="close" onClick={onClose} aria-label="Close details">
        ×
      </button>
      <BoxedImage src={preview.media_thumb_uri} alt={preview.caption ?? preview.file_name} size={228} imageWidth={preview.width} imageHeight={preview.height} box={preview.bounding_box} label={preview.caption} />
      <dl className="facts">
        <dt>File</dt>
        <dd data-testid="details-file">{preview.file_name}</dd>
        <dt>Media id</dt>
        <dd>
          <code>{preview.media_id}</code>
        </dd>
        <dt>Caption</dt>
        <dd>{preview.caption ?? '—'}</dd>
        <dt>Size</dt>
        <dd>{preview.width && preview.height ? `${preview.width} × ${preview.height}` : '—'}</dd>
        {preview.bounding_box && (
          <>
            <dt>Box</dt>
            <dd data-testid="details-box">
              x {preview.bounding_box.x.toFixed(3)}, y {preview.bounding_box.y.toFixed(3)}, {preview.bounding_box.width.toFixed(3)} × {preview.bounding_box.height.toFixed(3)} of the image
            </dd>
          </>
        )}
        {preview.relevance_score !== undefined && (
          <>
            <dt>Similarity</dt>
            <dd>{similarity(preview.relevance_score).toFixed(4)}</dd>
          </>
        )}
      </dl>
      <a href={preview.media_uri} target="_blank" rel="noreferrer">
        Open the original
      </a>
    </aside>
  );
}
