import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap, type Dataset } from '../api/client';
import { refusalOf } from '../api/offers';
import { ConfirmDialog } from './Dialog';
import { ErrorMessage } from './ErrorMessage';

/** Delete: asks first (it cannot be undone), then leaves for the dataset list. Only the owner may; the API says why otherwise. */
export function DeleteDataset({ dataset }: { dataset: Dataset }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}', { params: { path: { dataset_id: dataset.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['dataset', dataset.id] });
      await Promise.all(['datasets', 'tasks'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
      await navigate('/');
    },
  });
  const refused = refusalOf(dataset, 'delete');
  return (
    <>
      <p>
        <button type="button" className="danger" onClick={() => setConfirming(true)} disabled={Boolean(refused) || remove.isPending} aria-describedby={refused ? 'delete-reason' : undefined}>
          Delete dataset
        </button>{' '}
        {refused && (
          <span className="reason" id="delete-reason">
            {refused}
          </span>
        )}
      </p>
      <ErrorMessage error={remove.error} prefix="The dataset could not be deleted" />
      {confirming && (
        <ConfirmDialog
          title={`Delete “${dataset.display_name}”?`}
          confirmLabel="Delete"
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            remove.mutate();
          }}
        >
          <p>
            The dataset, its snapshots, saved views, tasks and exports are deleted for everyone it is shared with. This cannot be undone. Datasets
            cloned or enriched from it are kept.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
