import { useState } from 'react';

export type Density = 'compact' | 'comfortable';
const STORAGE_KEY = 'explore.density';

/** The grid's density, remembered in this browser. */
export function useDensity(): [Density, (density: Density) => void] {
  const [density, setDensity] = useState<Density>(() => (localStorage.getItem(STORAGE_KEY) === 'compact' ? 'compact' : 'comfortable'));
  const remember = (next: Density) => {
    localStorage.setItem(STORAGE_KEY, next);
    setDensity(next);
  };
  return [density, remember];
}

export function DensityControl({ density, onChange }: { density: Density; onChange(density: Density): void }) {
  return (
    <fieldset className="segmented" aria-label="Density">
      {(['compact', 'comfortable'] as const).map((option) => (
        <label key={option}>
          <input type="radio" name="density" value={option} checked={density === option} onChange={() => onChange(option)} /> {option === 'compact' ? 'Compact' : 'Comfortable'}
        </label>
      ))}
    </fieldset>
  );
}
