/** Focuses an image's thumbnail once the page has drawn again (after a dialog over it has closed). */
export function focusThumb(mediaId: string): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`.thumb[data-media-id="${CSS.escape(mediaId)}"]`)?.focus());
}
