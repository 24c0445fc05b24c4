import type { InputHTMLAttributes, Ref } from 'react';

/**
 * A file input that picks a whole folder: each picked file keeps its path in it (webkitRelativePath,
 * `pets/cats/1.jpg`), which uploads send as its name so that its folder can be its label (labels_from=folder).
 */
export function FolderInput({ inputRef, ...props }: Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'multiple'> & { inputRef?: Ref<HTMLInputElement> }) {
  return (
    <input
      {...props}
      type="file"
      multiple
      // React has no prop for webkitdirectory.
      ref={(element) => {
        element?.setAttribute('webkitdirectory', '');
        if (typeof inputRef === 'function') inputRef(element);
        else if (inputRef) (inputRef as { current: HTMLInputElement | null }).current = element;
      }}
    />
  );
}
