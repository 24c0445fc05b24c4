import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

/**
 * A modal dialog (the browser's own: the page behind is inert, so focus stays inside). Escape or
 * the close button calls onClose; focus goes back to where it was when the dialog opened.
 */
export function Dialog({ title, onClose, className, children }: { title: ReactNode; onClose(): void; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  // Escape belongs to the dialog alone: the page's own Escape (clearing a selection) must not see it.
  const keepEscape = (event: KeyboardEvent) => {
    if (event.key === 'Escape') event.stopPropagation();
  };
  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      aria-labelledby={titleId}
      onKeyDown={keepEscape}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="close" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}

/** Asks before an action that cannot be undone; the dialog says what will happen. */
export function ConfirmDialog({ title, confirmLabel, onConfirm, onCancel, children }: { title: string; confirmLabel: string; onConfirm(): void; onCancel(): void; children: ReactNode }) {
  return (
    <Dialog title={title} onClose={onCancel} className="confirm">
      {children}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
