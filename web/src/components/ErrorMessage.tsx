/** An API error as its `{detail}` text, never a blank page. */
export function ErrorMessage({ error, prefix }: { error: unknown; prefix?: string }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className="error">
      {prefix ? `${prefix}: ` : ''}
      {text}
    </p>
  );
}
