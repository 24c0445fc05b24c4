/** A labelled progress bar; `value` in percent, null while unknown. */
export function ProgressBar({ value, label }: { value: number | null; label: string }) {
  return value === null ? (
    <progress aria-label={label} />
  ) : (
    <progress aria-label={label} max={100} value={value} title={`${Math.round(value)} %`} />
  );
}
