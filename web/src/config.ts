/** Where the Temporal Web UI is; set VITE_TEMPORAL_UI_URL / VITE_TEMPORAL_NAMESPACE at build time for another deployment. */
export const temporalUiUrl = (import.meta.env.VITE_TEMPORAL_UI_URL as string | undefined) ?? 'http://localhost:8233';
export const temporalNamespace = (import.meta.env.VITE_TEMPORAL_NAMESPACE as string | undefined) ?? 'default';

export function workflowUrl(taskId: string): string {
  return `${temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(temporalNamespace)}/workflows/${encodeURIComponent(taskId)}`;
}
