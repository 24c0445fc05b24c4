import { useEffect, useState } from 'react';
import { Dialog } from './Dialog';

/** Every keyboard shortcut of the grid, the viewer and duplicate review: the help sheet lists these and nothing else decides them. */
export const SHORTCUTS: Array<{ area: string; keys: Array<[string, string]> }> = [
  {
    area: 'Grid',
    keys: [
      ['← → ↑ ↓', 'Move between images'],
      ['Enter', 'Open the image full screen (in Select mode: select it)'],
      ['Tab', 'Leave the grid (it is one Tab stop)'],
      ['Shift-click', 'In Select mode: select a range'],
      ['Escape', 'Clear the selection'],
      ['?', 'Show these shortcuts'],
    ],
  },
  {
    area: 'Viewer',
    keys: [
      ['→ or ←', 'Next or previous image'],
      ['+ or −', 'Zoom in or out (or the mouse wheel)'],
      ['0', 'Back to the whole image'],
      ['Shift + arrows', 'Pan a zoomed image (or drag it)'],
      ['Escape', 'Close the viewer, back to the image in the grid'],
      ['?', 'Show these shortcuts'],
    ],
  },
  {
    area: 'Duplicates',
    keys: [
      ['k', 'Keep the focused copy, discard the rest of its group'],
      ['d', 'Keep the ticked copies (the suggested keeper unless changed), discard the rest'],
      ['n', 'Not duplicates: keep every copy of the group'],
      ['↑ ↓', 'Previous or next group (focus moves to the next one after a decision)'],
      ['?', 'Show these shortcuts'],
    ],
  },
];

/** Inputs where a letter is no text (a checkbox, a button): shortcuts still work there. */
const TEXTLESS_INPUTS = new Set(['checkbox', 'button', 'submit', 'reset']);

/** True while the key was typed into a field, where it is text, not a shortcut. */
export function isTyping(event: KeyboardEvent): boolean {
  const field = (event.target as HTMLElement | null)?.closest('input, textarea, select, [contenteditable="true"]');
  return Boolean(field) && !(field instanceof HTMLInputElement && TEXTLESS_INPUTS.has(field.type));
}

/** `?` anywhere on the page (outside a field) opens the help sheet. */
export function useShortcutsHelp(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const openOnQuestionMark = (event: KeyboardEvent) => {
      if (event.key === '?' && !isTyping(event)) setOpen(true);
    };
    document.addEventListener('keydown', openOnQuestionMark);
    return () => document.removeEventListener('keydown', openOnQuestionMark);
  }, []);
  return [open, setOpen];
}

/** The help sheet, of the areas a page has (the grid's and the viewer's unless told). */
export function ShortcutsHelp({ onClose, areas = ['Grid', 'Viewer'] }: { onClose(): void; areas?: string[] }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} className="shortcuts">
      {SHORTCUTS.filter(({ area }) => areas.includes(area)).map(({ area, keys }) => (
        <section key={area}>
          <h3>{area}</h3>
          <dl className="facts">
            {keys.map(([key, what]) => (
              <div key={key} className="shortcut">
                <dt>
                  <kbd>{key}</kbd>
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </Dialog>
  );
}
