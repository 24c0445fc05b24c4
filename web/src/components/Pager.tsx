import type { ReactNode } from 'react';

/** Previous and Next around a summary of where the list is; `page` counts from 0. */
export function Pager({ label, page, hasNext, summary, onPage, children }: { label: string; page: number; hasNext: boolean; summary: ReactNode; onPage(page: number): void; children?: ReactNode }) {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>{summary}</span>
      <button type="button" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        Next
      </button>
      {children}
    </nav>
  );
}
