import { useEffect, useState } from 'react';
import { Dialog } from './Dialog';

/** Every keyboard shortcut of the grid and the viewer: the help sheet lists these and nothing else decides them. */
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
];

/** True while the key was typed into a field, where it is text, not a shortcut. */
export function isTyping(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return Boolean(target?.closest('input, textarea, select, [contenteditable="true"]'));
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

export function ShortcutsHelp({ onClose }: { onClose(): void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} className="shortcuts">
      {SHORTCUTS.map(({ area, keys }) => (
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
